"""Every route of the API, as the OpenAPI document describes it: method, path, models, forms, errors.

The request and answer models are the ones the functions validate and answer with, so the document cannot
drift from the code; tests/unit/test_openapi.py checks that this table and template.yaml name the same routes.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from webcapture.credits import Operation
from webcapture.models import requests, site_requests
from webcapture.openapi import answers

IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")

# Status codes every authenticated operation can answer, and who answers them.
_COMMON_ERRORS = {
    401: "UNAUTHORIZED: missing, malformed, unknown, disabled or expired credential",
    413: "PAYLOAD_TOO_LARGE: request body over 100 KB",
    429: "USAGE_EXCEEDED (out of credits), CONCURRENCY_LIMIT_EXCEEDED (too many requests of this key in "
         "flight; see Retry-After) or TOO_MANY_REQUESTS (the API's throttle)",
    500: "INTERNAL_SERVER_ERROR",
    502: "INTERNAL_SERVER_ERROR from the gateway when a function fails",
    503: "SERVICE_UNAVAILABLE: storage or the key store is throttling or unreachable",
    504: "the gateway's 29 s limit passed",
}
_BODY_ERRORS = {
    400: "INVALID_JSON: the body is not JSON (or invalid UTF-8, nested deeper than 64, NaN/Infinity)",
}
_BROWSER_ERRORS = {
    400: "INVALID_JSON; URL_NOT_ALLOWED: the target, or where it redirects, is refused by the egress policy",
    502: "NAVIGATION_FAILED: the page could not be loaded (DNS, refused, TLS, crashed tab)",
    504: "NAVIGATION_TIMEOUT: the page (or waitForSelector) did not finish within the time budget",
}


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    operation_id: str
    summary: str
    description: str
    operation: Operation
    data: type[BaseModel]
    request: type[BaseModel] | None = None
    example: dict[str, object] | None = None
    binary_types: tuple[str, ...] = ()  # the bytes form's content types (default answer)
    stores_files: bool = False  # JSON forms store the file; too big inline: 303 to it
    errors: tuple[tuple[int, str], ...] = ()

    def error_statuses(self) -> dict[int, str]:
        found = dict(_COMMON_ERRORS)
        if self.request is not None:
            found.update(_BODY_ERRORS)
        for status, text in self.errors:
            found[status] = text
        return dict(sorted(found.items()))


_BROWSER = tuple(_BROWSER_ERRORS.items())

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(
        "post", "/v1/web/screenshot", "screenshot", "Screenshot a page",
        "A png, jpeg or webp of the rendered page. Raw bytes by default; `base64: true` (or "
        "`screenshotOptions.encoding: base64`) answers JSON with the image inline and stores it; "
        "`Accept: application/json` stores it and answers JSON without the image. An image too large to "
        "answer inline is stored and answered with 303 to its permanent URL.",
        Operation.SCREENSHOT, answers.ScreenshotData, requests.ScreenshotRequest,
        {"url": "https://example.com", "screenshotOptions": {"fullPage": False, "type": "png"}},
        binary_types=IMAGE_TYPES, stores_files=True,
        errors=(*_BROWSER, (400, "INVALID_JSON; URL_NOT_ALLOWED; ELEMENT_NOT_FOUND: "
                                 "screenshotOptions.selector matched nothing")),
    ),
    Endpoint(
        "post", "/v1/web/links", "links", "Every link on the rendered page",
        "Absolute http(s) links of the rendered DOM, de-duplicated, in document order, counted as internal "
        "or external.",
        Operation.LINKS, answers.LinksData, requests.LinksRequest,
        {"url": "https://example.com", "includeExternal": False}, errors=_BROWSER,
    ),
    Endpoint(
        "post", "/v1/web/ai-extract", "aiExtract", "Structured data or text from a page, by an AI model",
        "The page's main content, as Markdown, is given to an OpenAI-compatible model with your prompt; JSON "
        "answers are validated against your JSON Schema.",
        Operation.AI_EXTRACT, answers.AiExtractData, requests.AiExtractRequest,
        {"url": "https://example.com", "prompt": "The page's title and its first paragraph",
         "response_format": {"type": "json_schema", "schema": {
             "type": "object", "properties": {"title": {"type": "string"}, "intro": {"type": "string"}}}}},
        errors=(*_BROWSER,
                (502, "NAVIGATION_FAILED; AI_PROVIDER_ERROR: the provider failed or its output did not "
                      "match the schema"),
                (503, "AI_NOT_CONFIGURED: no model provider configured; SERVICE_UNAVAILABLE"),
                (504, "NAVIGATION_TIMEOUT; AI_PROVIDER_TIMEOUT")),
    ),
    Endpoint(
        "post", "/v1/web/markdown", "markdown", "The page as Markdown",
        "The rendered page's main content (article or product) as Markdown, with navigation, ads, footers "
        "and comments dropped; `onlyMainContent: false` keeps everything visible. Text hidden from the "
        "reader never appears. Cut to fit one response with metadata.truncated and data.warning.",
        Operation.MARKDOWN, answers.MarkdownData, requests.MarkdownRequest,
        {"url": "https://example.com", "onlyMainContent": True}, errors=_BROWSER,
    ),
    Endpoint(
        "post", "/v1/web/content", "content", "The rendered page's HTML",
        "The main frame's DOM after the page's scripts ran, serialised. Cut to fit one response with "
        "metadata.truncated and data.warning.",
        Operation.CONTENT, answers.ContentData, requests.ContentRequest,
        {"url": "https://example.com"}, errors=_BROWSER,
    ),
    Endpoint(
        "post", "/v1/web/pdf", "pdf", "The page as a PDF",
        "Chromium's PDF of the page. Raw application/pdf by default; `base64: true` answers JSON with the "
        "PDF inline and stores it; `Accept: application/json` stores it and answers JSON without it. Too "
        "large to answer inline: stored, and 303 to its permanent URL. pdfOptions.pageRanges entirely past "
        "the printed document's last page are a 422 after printing (refunded).",
        Operation.PDF, answers.PdfData, requests.PdfRequest,
        {"url": "https://example.com", "pdfOptions": {"format": "A4", "printBackground": True}},
        binary_types=("application/pdf",), stores_files=True, errors=_BROWSER),
    Endpoint(
        "post", "/v1/web/map", "map", "A site's URLs",
        "The URLs of a site from robots.txt `Sitemap:` lines, /sitemap.xml (indexes and gzip included) "
        "and the start page's links, canonicalised and de-duplicated: the start URL first, then the "
        "sitemaps' URLs, then the start page's links. Read over HTTP through the egress guard, without a "
        "browser. A sitemap too large, refused or unreadable is skipped or read in part, with data.warning.",
        Operation.MAP, answers.MapData, site_requests.MapRequest,
        {"url": "https://example.com", "limit": 500, "sitemap": "include"},
        errors=((400, "INVALID_JSON; URL_NOT_ALLOWED: the start URL, or where it redirects, is refused "
                      "by the egress policy"),
                (502, "NAVIGATION_FAILED: neither the start page nor any sitemap could be reached"),
                (504, "NAVIGATION_TIMEOUT: resolving the host took the whole time budget"))),
    Endpoint(
        "post", "/v1/files/delete", "deleteFile", "Delete a stored file",
        "The caller's own file only; an unknown id or another user's file answers wasFound false.",
        Operation.FILES_DELETE, answers.FileDeleteData, requests.FileDeleteRequest,
        {"fileId": "0b5a8f0e-4b7c-4d55-9a55-0c4f5e0c1a2b", "deleteFromStorage": True},
    ),
    Endpoint(
        "get", "/v1/api-keys/list", "listApiKeys", "Your API keys",
        "The caller's keys, newest first, never the key or its hash.",
        Operation.API_KEYS_LIST, answers.ApiKeysData,
    ),
)
