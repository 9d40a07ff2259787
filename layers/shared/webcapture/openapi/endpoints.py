"""Every route of the API, as the OpenAPI document describes it: method, path, models, forms, errors.

The request and answer models are the ones the functions validate and answer with, so the document cannot
drift from the code; tests/e2e/test_e2e_openapi.py checks that this table and template.yaml name the same
routes.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from webcapture.credits import Operation
from webcapture.models import profiles, requests, site_requests
from webcapture.openapi import answer_models, job_models, mcp_models, monitor_models

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
    400: "INVALID_JSON; URL_NOT_ALLOWED: the target, or where it redirects, is refused by the egress policy; "
         "ACTION_FAILED: a step of `actions` failed (the message names its index and selector)",
    502: "NAVIGATION_FAILED: the page could not be loaded (DNS, refused, TLS, crashed tab); TARGET_BLOCKED: "
         "the final page is a bot wall (allowBlocked answers it as it is); TARGET_HTTP_ERROR: the target's "
         "status is one failOnStatus lists",
    504: "NAVIGATION_TIMEOUT: the page (or waitForSelector) did not finish within the time budget",
    404: "NOT_FOUND: `profile.id` is not a profile of yours (or it was deleted); nothing charged",
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
    status: int = 200  # the success status
    credits: str | None = None  # what it costs when that is not the operation's fixed price
    parameters: tuple[dict[str, object], ...] = ()
    public: bool = False  # served without the bearer token (a signed link carries its own proof)
    # False: the answer is `data` itself, not in the success envelope, and so are the `errors` listed here
    # (POST /v1/mcp speaks JSON-RPC); the gateway's and the authorizer's errors keep the envelope.
    envelope: bool = True

    def error_statuses(self) -> dict[int, str]:
        found = dict(_COMMON_ERRORS)
        if self.request is not None:
            found.update(_BODY_ERRORS)
        for status, text in self.errors:
            found[status] = text
        return dict(sorted(found.items()))


_BROWSER = tuple(_BROWSER_ERRORS.items())
_PROFILE_ID: tuple[dict[str, object], ...] = (
    {"name": "profileId", "in": "path", "required": True, "schema": {"type": "string"}},)
_PROFILE_404 = ((404, "NOT_FOUND: no such profile of yours (another user's and a deleted one alike)"),)
_MONITOR_ID: tuple[dict[str, object], ...] = (
    {"name": "monitorId", "in": "path", "required": True, "schema": {"type": "string"}},)
_MONITOR_404 = (404, "NOT_FOUND: no such monitor of yours (another user's and a deleted one alike)")
_MONITOR_400 = (400, "INVALID_JSON; URL_NOT_ALLOWED: the URL or the webhook URL is refused by the egress "
                     "policy")
_MONITOR_EXAMPLE: dict[str, object] = {
    "url": "https://example.com/pricing", "operation": "markdown", "schedule": "rate(1 hour)",
    "webhook": {"url": "https://hooks.example.com/webcapture"}}


def _web(
    operation: Operation,
    summary: str,
    description: str,
    data: type[BaseModel],
    request: type[BaseModel],
    example: dict[str, object],
    *,
    binary_types: tuple[str, ...] = (),
    stores_files: bool = False,
    errors: tuple[tuple[int, str], ...] = _BROWSER,
) -> Endpoint:
    """An operation on a target URL: POST /v1/web/<operation>, named for it (ai-extract: aiExtract), with
    the browser's errors unless it says its own."""
    first, *rest = operation.value.split("-")
    operation_id = first + "".join(word.capitalize() for word in rest)
    return Endpoint(
        "post", f"/v1/web/{operation.value}", operation_id, summary, description, operation, data, request,
        example, binary_types=binary_types, stores_files=stores_files, errors=errors,
    )


