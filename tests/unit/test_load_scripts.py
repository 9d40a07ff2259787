"""What a known generator's script does to its page at load, done to the fetched HTML (fastpath.load_scripts)."""

from __future__ import annotations

from tests.support.docs_site import PYTHON_DOCS
from webcapture.content.main_content import main_content_markdown
from webcapture.fastpath.load_scripts import as_loaded

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
    markdown = main_content_markdown(as_loaded(_index(COLLAPSED)), URL)
    assert "[`collections`](https://docs.example/c.html#module-collections)" in markdown
    assert "[`sys`](https://docs.example/s.html#module-sys)" in markdown
    assert "collections.abc" not in markdown
    # A group no toggler opens is not one the script hides.
    assert "orphan.row" in markdown


def test_an_index_that_is_not_collapsed_is_read_as_served() -> None:
    for head in ("", "<script>DOCUMENTATION_OPTIONS.COLLAPSE_INDEX = false;</script>"):
        html = _index(head)
        assert as_loaded(html) is html
        assert "collections.abc" in main_content_markdown(html, URL)


def test_python_docs_module_index_keeps_its_packages_and_hides_their_submodules() -> None:
    html = (PYTHON_DOCS / "py-modindex.html").read_text(encoding="utf-8")
    loaded = as_loaded(html)
    assert loaded.count('style="display: none">') == html.count('<tr class="cg-') > 100
    markdown = main_content_markdown(loaded, URL)
    assert "[`email`](" in markdown and "[`xml`](" in markdown
    assert "email.mime" not in markdown and "xml.dom.minidom" not in markdown
    assert "email.mime" in main_content_markdown(html, URL)
