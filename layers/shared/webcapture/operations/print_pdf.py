"""POST /v1/web/pdf (CONTRACT 15): print, answer as bytes, JSON, or a 303 to the stored file.

The three forms are the screenshot's (CONTRACT 7), decided by the same code: webcapture.answer_forms.
"""

from __future__ import annotations

from typing import Any

from webcapture import egress
from webcapture.answer_forms import FileAnswer, MadeFile, answer_with_file, stored_data
from webcapture.auth.caller import Caller
from webcapture.browser.pdf import CONTENT_TYPE, Pdf, print_pdf
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.metering import metered
from webcapture.models.requests import PdfRequest
from webcapture.stored_files import PDFS, store_file
from webcapture.unicode_text import well_formed


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
    return stored_data(stored, metadata, pdf.warnings)


def capture_pdf(caller: Caller, request: PdfRequest, accept: str | None) -> FileAnswer:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.PDF)):
        pdf = print_pdf(request)
        return answer_with_file(MadeFile(pdf.document, CONTENT_TYPE, "pdf", pdf.warnings, pdf.status_code),
                                wants_base64=request.base64, accept=accept, binary_type=CONTENT_TYPE,
                                store=lambda: _stored_data(caller, pdf))


def stored_pdf_request(request: PdfRequest) -> PdfRequest:
    """A job's PDF as the synchronous request it answers as: stored, no bytes inline (its answer to
    `Accept: application/json`, whose cache entry it shares)."""
    return request.model_copy(update={"base64": False})


def pdf_job_item(caller: Caller, request: PdfRequest) -> dict[str, Any]:
    """A job's PDF (CONTRACT 17): always stored, answered as the JSON form (no bytes in a job)."""
    return capture_pdf(caller, stored_pdf_request(request), "application/json").data or {}