ENDPOINTS: tuple[Endpoint, ...] = (
    _web(
        Operation.SCREENSHOT, "Screenshot a page",
        "A png, jpeg or webp of the rendered page. Raw bytes by default; `base64: true` (or "
        "`screenshotOptions.encoding: base64`) answers JSON with the image inline and stores it; "
        "`Accept: application/json` stores it and answers JSON without the image. An image too large to "
        "answer inline is stored and answered with 303 to its permanent URL.",
        answer_models.ScreenshotData, requests.ScreenshotRequest,
        {"url": "https://example.com", "screenshotOptions": {"fullPage": False, "type": "png"}},
        binary_types=IMAGE_TYPES, stores_files=True,
        errors=(*_BROWSER, (400, "INVALID_JSON; URL_NOT_ALLOWED; ACTION_FAILED; ELEMENT_NOT_FOUND: "
                                 "screenshotOptions.selector matched nothing")),
    ),
    _web(
        Operation.LINKS, "Every link on the rendered page",
        "Absolute http(s) links of the rendered DOM, de-duplicated, in document order, counted as internal "
        "or external.",
        answer_models.LinksData, requests.LinksRequest,
        {"url": "https://example.com", "includeExternal": False},
    ),
    _web(
        Operation.AI_EXTRACT, "Structured data or text from a page, by an AI model",
        "The page's main content, as Markdown, is given to an OpenAI-compatible model with your prompt; JSON "
        "answers are validated against your JSON Schema.",
        answer_models.AiExtractData, requests.AiExtractRequest,
        {"url": "https://example.com", "prompt": "The page's title and its first paragraph",
         "response_format": {"type": "json_schema", "schema": {
             "type": "object", "properties": {"title": {"type": "string"}, "intro": {"type": "string"}}}}},
        errors=(*_BROWSER,
                (502, "NAVIGATION_FAILED; TARGET_BLOCKED; TARGET_HTTP_ERROR; AI_PROVIDER_ERROR: the "
                      "provider failed or its output did not match the schema"),
                (503, "AI_NOT_CONFIGURED: no model provider configured; SERVICE_UNAVAILABLE"),
                (504, "NAVIGATION_TIMEOUT; AI_PROVIDER_TIMEOUT")),
    ),
    _web(
        Operation.MARKDOWN, "The page as Markdown",
        "The rendered page's main content (article or product) as Markdown, with navigation, ads, footers "
        "and comments dropped; `onlyMainContent: false` keeps everything visible. Text hidden from the "
        "reader never appears. Cut to fit one response with metadata.truncated and data.warning.",
        answer_models.MarkdownData, requests.MarkdownRequest,
        {"url": "https://example.com", "onlyMainContent": True},
    ),
    _web(
        Operation.CONTENT, "The rendered page's HTML",
        "The main frame's DOM after the page's scripts ran, serialised. Cut to fit one response with "
        "metadata.truncated and data.warning.",
        answer_models.ContentData, requests.ContentRequest, {"url": "https://example.com"},
    ),
    _web(
        Operation.PDF, "The page as a PDF",
        "Chromium's PDF of the page. Raw application/pdf by default; `base64: true` answers JSON with the "
        "PDF inline and stores it; `Accept: application/json` stores it and answers JSON without it. Too "
        "large to answer inline: stored, and 303 to its permanent URL. pdfOptions.pageRanges entirely past "
        "the printed document's last page are a 422 after printing (refunded).",
        answer_models.PdfData, requests.PdfRequest,
        {"url": "https://example.com", "pdfOptions": {"format": "A4", "printBackground": True}},
        binary_types=("application/pdf",), stores_files=True,
    ),
    _web(
        Operation.MAP, "A site's URLs",
        "The URLs of a site from robots.txt `Sitemap:` lines, /sitemap.xml (indexes and gzip included) "
        "and the start page's links, canonicalised and de-duplicated: the start URL first, then the "
        "sitemaps' URLs, then the start page's links. Read over HTTP through the egress guard, without a "
        "browser. A sitemap too large, refused or unreadable is skipped or read in part, with data.warning.",
        answer_models.MapData, site_requests.MapRequest,
        {"url": "https://example.com", "limit": 500, "sitemap": "include"},
        errors=((400, "INVALID_JSON; URL_NOT_ALLOWED: the start URL, or where it redirects, is refused "
                      "by the egress policy"),
                (502, "NAVIGATION_FAILED: neither the start page nor any sitemap could be reached"),
                (504, "NAVIGATION_TIMEOUT: resolving the host took the whole time budget")),
    ),
    Endpoint(
        "post", "/v1/web/crawl", "crawl", "A whole site, as an asynchronous job",
        "Crawls from the start page (202, then GET statusUrl): each canonical URL once, within `limit`, "
        "`maxDepth` link hops, the path globs, the site's robots.txt and each host's pace, every page in "
        "the browser with the page-control fields. `limit x cost` (1 a page, 6 with json) is reserved now "
        "and what was not used comes back when the crawl ends; a page that fails or is cancelled is "
        "refunded. Results page by page through GET /v1/jobs/{jobId}; a redirect off the crawl is a result "
        "with error SKIPPED, a link the egress policy refuses one with URL_NOT_ALLOWED. An "
        "`Idempotency-Key` header makes a retried submit answer the same crawl, uncharged.",
        Operation.API_KEYS_LIST, job_models.CrawlAcceptedData, site_requests.CrawlRequest,
        {"url": "https://example.com", "limit": 200, "maxDepth": 3, "excludePaths": ["/blog/**"],
         "formats": ["markdown", "links"]},
        status=202, credits="limit x (1, or 6 with json), reserved; the unused given back at the end",
        parameters=({"name": "Idempotency-Key", "in": "header", "required": False,
                     "schema": {"type": "string", "minLength": 1, "maxLength": 255}},),
        errors=((400, "INVALID_JSON; URL_NOT_ALLOWED: the start URL or the webhook URL is refused by the "
                      "egress policy (nothing reserved)"),
                (404, "NOT_FOUND: `profile.id` is not a profile of yours (nothing reserved)"),
                (409, "IDEMPOTENCY_CONFLICT: the Idempotency-Key was used with another body"),
                (429, "USAGE_EXCEEDED: not enough credits for limit x cost; TOO_MANY_REQUESTS"),
                (503, "AI_NOT_CONFIGURED: json asked for and no AI model is configured"))),
    Endpoint(
        "post", "/v1/files/delete", "deleteFile", "Delete a stored file",
        "The caller's own file only; an unknown id or another user's file answers wasFound false.",
        Operation.FILES_DELETE, answer_models.FileDeleteData, requests.FileDeleteRequest,
        {"fileId": "0b5a8f0e-4b7c-4d55-9a55-0c4f5e0c1a2b", "deleteFromStorage": True},
    ),
    Endpoint(
        "get", "/v1/api-keys/list", "listApiKeys", "Your API keys",
        "The caller's keys, newest first, never the key or its hash.",
        Operation.API_KEYS_LIST, answer_models.ApiKeysData,
    ),
    Endpoint(
        "post", "/v1/batch", "submitBatch", "Many requests of one operation, as one asynchronous job",
        "Up to 1,000 request bodies of one operation, run on a queue (202, then GET statusUrl). The whole "
        "batch's cost is reserved now; each item that fails or is cancelled is refunded. An "
        "`Idempotency-Key` header (1..255 characters) makes a retried submit answer the same job, uncharged.",
        Operation.API_KEYS_LIST, job_models.BatchAcceptedData, job_models.BatchRequest,
        {"operation": "screenshot", "requests": [{"url": "https://example.com"}],
         "webhook": {"url": "https://hooks.example.com/webcapture", "metadata": {"run": 1}}},
        status=202, credits="the sum of the items' credits (0 for a repeated Idempotency-Key)",
        parameters=({"name": "Idempotency-Key", "in": "header", "required": False,
                     "schema": {"type": "string", "minLength": 1, "maxLength": 255}},),
        errors=((400, "INVALID_JSON; URL_NOT_ALLOWED: the webhook URL is refused by the egress policy"),
                (404, "NOT_FOUND: an item's `profile.id` is not a profile of yours (nothing reserved)"),
                (409, "IDEMPOTENCY_CONFLICT: the Idempotency-Key was used with another body"),
                (413, "PAYLOAD_TOO_LARGE: request body over 1 MB"),
                (429, "USAGE_EXCEEDED: not enough credits for the whole batch; TOO_MANY_REQUESTS"))),
    Endpoint(
        "get", "/v1/jobs/{jobId}", "getJob", "A job's status and results",
        "Results in index order, `limit` (1..100, default 50) at a time; `next` is the cursor of the next "
        "page. Another user's job is a 404, as an unknown one.",
        Operation.API_KEYS_LIST, job_models.JobData,
        parameters=({"name": "jobId", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "limit", "in": "query", "required": False,
                     "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                    {"name": "cursor", "in": "query", "required": False, "schema": {"type": "string"}}),
        errors=((404, "NOT_FOUND: no such job of yours"),
                (422, "limit out of range, or a cursor not made for this job"))),
    Endpoint(
        "delete", "/v1/jobs/{jobId}", "cancelJob", "Cancel a job",
        "Items not started never run and are refunded; running ones finish. Answers the job.",
        Operation.API_KEYS_LIST, job_models.JobData,
        parameters=({"name": "jobId", "in": "path", "required": True, "schema": {"type": "string"}},),
        errors=((404, "NOT_FOUND: no such job of yours"),)),
    Endpoint(
        "get", "/v1/webhooks/secret", "getWebhookSecret", "Your webhook signing secret",
        "Made on first use; webhooks are signed with it (Standard Webhooks: webhook-id, webhook-timestamp, "
        "webhook-signature).", Operation.API_KEYS_LIST, job_models.WebhookSecretData),
    Endpoint(
        "post", "/v1/webhooks/secret/rotate", "rotateWebhookSecret", "A new webhook signing secret",
        "Replaces the secret at once: later deliveries are signed with the new one.",
        Operation.API_KEYS_LIST, job_models.WebhookSecretData),
    Endpoint(
        "get", "/v1/render/screenshot", "signedScreenshot", "A screenshot from a signed link",
        "No Authorization header: the query carries the request (screenshot fields as parameters, nested "
        "ones dotted: `screenshotOptions.type=jpeg`), `user`, optional `expires` (unix seconds) and "
        "`signature`, the hex HMAC-SHA256 of the other parameters sorted and percent-encoded (RFC 3986), "
        "keyed with the user's signing secret. Answers the image bytes with "
        "`Cache-Control: public, max-age=<maxAge>` (maxAge 86400 unless given); charged to the key that "
        "fetched the secret, nothing on a cache hit.",
        Operation.SCREENSHOT, answer_models.ScreenshotData, binary_types=IMAGE_TYPES, stores_files=True,
        public=True,
        errors=(*_BROWSER, (403, "INVALID_SIGNATURE: a missing, wrong or expired signature, a changed "
                                 "parameter, an unknown user or a rotated secret"),
                (422, "A parameter fails the screenshot request's validation (Zod's issues)")),
    ),
    Endpoint(
        "post", "/v1/mcp", "mcp", "The MCP server (Streamable HTTP) for AI agents",
        "The Model Context Protocol over Streamable HTTP, stateless: each POST is one JSON-RPC message "
        "(initialize, tools/list, tools/call, ...) answered with JSON (`Accept: application/json`), a "
        "notification with 202. The tools and their input schemas are `webcapture mcp`'s (docs/mcp.md); a "
        "tool call spends the caller's key as the endpoint it calls would, and answers within 29 s (a "
        "crawl or batch that runs longer is answered with its jobId, for job_status).",
        Operation.API_KEYS_LIST, mcp_models.McpMessage, mcp_models.McpMessage,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        credits="each tool call costs what its endpoint costs (markdown 1, extract 5, ...)",
        envelope=False,
        errors=((400, "A JSON-RPC parse or validation error (an `error` object)"),
                (406, "Accept does not include application/json"),
                (415, "Content-Type is not application/json"))),
    Endpoint(
        "post", "/v1/profiles", "createProfile", "A new profile",
        "A profile keeps a logged-in session (cookies, localStorage) for later requests' `profile`. Free. "
        "At most 100 a user.", Operation.API_KEYS_LIST, answer_models.ProfileData, profiles.ProfileCreate,
        {"name": "work"}, status=201, errors=((409, "LIMIT_REACHED: you have 100 profiles already"),)),
    Endpoint(
        "get", "/v1/profiles", "listProfiles", "Your profiles", "Their metadata, oldest first; never their "
        "state.", Operation.API_KEYS_LIST, answer_models.ProfilesData),
    Endpoint(
        "get", "/v1/profiles/{profileId}", "getProfile", "A profile's metadata",
        "Never its state: there is no way to read a state back.", Operation.API_KEYS_LIST,
        answer_models.ProfileData, parameters=_PROFILE_ID, errors=_PROFILE_404),
    Endpoint(
        "patch", "/v1/profiles/{profileId}", "renameProfile", "Rename a profile", "Only its name.",
        Operation.API_KEYS_LIST, answer_models.ProfileData, profiles.ProfileRename, {"name": "work (new)"},
        parameters=_PROFILE_ID, errors=_PROFILE_404),
    Endpoint(
        "delete", "/v1/profiles/{profileId}", "deleteProfile", "Delete a profile",
        "The profile and its state, at once; requests naming it answer 404 from then on.",
        Operation.API_KEYS_LIST, answer_models.ProfileDeletedData, parameters=_PROFILE_ID,
        errors=_PROFILE_404),
    Endpoint(
        "put", "/v1/profiles/{profileId}/state", "importProfileState", "Import a login made elsewhere",
        "A Playwright storage state (`context.storage_state()`: cookies, and localStorage by origin), at "
        "most 1 MB, replaces the profile's; its version goes up by one. Cookies and origins of hosts the "
        "egress policy refuses are dropped (the answer's warning counts them).",
        Operation.API_KEYS_LIST, answer_models.ProfileData, profiles.StorageState,
        {"cookies": [{"name": "session", "value": "...", "domain": "app.example.com", "path": "/",
                      "expires": -1, "httpOnly": True, "secure": True, "sameSite": "Lax"}],
         "origins": [{"origin": "https://app.example.com",
                      "localStorage": [{"name": "token", "value": "..."}]}]},
        parameters=_PROFILE_ID, errors=(*_PROFILE_404, (413, "PAYLOAD_TOO_LARGE: a state over 1 MB"))),
    Endpoint(
        "post", "/v1/monitors", "createMonitor", "Watch a page on a schedule",
        "One EventBridge schedule per monitor runs a check of the page (the operation with `request`) and "
        "compares it with the last one. The routes are free; each check costs its operation's credits. At "
        "most 100 a user.", Operation.API_KEYS_LIST, monitor_models.MonitorData, monitor_models.MonitorCreate,
        _MONITOR_EXAMPLE, status=201,
        errors=(_MONITOR_400, (404, "NOT_FOUND: `request.profile.id` is not a profile of yours"),
                (409, "LIMIT_REACHED: you have 100 monitors already"))),
    Endpoint(
        "get", "/v1/monitors", "listMonitors", "Your monitors", "Oldest first, each with its next run.",
        Operation.API_KEYS_LIST, monitor_models.MonitorsData),
    Endpoint(
        "get", "/v1/monitors/{monitorId}", "getMonitor", "A monitor", "Its settings and its next run.",
        Operation.API_KEYS_LIST, monitor_models.MonitorData, parameters=_MONITOR_ID, errors=(_MONITOR_404,)),
    Endpoint(
        "patch", "/v1/monitors/{monitorId}", "updateMonitor", "Change a monitor",
        "Any field but `url` and `operation`; `enabled: false` pauses its schedule. A changed schedule "
        "starts afresh.", Operation.API_KEYS_LIST, monitor_models.MonitorData, monitor_models.MonitorUpdate,
        {"schedule": "cron(0 9 ? * MON-FRI *)", "timezone": "Europe/Berlin"}, parameters=_MONITOR_ID,
        errors=(_MONITOR_400, _MONITOR_404)),
    Endpoint(
        "delete", "/v1/monitors/{monitorId}", "deleteMonitor", "Delete a monitor",
        "The monitor and its schedule, at once.", Operation.API_KEYS_LIST, monitor_models.MonitorDeletedData,
        parameters=_MONITOR_ID, errors=(_MONITOR_404,)),
    Endpoint(
        "post", "/v1/monitors/{monitorId}/run", "runMonitor", "Check a monitor now",
        "Queues a check at once, enabled or not (202); it runs, costs and is compared as a scheduled one.",
        Operation.API_KEYS_LIST, monitor_models.MonitorRunData, parameters=_MONITOR_ID, status=202,
        errors=(_MONITOR_404,)),
    Endpoint(
        "get", "/v1/monitors/{monitorId}/checks", "listMonitorChecks", "A monitor's checks",
        "Newest first, `limit` (1..100, default 50) at a time; `next` is the cursor of the next page. Kept "
        "30 days.", Operation.API_KEYS_LIST, monitor_models.MonitorChecksData,
        parameters=(*_MONITOR_ID,
                    {"name": "limit", "in": "query", "required": False,
                     "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                    {"name": "cursor", "in": "query", "required": False, "schema": {"type": "string"}}),
        errors=(_MONITOR_404, (422, "limit out of range, or a cursor not made for this monitor's checks"))),
    Endpoint(
        "get", "/v1/signing/secret", "signingSecret", "Your signing secret",
        "The secret that signs your links to GET /v1/render/screenshot, made on first use. Signed links are "
        "charged to the API key that fetched (or rotated) it.",
        Operation.SIGNING_SECRET, answer_models.SigningSecretData,
    ),
    Endpoint(
        "post", "/v1/signing/secret/rotate", "rotateSigningSecret", "A new signing secret",
        "Replaces your signing secret: every link signed with the old one answers 403 INVALID_SIGNATURE.",
        Operation.SIGNING_SECRET, answer_models.SigningSecretData,
    ),
)
