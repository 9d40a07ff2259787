"""Page content: as Markdown (webcapture.content.markdown.html_to_markdown, browser functions only, as it
needs the BrowserLayer's trafilatura and lxml), and the links of an HTML page without the browser
(webcapture.content.page_links, standard library only, shared by the fast path and the crawl)."""
