"""What a known generator's script does to its page at load, done to the fetched HTML (fastpath.rendered_state)."""

from __future__ import annotations

from tests.support.ai_pages import PAGES
from tests.support.docs_site import PYTHON_DOCS
from webcapture.content.main_content import main_content_markdown
from webcapture.fastpath.rendered_state import as_rendered

URL = "https://docs.example/py-modindex.html"


def _index(collapse: str) -> str:
    """A Sphinx domain index as its template writes it: a package's row with its toggler, then the rows of
    its group."""
    return f"""<html><head><meta name="generator" content="Sphinx 5.3.0">{collapse}</head>
<body><div class="body" role="main"><h1>Python Module Index</h1>
<table class="indextable modindextable">
<tr class="cap" id="cap-c"><td></td><td><strong>c</strong></td><td></td></tr>
<tr><td><img src="_static/minus.png" class="toggler" id="toggle-1" style="display: none" alt="-" /></td>
<td><a href="c.html#module-collections"><code class="xref">collections</code></a></td><td><em>Containers</em></td></tr>
<tr class="cg-1"><td></td><td>&#160;&#160;&#160;
<a href="c.abc.html#module-collections.abc"><code class="xref">collections.abc</code></a></td><td><em>ABCs</em></td></tr>
<tr class="cg-2"><td></td><td><a href="o.html"><code class="xref">orphan.row</code></a></td><td></td></tr>
<tr><td></td><td><a href="s.html#module-sys"><code class="xref">sys</code></a></td><td><em>System</em></td></tr>
</table></div></body></html>"""


COLLAPSED = "<script>\n  DOCUMENTATION_OPTIONS.COLLAPSE_INDEX = true;\n</script>"


def test_a_collapsed_index_hides_the_rows_of_each_toggled_group() -> None:
    markdown = main_content_markdown(as_rendered(_index(COLLAPSED)), URL)
    assert "[`collections`](https://docs.example/c.html#module-collections)" in markdown
    assert "[`sys`](https://docs.example/s.html#module-sys)" in markdown
    assert "collections.abc" not in markdown
    # A group no toggler opens is not one the script hides.
    assert "orphan.row" in markdown


def test_an_index_that_is_not_collapsed_is_read_as_served() -> None:
    for head in ("", "<script>DOCUMENTATION_OPTIONS.COLLAPSE_INDEX = false;</script>"):
        html = _index(head)
        assert as_rendered(html) is html
        assert "collections.abc" in main_content_markdown(html, URL)


def test_python_docs_module_index_keeps_its_packages_and_hides_their_submodules() -> None:
    html = (PYTHON_DOCS / "py-modindex.html").read_text(encoding="utf-8")
    loaded = as_rendered(html)
    assert loaded.count('style="display: none">') == html.count('<tr class="cg-') > 100
    markdown = main_content_markdown(loaded, URL)
    assert "[`email`](" in markdown and "[`xml`](" in markdown
    assert "email.mime" not in markdown and "xml.dom.minidom" not in markdown
    assert "email.mime" in main_content_markdown(html, URL)


def _console(unix_checked: str = " checked") -> str:
    """A Django docs page's console block as its `console` directive writes it."""
    return f"""<html><body><div class="document"><div id="bd"><div id="yui-main"><div class="section">
<h1>Install</h1><p>Check the version:</p>
<div class="console-block" id="console-block-0">
<input class="c-tab-unix" id="c-tab-0-unix" type="radio" name="console-0"{unix_checked}>
<label for="c-tab-0-unix" title="Linux/macOS">&#xf17c/&#xf179</label>
<input class="c-tab-win" id="c-tab-0-win" type="radio" name="console-0">
<label for="c-tab-0-win" title="Windows">&#xf17a</label>
<section class="c-content-unix" id="c-content-0-unix">
<div class="highlight-console notranslate"><div class="highlight"><pre>$ python -m django --version
</pre></div></div></section>
<section class="c-content-win" id="c-content-0-win">
<div class="highlight"><pre>...\\&gt; py -m django --version
</pre></div></section></div>
<a class="headerlink" href="#install">¶</a></div></div></div></div></body></html>"""


def test_a_django_console_block_keeps_only_its_checked_tab() -> None:
    markdown = main_content_markdown(as_rendered(_console()), URL)
    assert "```console\n$ python -m django --version\n```" in markdown
    assert "py -m django" not in markdown
    # As served, both tabs are there: the stylesheet is what hides one.
    assert "py -m django" in main_content_markdown(_console(), URL)


def test_a_console_block_with_no_tab_checked_shows_neither_tab() -> None:
    html = _console(unix_checked="")
    hidden = as_rendered(html)
    # No tab checked: the stylesheet hides both sections, and so does the fetch.
    assert hidden.count('style="display: none"') == 2


MDBOOK = """<html><body><div id="menu-bar-hover-placeholder"></div><div id="content"><main><h1>Structs</h1>
<pre><code class="language-rust"><span class="boring">use std::fmt;
</span>struct User { active: bool }
<span class="boring">fn main() {}
</span></code></pre></main></div></body></html>"""


def test_an_mdbook_example_hides_its_setup_lines_as_the_book_shows_it() -> None:
    markdown = main_content_markdown(as_rendered(MDBOOK), URL)
    assert "```rust\nstruct User { active: bool }\n```" in markdown
    assert "use std::fmt" not in markdown and "use std::fmt" in main_content_markdown(MDBOOK, URL)


def test_a_boring_span_on_a_page_mdbook_did_not_write_is_read_as_served() -> None:
    html = MDBOOK.replace('<div id="menu-bar-hover-placeholder"></div>', "")
    assert as_rendered(html) is html


def test_haddock_hides_what_its_stylesheet_hides() -> None:
    html = (PAGES / "haddock.html").read_text(encoding="utf-8")
    markdown = main_content_markdown(as_rendered(html), "https://hackage.example/Data-Maybe.html")
    assert markdown.startswith("# Data.Maybe\n\n| Stability | stable |")
    assert "Description" not in markdown and "Arguments" not in markdown and "Instance details" not in markdown
    assert "Description" in main_content_markdown(html, "https://hackage.example/Data-Maybe.html")
