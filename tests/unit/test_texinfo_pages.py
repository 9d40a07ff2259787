"""Texinfo's HTML (makeinfo, texi2any) read as a documentation layout (content/texinfo_pages.py)."""

from __future__ import annotations

import re
from pathlib import Path

from webcapture.content.markdown import html_to_markdown

URL = "https://www.example.org/software/tool/manual/html_node/Invoking.html"
LIBFFI_MANUAL = Path("/usr/share/doc/libffi8/html")  # libffi-dev's, one page per node (makeinfo 6.8)


def _node(generator: str, navigation: str, letters: str) -> str:
    """A node of a split manual as Texinfo writes it: its navigation line, a rule, the heading, the text,
    an example, a definition, the menu of its subsections; and an index with its jump-to letters."""
    return f"""<html><head><title>Invoking (Tool)</title><meta name="Generator" content="{generator}">
</head><body lang="en"><div class="chapter" id="Invoking">{navigation}<hr>
<h2 class="chapter">2 Invoking <code>tool</code></h2>
<p>Run <code>tool</code> with the files to read:</p>
<div class="example"><pre class="example">tool -v FILE...
</pre></div>
<dl class="def"><dt id="index-tool_005frun"><span class="category">Function: </span><span><code>int</code>
<strong>tool_run</strong> <em>(const char *name)</em></span></dt><dd><p>Runs it.</p></dd></dl>
<ul class="section-toc"><li><a href="Options.html" accesskey="1">Options</a></li></ul>
<hr><h3 class="appendix">Index</h3>{letters}
<table class="index-cp"><tr><td><a href="Invoking.html#index-tool_005frun"><code>tool_run</code></a></td>
<td><a href="Invoking.html">Invoking</a></td></tr></table>
</div></body></html>"""


TEXINFO_6 = _node(
    "makeinfo",
    '<div class="header"><p>Next: <a href="Options.html" accesskey="n" rel="next">Options</a>, Previous: '
    '<a href="Overview.html" rel="prev">Overview</a>, Up: <a href="index.html" rel="up">Top</a></p></div>',
    '<table><tr><th valign="top">Jump to: &nbsp; </th><td><a class="summary-letter" href="#Index_cp_letter-T">'
    "<b>T</b></a></td></tr></table>")
TEXINFO_7 = _node(
    "texi2any",
    '<div class="nav-panel"><p>Next: <a href="Options.html" accesskey="n" rel="next">Options</a>, Previous: '
    '<a href="Overview.html" rel="prev">Overview</a>, Up: <a href="index.html" rel="up">Top</a></p></div>',
    '<table class="cp-letters-header-printindex"><tr><th>Jump to: &nbsp; </th><td>'
    '<a class="summary-letter-printindex" href="#Index_cp_letter-T"><b>T</b></a></td></tr></table>')


def test_a_texinfo_node_keeps_its_manual_and_drops_the_links_between_nodes() -> None:
    for page in (TEXINFO_6, TEXINFO_7):
        markdown = html_to_markdown(page, URL)
        assert markdown.startswith("## 2 Invoking `tool`\n\nRun `tool` with the files to read:\n\n"
                                   "```\ntool -v FILE...\n```\n\n- Function: `int` **tool_run**")
        assert "- [Options](https://www.example.org/software/tool/manual/html_node/Options.html)" in markdown
        assert "### Index" in markdown and "[`tool_run`](" in markdown
        for navigation in ("Next:", "Previous", "Up:", "Jump to", "\n---\n"):
            assert navigation not in markdown


def test_every_node_of_libffis_manual_keeps_its_headings_and_no_navigation_line() -> None:
    pages = sorted(LIBFFI_MANUAL.glob("*.html"))
    assert len(pages) == 20
    for page in pages:
        html = page.read_text(encoding="utf-8")
        markdown = html_to_markdown(html, "https://libffi.example/" + page.name)
        headings = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", html, re.DOTALL)
        assert headings and all(re.sub(r"<[^>]+>", "", heading).strip() in markdown for heading in headings)
        assert "Next:" not in markdown and "Up:" not in markdown
