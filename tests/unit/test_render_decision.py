"""When `engine: auto` renders (webcapture.fastpath.render_decision), measured on real documentation sites
(Debian's packages: none of their pages but the script-built search page needs a browser) and on
script-built pages (every one does)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webcapture.fastpath.decoding import decode_html
from webcapture.fastpath.render_decision import render_reason, script_built_navigation

ARTICLE_TEXT = "<p>" + "Served whole: every word a reader sees is in the HTML the server sends. " * 30 + "</p>"
BUNDLE = "<script src='/static/app.3f9a.js'></script>"

SCRIPT_BUILT = {
    "react root": f"<html><head><title>App</title></head><body><div id='root'></div>{BUNDLE}</body></html>",
    "vue app": f"<html><body><div id=app><span>Loading…</span></div>{BUNDLE}</body></html>",
    "next shell": ("<html><body><div id=\"__next\"><div class='spinner'></div></div>"
                   "<script id='__NEXT_DATA__' type='application/json'>{\"props\":{}}</script>"
                   f"{BUNDLE}</body></html>"),
    "noscript": ("<html><body><noscript>You need to enable JavaScript to run this app.</noscript>"
                 f"<div id='main'></div>{BUNDLE}</body></html>"),
    "empty body": f"<html><head>{BUNDLE}</head><body></body></html>",
    "inline builder": ("<html><body><main></main><script>document.querySelector('main').innerHTML = "
                       + repr("<p>" + "built by a script " * 200 + "</p>") + ";</script></body></html>"),
    "meta refresh": "<html><head><meta http-equiv='refresh' content='0; url=/next'></head><body>Moved</body></html>",
    "script redirect": "<html><body><script>window.location.href = '/next';</script>Redirecting…</body></html>",
    "cloudflare": ("<html><head><title>Just a moment...</title></head><body>"
                   "<script src='/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1'></script>"
                   "<div id='challenge-running'>Checking your browser</div></body></html>"),
}

STATIC = {
    "article": f"<html><head><title>A</title></head><body><main>{ARTICLE_TEXT}</main></body></html>",
    "server-rendered next": f"<html><body><div id='__next'><article>{ARTICLE_TEXT}</article></div>"
                            f"{BUNDLE}</body></html>",
    "comments noscript": (f"<html><body><article>{ARTICLE_TEXT}{ARTICLE_TEXT}</article><noscript>Please enable "
                          "JavaScript to view the comments.</noscript></body></html>"),
    "analytics": (f"<html><body>{ARTICLE_TEXT}<script>if (a) {{ location.href = '/x'; }}"
                  "</script></body></html>"),
    "short text, no script": "<html><body><p>Hello.</p></body></html>",
}


@pytest.mark.parametrize("name", SCRIPT_BUILT)
def test_script_built_pages_are_rendered(name: str) -> None:
    assert render_reason(SCRIPT_BUILT[name], 200, {}) is not None


@pytest.mark.parametrize("name", STATIC)
def test_static_pages_are_not(name: str) -> None:
    assert render_reason(STATIC[name], 200, {}) is None


def test_the_reason_says_which_rule() -> None:
    assert render_reason(SCRIPT_BUILT["react root"]) == "app root #root with little text"
    assert render_reason(SCRIPT_BUILT["meta refresh"]) == "meta refresh redirect"
    assert render_reason(SCRIPT_BUILT["script redirect"]) == "script redirect"
    assert (render_reason(SCRIPT_BUILT["cloudflare"]) or "").startswith("bot wall")


@pytest.mark.parametrize(("site", "pages", "rendered"), [
    ("/usr/share/doc/sphinx-doc/html", 100, {"search.html"}),
    ("/usr/share/doc/postgresql-doc-15/html", 1000, set()),
    ("/usr/share/doc/git-doc", 200, set()),
    ("/usr/share/doc/python3.11-doc/html", 500, {"search.html"}),
])
def test_real_documentation_sites_are_static_but_their_search_page(site: str, pages: int,
                                                                   rendered: set[str]) -> None:
    files = sorted(Path(site).rglob("*.html"))
    assert len(files) >= pages
    needs = {str(path.relative_to(site)) for path in files
             if render_reason(decode_html(path.read_bytes(), "text/html"), 200, {}) is not None}
    assert needs == rendered


MENU_SCRIPTS = "<script src='menudata.js'></script><script src='menu.js'></script>"


def _doxygen_like(menu: str, scripts: str = MENU_SCRIPTS) -> str:
    return f"<html><body>{scripts}<div id='main-nav'>{menu}</div>{ARTICLE_TEXT}</body></html>"


def test_a_menu_a_script_fills_is_named_by_the_scripts_that_build_it() -> None:
    page = _doxygen_like("")
    assert render_reason(page) is None  # its article is in its HTML: a single page is not rendered for it
    here = script_built_navigation(page, "http://docs.example/api/html/a.html")
    assert here is not None
    assert script_built_navigation(page, "http://docs.example/api/html/deeper/../b.html") == here
    assert script_built_navigation(page, "http://docs.example/other/html/a.html") not in (None, here)


@pytest.mark.parametrize("page", [
    _doxygen_like("<ul><li><a href='index.html'>Main Page</a></li></ul>"),  # the menu is in the HTML
    _doxygen_like("", scripts=""),  # no script fills it
    f"<html><body><script src='x.js'></script><div id='nav-sync' class='sync'></div>{ARTICLE_TEXT}</body></html>",
])
def test_a_page_whose_menu_is_in_its_html_has_no_script_built_navigation(page: str) -> None:
    assert script_built_navigation(page, "http://docs.example/a.html") is None


@pytest.mark.parametrize("site", ["/usr/share/doc/sphinx-doc/html", "/usr/share/doc/postgresql-doc-15/html",
                                  "/usr/share/doc/git-doc", "/usr/share/doc/python3.11-doc/html"])
def test_real_documentation_sites_build_no_navigation_by_script(site: str) -> None:
    files = sorted(Path(site).rglob("*.html"))
    assert files
    built = [path for path in files
             if script_built_navigation(decode_html(path.read_bytes(), "text/html"), path.as_uri())]
    assert built == []
