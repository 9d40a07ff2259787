"""The answer shape of every endpoint (docs/api.md#envelopes, docs/api.md#screenshot, docs/api.md#links,
docs/api.md#ai-extract, docs/api.md#files-delete, docs/api.md#api-keys-list, docs/api.md#stored-files,
docs/api.md#more-outputs): the models the OpenAPI document is made from.

They describe what the operations build as plain dicts; the end-to-end schemathesis run checks each real
answer against them (`response_schema_conformance`), so a drift on either side fails `make test`. Optional
fields are the ones an answer may leave out; extra fields are allowed, as the contract welcomes them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow")


Warning = Field(None, description="Set when the answer is partial or the page was used as it was (cut, waits "
                                  "that ran out): what happened, in one sentence.")


class _PageMetadata(_Answer):
    """Where the answer's page was, and when: the first fields of most operations' metadata."""

    url: str
    timestamp: str


class ScreenshotMetadata(_Answer):
    width: int = Field(description="Width of the produced image, in pixels")
    height: int = Field(description="Height of the produced image, in pixels")
    format: Literal["png", "jpeg", "webp"]
    size: int = Field(description="Image size in bytes")
    url: str = Field(description="The page's final URL after redirects")
    timestamp: str
    statusCode: int | None = Field(None, description="HTTP status of the captured document")
    requestedUrl: str | None = None


class ScreenshotData(_Answer):
    image: str | None = Field(None, description="The image, base64 (only with base64 / encoding: base64)")
    metadata: ScreenshotMetadata
    permanentUrl: str = Field(description="Where the stored image is served")
    fileId: str = Field(description="Id for /v1/files/delete")
    warning: str | None = Warning


class Link(_Answer):
    url: str
    text: str


class LinksMetadata(_PageMetadata):
    totalLinks: int
    internalLinks: int
    externalLinks: int
    linksOnPage: int | None = None
    truncated: bool | None = None
    statusCode: int | None = None
    requestedUrl: str | None = None


class LinksData(_Answer):
    links: list[Link]
    metadata: LinksMetadata
    warning: str | None = Warning


class AiExtractMetadata(_PageMetadata):
    model: str
    fieldsExtracted: int
    inputTokens: int | None = None
    outputTokens: int | None = None
    statusCode: int | None = Field(None, description="HTTP status of the page the model read")


class AiExtractData(_Answer):
    extracted: dict[str, Any] | None = Field(None, description="responseType json: the extracted object")
    text: str | None = Field(None, description="responseType text: the answer")
    metadata: AiExtractMetadata
    warning: str | None = Warning


class TextMetadata(_Answer):
    url: str
    title: str
    statusCode: int | None
    timestamp: str
    truncated: bool = Field(description="True when the text was cut to fit one response")
    requestedUrl: str | None = None


class MarkdownData(_Answer):
    markdown: str
    metadata: TextMetadata
    warning: str | None = Warning


class ContentData(_Answer):
    html: str = Field(description="The main frame's DOM after its scripts ran, serialised")
    metadata: TextMetadata
    warning: str | None = Warning


class PdfMetadata(_PageMetadata):
    size: int = Field(description="PDF size in bytes")
    pages: int
    format: Literal["A3", "A4", "A5", "Legal", "Letter", "Tabloid"]
    title: str | None = None
    statusCode: int | None = None
    requestedUrl: str | None = None


class PdfData(_Answer):
    pdf: str | None = Field(None, description="The PDF, base64 (only with base64: true)")
    metadata: PdfMetadata
    permanentUrl: str
    fileId: str
    warning: str | None = Warning


class SiteLink(_Answer):
    url: str = Field(description="Canonical URL: scheme and host lower-cased, default port and fragment "
                                 "dropped, query parameters sorted (or dropped)")
    title: str | None = Field(None, description="The start page's title, or the text of its link")


class MapData(_Answer):
    links: list[SiteLink]
    total: int = Field(description="len(links)")
    warning: str | None = Warning


class DeletedFile(_Answer):
    id: str
    url: str
    filename: str
    storage_key: str
    public_url: str
    metadata: str = Field(description="The file's metadata as a JSON string")
    created_at: str
    expires_at: str


class FileDeleteData(_Answer):
    fileId: str
    wasFound: bool
    deletedFromDatabase: bool
    deletedFromStorage: bool
    deletedFile: DeletedFile | None = None
    error: str | None = None


class ApiKey(_Answer):
    id: str
    name: str
    start: str
    prefix: str
    userId: str
    enabled: bool
    requestCount: int
    remaining: int | None = Field(description="Remaining credits; null means unlimited")
    lastRequest: str | None
    expiresAt: str | None
    createdAt: str
    updatedAt: str
    metadata: dict[str, Any]


class ApiKeysData(_Answer):
    apiKeys: list[ApiKey]
    total: int


class SigningSecretData(_Answer):
    secret: str = Field(description="Keys the HMAC-SHA256 of your signed links; keep it private")
    userId: str = Field(description="The `user` parameter of your signed links")


class ProfileData(_Answer):
    """A profile's metadata; its state (cookies, localStorage) is never answered."""

    profileId: str
    name: str
    version: int = Field(description="Goes up by one with each save or import of its state")
    origins: list[str] = Field(description="The sites its state holds something for (cookie domains, "
                                           "localStorage origins), never their values")
    size: int = Field(description="Size of its state in bytes (0: none yet)")
    createdAt: str
    updatedAt: str
    warning: str | None = Warning


class ProfilesData(_Answer):
    profiles: list[ProfileData]
    total: int


class ProfileDeletedData(_Answer):
    profileId: str
    deleted: Literal[True]


class ErrorDetail(_Answer):
    code: str = Field(description="Machine-readable error code, e.g. URL_NOT_ALLOWED")
    message: str
    requestId: str | None = Field(None, description="Present on every error the functions answer")


class ErrorEnvelope(_Answer):
    success: Literal[False]
    error: ErrorDetail


class ValidationIssue(_Answer):
    code: str = Field(description="Zod's issue code: invalid_type, too_small, too_big, invalid_enum_value, "
                                  "invalid_string, custom")
    path: list[str | int]
    message: str


class ValidationErrorDetail(_Answer):
    name: Literal["ZodError"] = Field(description="Kept for clients written for Zod-based services")
    code: Literal["VALIDATION_ERROR"]
    message: str = Field(description="One line: the first issue's path and what is wrong, e.g. \"url: an "
                                     "absolute http(s) URL is needed; did you mean https://example.com?\"")
    requestId: str
    issues: list[ValidationIssue] = Field(description="Every issue of the request")


class ValidationErrorEnvelope(_Answer):
    success: Literal[False]
    error: ValidationErrorDetail
