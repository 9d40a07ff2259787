"""Page content as Markdown: webcapture.content.markdown.html_to_markdown is the entry point (browser
functions only, as it needs the BrowserLayer's trafilatura and lxml)."""
