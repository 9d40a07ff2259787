"""HTML pages for AI extraction tests: a product page, and one that hides injection attempts.

Every hidden injection carries a marker word (INJECTION_MARKERS) so a test can assert that none of it
reached the model.
"""

from __future__ import annotations

from pathlib import Path

PRODUCT_TITLE = "Trailblazer 2 Hiking Boot"
PRODUCT_PRICE = "$149.99"

PAGES = Path(__file__).parent / "pages"
# The same files the fixture server serves to the browser in the end-to-end tests.
PRODUCT_PAGE = (PAGES / "product.html").read_text(encoding="utf-8")

INJECTION_MARKERS = (
    "INJECTED-DISPLAY-NONE",
    "INJECTED-HIDDEN-ATTR",
    "INJECTED-ARIA-HIDDEN",
    "INJECTED-VISIBILITY",
    "INJECTED-FONT-SIZE",
    "INJECTED-COMMENT",
    "INJECTED-TEMPLATE",
    "INJECTED-NOSCRIPT",
)

# Also hides one injection by a stylesheet class (STYLESHEET_MARKER): only the live browser, which sees
# computed styles, can remove that one, so the Markdown step alone is not expected to.
INJECTION_PAGE = (PAGES / "injection.html").read_text(encoding="utf-8")
STYLESHEET_MARKER = "INJECTED-CSS-CLASS"
