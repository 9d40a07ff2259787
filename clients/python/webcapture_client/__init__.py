"""webcapture's client: the `webcapture` CLI, the Python SDK (`Client`, and `AsyncClient` for asyncio) and the
MCP server, over the API's HTTP with the standard library only."""

__version__ = "1.0.0"

from webcapture_client.async_sdk import AsyncClient, AsyncJob
from webcapture_client.errors import (
    AiError,
    ApiConnectionError,
    AuthenticationError,
    InvalidRequestError,
    NotFoundError,
    PageError,
    RateLimitError,
    ServerError,
    ValidationError,
    WebcaptureError,
)
from webcapture_client.sdk import Client, Job

__all__ = ["AiError", "ApiConnectionError", "AsyncClient", "AsyncJob", "AuthenticationError", "Client",
           "InvalidRequestError", "Job", "NotFoundError", "PageError", "RateLimitError", "ServerError",
           "ValidationError", "WebcaptureError", "__version__"]
