"""POST /v1/web/pdf (CONTRACT 15): print, answer as bytes, JSON, or a 303 to the stored file.

The three forms are the screenshot's (CONTRACT 7), decided the same way: `base64: true` or an Accept that
prefers JSON stores the PDF; bytes that would not fit inline are stored and answered with a 303.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Literal

from webcapture import egress
from webcapture.answer_warnings import with_warnings
from webcapture.auth.caller import Caller
from webcapture.browser.pdf import CONTENT_TYPE, Pdf, print_pdf
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.metering import metered
from webcapture.models.requests import PdfRequest
from webcapture.operations.take_screenshot import prefers_json
from webcapture.operations.text_answers import well_formed
from webcapture.response_limits import fits_inline_base64
from webcapture.stored_files import PDFS, store_file


@dataclass(frozen=True)
class PdfAnswer:
    form: Literal["binary", "json", "redirect"]
    document: bytes = b""
    data: dict[str, Any] | None = None
    location: str = ""
    warnings: tuple[str, ...] = ()  # the binary form's X-Webcapture-Warning (JSON forms: data.warning)


def _metadata(pdf: Pdf) -> dict[str, Any]:
    return {
        "url": pdf.final_url,
        "timestamp": utc_timestamp(),
        "size": pdf.size,
        "pages": pdf.pages,
        "format": pdf.format,
        "title": well_formed(pdf.title),
        "statusCode": pdf.status_code,
        "requestedUrl": pdf.requested_url,
    }


def _stored_data(caller: Caller, pdf: Pdf) -> dict[str, Any]:
    metadata = _metadata(pdf)
    stored = store_file(user_id=caller.user_id, page_url=pdf.final_url, body=pdf.document, folder=PDFS,
                        extension="pdf", content_type=CONTENT_TYPE, metadata=metadata)
    return with_warnings({"metadata": metadata, "permanentUrl": stored.public_url, "fileId": stored.file_id},
                         pdf.warnings)


def capture_pdf(caller: Caller, request: PdfRequest, accept: str | None) -> PdfAnswer:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.PDF)):
        pdf = print_pdf(request)
        if request.base64:
            data = _stored_data(caller, pdf)
            if fits_inline_base64(pdf.size):
                data = {"pdf": base64.b64encode(pdf.document).decode(), **data}
            else:
                data = with_warnings(
                    data, ["The PDF is too large to return inline; fetch it from permanentUrl."]
                )
            return PdfAnswer("json", data=data)
        if prefers_json(accept, CONTENT_TYPE):
            return PdfAnswer("json", data=_stored_data(caller, pdf))
        if fits_inline_base64(pdf.size):
            return PdfAnswer("binary", document=pdf.document, warnings=pdf.warnings)
        data = _stored_data(caller, pdf)
        return PdfAnswer("redirect", data=data, location=data["permanentUrl"])
