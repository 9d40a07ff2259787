"""The fast path (docs/fast-path.md): a page answered from its HTML fetched over HTTP, no browser.

Modules: engines (the `engine` field and the fields only a browser can honour), http_page (the fetch through
the egress guard), decoding (content codings and the charset), render_decision (when `auto` must render),
page_markdown (the one call into the Markdown conversion), page_source (which engine answers a request).
Nothing here imports the browser package at module level: an `http` answer never loads it.
"""
