"""A site as a whole (docs/crawl-and-map.md#crawl-and-map): its URLs canonicalised, the scope a map or a crawl
keeps to, robots.txt, sitemaps, and the crawl.

Modules: canonical_urls (one spelling per page), scope (which URLs belong; the path patterns of a crawl are
webcapture.path_globs, which the request models validate with), robots (robots.txt through protego),
bounded_body (byte limits and gzip), sitemaps (bounded, streaming sitemap reading), site_map (POST
/v1/web/map's gathering; a page's links come from webcapture.content.page_links), discovery (a crawled page's
links sorted into next pages and skips), host_pace (per-host concurrency and delay), crawl_store (each URL
once, host slots, in the jobs table), crawl_credits (limit x cost reserved, the unused given back once), and
the crawl on the job engine: crawl_submit (POST /v1/web/crawl), crawl_cancel (DELETE /v1/jobs/{jobId}, a crawl
settled with its credits), crawl_messages (a page per SQS message), crawl_page (one page in the browser),
crawl_extract (the json format), crawl_worker (a page from its message to its result).
"""
