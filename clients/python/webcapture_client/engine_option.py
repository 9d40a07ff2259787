"""`--engine browser|http|auto`: which engine answers a page (docs/fast-path.md#engines). One flag, one
meaning, on every command whose endpoint takes `engine`: markdown, content, links, extract, batch items and
crawl."""

from __future__ import annotations

import argparse

ENGINES = ("browser", "http", "auto")
# The operations whose request body has `engine`; screenshot and pdf always render.
ENGINE_OPERATIONS = ("links", "ai-extract", "markdown", "content")


def add_engine_option(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument(
        "--engine", choices=ENGINES,
        help=f"browser renders in Chromium; http fetches the served HTML, no browser (much faster; "
             f"browser-only flags are refused); auto fetches and renders only pages that need it "
             f"(the service's default here: {default})")
