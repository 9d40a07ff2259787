"""Page content as Markdown: the main content (webcapture.content.main_content, browser functions only, as
it needs the BrowserLayer's trafilatura and lxml) or everything visible (visible_markdown)."""
