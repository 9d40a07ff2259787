"""A site as a whole (CONTRACT 18): its URLs canonicalised, the scope a crawl or a map keeps to, robots.txt,
sitemaps, the links of a page read over HTTP, and the pace a crawl keeps per host.

Modules: canonical_urls (one spelling per page), scope (which URLs belong), robots (robots.txt through
protego), sitemaps (bounded, streaming sitemap reading), bounded_body (byte limits and gzip), page_links
(links of an HTML page without the browser), site_map (POST /v1/web/map's gathering), politeness (per-host
concurrency and delay), globs (the path patterns of a crawl).
"""
