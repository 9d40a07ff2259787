"""Map of pages whose menu a script builds (site.script_menus): the pages the menu's data lists are mapped,
each menu's scripts read once, only from the page's own origin, and only page addresses taken from them."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support.fast_pages import FastPageServer
from webcapture.settings import get_settings
from webcapture.site.script_menus import page_literals
from webcapture.site.site_map import MapOptions, map_site

MENU_DATA = b"""var menudata={children:[
{text:"Main Page",url:"index.html"},
{text:"Classes",url:"annotated.html",children:[{text:"Class Index",url:"classes.html#letter_a"}]},
{text:"Files",url:"files.html"}]}"""
LIBRARY = b"""jQuery.ajaxSettings = {accepts: {html: "text/html"}, url: location.href}; var x = 'a b.html';"""
ARTICLE = "<p>" + "The article is in the HTML; the menu is not. " * 20 + "</p>"


def _page(title: str, links: str = "") -> bytes:
    return (f"<html><head><title>{title}</title><script src='jquery.js'></script>"
            "<script src='menudata.js'></script><script src='menu.js'></script>"
            "<script src='http://127.0.0.9/tracker.js'></script></head><body>"
            f"<div id='main-nav'></div><h1>{title}</h1>{ARTICLE}{links}</body></html>").encode()


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch) -> Iterator[FastPageServer]:
    monkeypatch.setenv("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.2/32")
    get_settings.cache_clear()
    server = FastPageServer("127.0.0.2")
    server.pages = {
        "/api/index.html": (_page("Main Page"), "text/html", ""),
        "/api/annotated.html": (_page("Class List", "<a href='class_a.html'>A</a>"), "text/html", ""),
        "/api/classes.html": (_page("Class Index"), "text/html", ""),
        "/api/files.html": (_page("File List"), "text/html", ""),
        "/api/class_a.html": (_page("A Class Reference"), "text/html", ""),
        "/api/menudata.js": (MENU_DATA, "application/javascript", ""),
        "/api/menu.js": (b"function initMenu(relPath) { /* builds #main-nav from menudata */ }",
                         "application/javascript", ""),
        "/api/jquery.js": (LIBRARY, "application/javascript", ""),
    }
    yield server
    server.stop()
    get_settings.cache_clear()


def test_map_lists_the_pages_a_menu_script_holds_and_reads_each_script_once(site: FastPageServer) -> None:
    origin = f"http://127.0.0.2:{site.port}"
    result = map_site(f"{origin}/api/index.html", MapOptions(limit=100, sitemap="skip"), time.monotonic() + 30)
    found = {link["url"].removeprefix(origin) for link in result.links}
    assert found == {"/api/index.html", "/api/annotated.html", "/api/classes.html", "/api/files.html",
                     "/api/class_a.html"}
    scripts = [path for path, _ in site.requests if path.endswith(".js")]
    assert sorted(scripts) == ["/api/jquery.js", "/api/menu.js", "/api/menudata.js"]  # once, from its origin
    assert result.sources == {"sitemaps": 0, "links": 5}


def test_only_relative_page_addresses_are_taken_from_a_script() -> None:
    source = ('a = "index.html"; b = \'../guide/intro.htm#setup\'; c = "/abs/page.html"; d = "text/html"; '
              'e = "https://elsewhere.example/x.html"; f = "a page.html"; g = "style.css"; h = "index.html"')
    assert page_literals(source, "http://docs.example/api/html/menu.html") == [
        "http://docs.example/api/html/index.html", "http://docs.example/api/guide/intro.htm#setup",
        "http://docs.example/abs/page.html"]
