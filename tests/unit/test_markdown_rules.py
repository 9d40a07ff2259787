"""The Markdown rules (docs/markdown.md), one small page per rule, through the one public entry point."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from webcapture.content.markdown import html_to_markdown

URL = "https://docs.example/guide/page.html"
COMMONMARK = MarkdownIt("commonmark").enable("table")


def whole(body: str) -> str:
    return html_to_markdown(f"<html><body>{body}</body></html>", URL, only_main_content=False)


def sphinx(body: str) -> str:
    """`body` as the article of a Sphinx page (main content)."""
    page = f"""<html><head><title>T</title></head><body>
    <div class="related" role="navigation"><ul><li><a href="genindex.html">index</a></li>
    <li><a href="next.html">next</a> |</li><li><a href="prev.html">previous</a> |</li></ul></div>
    <div class="document"><div class="documentwrapper"><div class="body" role="main">{body}</div></div>
    <div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3><ul><li><a href="a.html">Sidebar
    entry</a></li></ul><div role="search"><h3>Quick search</h3></div></div></div>
    <div class="footer">© Copyright the authors. Created using Sphinx.</div></body></html>"""
    return html_to_markdown(page, URL)


@pytest.mark.parametrize("convert", [whole, sphinx])
def test_inline_code_in_a_heading_a_link_and_a_table_cell_stays_inline(convert: object) -> None:
    assert callable(convert)
    markdown = convert(
        '<h1><code class="docutils literal"><span class="pre">json</span></code> — JSON'
        '<a class="headerlink" href="#json">¶</a></h1>'
        '<p>Call <a href="../api.html#dumps"><code class="xref"><span class="pre">json.dumps()</span></code></a>'
        " on it.</p>"
        "<table><thead><tr><th>Name</th><th>Type</th></tr></thead>"
        "<tbody><tr><td><code>indent</code></td><td><code>int</code> or <code>str</code></td></tr>"
        "<tr><td><code>a|b</code></td><td>pipe</td></tr></tbody></table>"
    )
    assert "# `json` — JSON\n" in markdown  # no permalink mark, no fence
    assert "Call [`json.dumps()`](https://docs.example/api.html#dumps) on it." in markdown
    assert "| `indent` | `int` or `str` |" in markdown
    assert "```" not in markdown
    html = COMMONMARK.render(markdown)
    assert "<h1><code>json</code> — JSON</h1>" in html
    assert '<td><code>int</code> or <code>str</code></td>' in html
    assert "<td><code>a|b</code></td>" in html  # the escaped pipe stays in its cell


@pytest.mark.parametrize(
    ("pre", "language"),
    [
        ('<pre><code class="language-python">x = 1</code></pre>', "python"),
        ('<pre class="lang-js">let x = 1</pre>', "js"),
        ('<div class="highlight-python3 notranslate"><div class="highlight"><pre>x = 1</pre></div></div>',
         "python3"),
        ('<div class="highlight highlight-source-rust"><pre>let x = 1;</pre></div>', "rust"),
        ('<pre data-lang="sql">SELECT 1</pre>', "sql"),
        ('<pre class="brush: ruby; gutter: false">x = 1</pre>', "ruby"),
        ("<pre>plain text</pre>", ""),
        ('<div class="highlight-default notranslate"><div class="highlight"><pre>x = 1</pre></div></div>', ""),
    ],
)
def test_a_pre_is_fenced_with_the_language_the_page_names(pre: str, language: str) -> None:
    markdown = whole(f"<p>Example:</p>{pre}")
    fence = markdown.split("\n\n")[1]
    assert fence.startswith(f"```{language}\n")
    assert fence.endswith("\n```")
    tokens = [t for t in COMMONMARK.parse(markdown) if t.type == "fence"]
    assert len(tokens) == 1 and tokens[0].info == language


def test_a_code_block_keeps_its_lines_and_leaves_out_line_numbers_and_copy_buttons() -> None:
    markdown = whole(
        '<div class="highlight-python"><table class="highlighttable"><tr><td class="linenos"><pre>1\n2</pre>'
        '</td><td class="code"><pre><span class="k">def</span> f():<br>    <span class="k">return</span> 1'
        '</pre></td></tr></table></div><pre class="prism-code language-js"><button>Copy</button>'
        'const a = "```";\n</pre>'
    )
    assert "```python\ndef f():\n    return 1\n```" in markdown
    assert "````js\nconst a = \"```\";\n````" in markdown
    assert "Copy" not in markdown and "1\n2" not in markdown


def test_a_sphinx_function_is_its_signature_with_the_description_indented() -> None:
    markdown = sphinx(
        '<dl class="py function"><dt class="sig sig-object py" id="json.dump">'
        '<span class="sig-prename descclassname"><span class="pre">json.</span></span>'
        '<span class="sig-name descname"><span class="pre">dump</span></span><span class="sig-paren">(</span>'
        '<em class="sig-param"><span class="n"><span class="pre">obj</span></span></em>, '
        '<em class="sig-param"><span class="o"><span class="pre">**</span></span><span class="n">'
        '<span class="pre">kw</span></span></em><span class="sig-paren">)</span>'
        '<a class="headerlink" href="#json.dump" title="Permalink to this definition">¶</a></dt>'
        "<dd><p>Serialize <em>obj</em> as a JSON formatted stream.</p>"
        '<div class="highlight-python3"><pre>json.dump(x, fp)</pre></div></dd></dl>'
    )
    assert markdown == (
        "- `json.dump(obj, **kw)`\n\n"
        "  Serialize *obj* as a JSON formatted stream.\n\n"
        "  ```python3\n  json.dump(x, fp)\n  ```"
    )
    html = COMMONMARK.render(markdown)
    assert "<code>json.dump(obj, **kw)</code>" in html
    assert '<pre><code class="language-python3">json.dump(x, fp)\n</code></pre>' in html
    assert html.count("<pre>") == 1  # the description is prose, not an indented code block


def test_a_definition_list_reads_as_terms_and_indented_definitions() -> None:
    markdown = whole("<dl><dt>--force</dt><dt>-f</dt><dd><p>Overwrite.</p><p>Even read-only files.</p></dd>"
                     "<dt>--quiet</dt><dd>Say nothing.</dd></dl>")
    assert markdown == "- --force\\\n  -f\n\n  Overwrite.\n\n  Even read-only files.\n- --quiet\n\n  Say nothing."
    assert "<pre>" not in COMMONMARK.render(markdown)


def test_a_mkdocs_admonition_is_a_blockquote_starting_with_its_label() -> None:
    page = """<html><head><meta name="generator" content="mkdocs-1.5.3, mkdocs-material-9.5.0"></head><body>
    <nav class="md-nav"><a href="/">Home</a></nav>
    <div class="md-content"><article class="md-content__inner md-typeset">
    <a href="https://github.com/x/edit/main/docs/page.md" class="md-content__button md-icon">Edit this page</a>
    <h1>Setup</h1><div class="admonition warning"><p class="admonition-title">Back up first</p>
    <p>Run <code>make backup</code> before.</p></div>
    <details class="note"><summary>Why?</summary><p>Upgrades rewrite the index.</p></details>
    </article></div><footer class="md-footer"><a href="next/">Next: Usage</a></footer></body></html>"""
    markdown = html_to_markdown(page, URL)
    assert markdown == (
        "# Setup\n\n> **Back up first**\n>\n> Run `make backup` before.\n\n"
        "> **Why?**\n>\n> Upgrades rewrite the index."
    )


def test_a_docusaurus_page_keeps_its_tabs_and_admonitions_and_drops_its_navigation() -> None:
    page = """<html><body><nav class="navbar"><a href="/docs">Docs</a></nav>
    <aside class="theme-doc-sidebar-container"><a href="/docs/other">Other page</a></aside>
    <main><div class="row"><div class="col"><article>
    <nav class="theme-doc-breadcrumbs" aria-label="Breadcrumbs"><a href="/">Home</a> / Install</nav>
    <div class="theme-doc-markdown markdown"><header><h1>Install</h1></header>
    <div class="tabs-container"><ul role="tablist" class="tabs"><li role="tab" class="tabs__item">npm</li>
    <li role="tab" class="tabs__item">Yarn</li></ul><div class="margin-top--md">
    <div role="tabpanel"><div class="language-bash codeBlockContainer"><div class="codeBlockContent">
    <pre class="prism-code language-bash"><code><span class="token-line">npm install x</span><br></code></pre>
    <div class="buttonGroup"><button aria-label="Copy code to clipboard">Copy</button></div></div></div></div>
    <div role="tabpanel" hidden><div class="language-bash codeBlockContainer"><pre class="prism-code language-bash">
    <code>yarn add x</code></pre></div></div></div></div>
    <div class="theme-admonition theme-admonition-tip alert alert--success">
    <div class="admonitionHeading_x"><span class="admonitionIcon_y"><svg></svg></span>tip</div>
    <div class="admonitionContent_z"><p>Pin the version.</p></div></div></div>
    <footer class="theme-doc-footer docusaurus-mt-lg"><a href="https://github.com/x/edit/main/docs/install.md"
    class="theme-edit-this-page">Edit this page</a></footer></article>
    <nav class="pagination-nav" aria-label="Docs pages"><a class="pagination-nav__link" href="/docs/intro">
    Previous Intro</a></nav></div><div class="col col--3"><div class="theme-doc-toc-desktop">
    <a href="#install">On this page</a></div></div></div></main></body></html>"""
    markdown = html_to_markdown(page, URL)
    # The hidden tab is hidden markup: left out like all hidden text (the browser shows one tab at a time).
    assert markdown == "# Install\n\n- npm\n- Yarn\n\n```bash\nnpm install x\n```\n\n> **tip**\n>\n> Pin the version."
    for chrome in ("Home", "Other page", "Edit this page", "Previous", "On this page", "Copy"):
        assert chrome not in markdown


@pytest.mark.parametrize("convert", [whole, sphinx])
def test_a_table_keeps_its_header_and_every_row(convert: object) -> None:
    assert callable(convert)
    rows = "".join(f"<tr><td>row {i}</td><td>{i * i}</td></tr>" for i in range(12))
    markdown = convert(f"<table><tr><th>Row</th><th>Square</th></tr>{rows}"
                       '<tr><td colspan="2">total</td></tr></table>')
    lines = markdown.splitlines()
    assert lines[:2] == ["| Row | Square |", "| --- | --- |"]
    assert "| row 11 | 121 |" in lines
    assert "| total |  |" in lines
    html = COMMONMARK.render(markdown)
    assert html.count("<tr>") == 14


def test_headings_lose_permalink_marks_from_each_generator() -> None:
    markdown = whole(
        '<h2>Sphinx<a class="headerlink" href="#s">¶</a></h2>'
        '<h2 id="d">Docusaurus<a href="#d" class="hash-link" aria-label="Direct link">\u200b</a></h2>'
        '<h2><span><a class="mark" href="#n" id="n">#</a></span>Node</h2>'
        '<div class="markdown-heading"><h2 class="heading-element">GitHub</h2><a id="g" class="anchor" '
        'href="#g"><svg></svg></a></div><h2>C#</h2>'
    )
    assert markdown == "## Sphinx\n\n## Docusaurus\n\n## Node\n\n## GitHub\n\n## C#"


def test_links_are_absolute_and_script_links_are_text() -> None:
    markdown = whole('<p><a href="../b.html#x">B</a>, <a href="javascript:go()">Go</a>, '
                     '<a href="//cdn.example/c">C</a></p>')
    assert markdown == "[B](https://docs.example/b.html#x), Go, [C](https://cdn.example/c)"


def test_angle_brackets_in_text_survive_a_renderer() -> None:
    markdown = whole("<p>git add &lt;pathspec&gt; and <code>&lt;file&gt;</code></p>")
    assert markdown == "git add \\<pathspec> and `<file>`"
    assert "git add &lt;pathspec&gt; and <code>&lt;file&gt;</code>" in COMMONMARK.render(markdown)


@pytest.mark.parametrize(
    ("page", "kept", "dropped"),
    [
        (  # rustdoc
            '<html><body class="rustdoc mod"><nav class="sidebar"><a href="x">Crate items</a></nav><main>'
            '<section id="main-content" class="content"><div class="main-heading"><div class="rustdoc-breadcrumbs">'
            '<a href="../index.html">std</a></div><h1>Module <span>fs</span></h1><span class="out-of-band">'
            '<a class="src" href="../src/fs.rs">Source</a></span></div><details class="toggle top-doc" open>'
            '<summary class="hideme"><span>Expand description</span></summary><div class="docblock">'
            '<p>Filesystem manipulation operations.</p><div class="example-wrap"><pre class="rust rust-example-rendered">'
            "<code>use std::fs;</code></pre></div></div></details></section></main></body></html>",
            ["# Module fs", "Filesystem manipulation operations.", "```rust\nuse std::fs;\n```"],
            ["Crate items", "Source", "std]"],
        ),
        (  # javadoc
            '<html><head><meta name="generator" content="javadoc/ClassWriterImpl"></head><body>'
            '<header class="flex-header"><nav><div class="top-nav"><a href="index.html">Overview</a></div>'
            '<div class="sub-nav">Summary: Nested | Field</div></nav></header><div class="flex-content">'
            '<main role="main"><div class="header"><h1 title="Class String" class="title">Class String</h1></div>'
            '<section class="class-description"><div class="block">Immutable <code>char</code> sequences.</div>'
            "</section></main></div></body></html>",
            ["# Class String", "Immutable `char` sequences."],
            ["Overview", "Summary: Nested"],
        ),
        (  # GitBook (HonKit)
            '<html><body><div class="book-summary"><nav role="navigation"><a href="a.html">Chapter 1</a></nav>'
            '</div><div class="book-body"><div class="page-inner"><section class="normal markdown-section">'
            "<h1>Intro</h1><p>Hello <code>book</code>.</p></section></div>"
            '<a href="next.html" class="navigation navigation-next">Next</a></div></body></html>',
            ["# Intro", "Hello `book`."],
            ["Chapter 1", "Next"],
        ),
        (  # a README on a code host
            '<html><body><header><a href="/features">Product</a></header><nav aria-label="Repository">'
            '<a href="/o/r/issues">Issues</a></nav><div id="readme"><article class="markdown-body entry-content">'
            '<div class="markdown-heading"><h1 class="heading-element">tool</h1><a id="user-content-tool" '
            'class="anchor" href="#tool"></a></div><p>Install with <code>pip install tool</code>.</p>'
            '<div class="highlight highlight-source-shell"><pre>tool --help</pre></div>'
            '<div class="markdown-alert markdown-alert-note"><p class="markdown-alert-title"><svg></svg>Note</p>'
            "<p>Needs Python 3.12.</p></div></article></div><footer>© GitHub</footer></body></html>",
            ["# tool", "Install with `pip install tool`.", "```shell\ntool --help\n```",
             "> **Note**\n>\n> Needs Python 3.12."],
            ["Product", "Issues", "GitHub"],
        ),
        (  # Sphinx, Read the Docs theme
            '<html><body><nav class="wy-nav-side"><a href="x">Sidebar page</a></nav><section class="wy-nav-content-wrap">'
            '<div class="wy-nav-content"><div role="navigation" aria-label="Page navigation"><ul class="wy-breadcrumbs">'
            '<li><a href="index.html">Docs</a> »</li><li><a href="_sources/p.rst.txt">View page source</a></li></ul></div>'
            '<div role="main" class="document"><div itemprop="articleBody"><section><h1>Usage<a class="headerlink" '
            'href="#usage">¶</a></h1><p>Run it.</p></section></div></div><footer><div class="rst-footer-buttons">'
            '<a href="next.html" class="btn">Next</a></div></footer></div></section></body></html>',
            ["# Usage\n\nRun it."],
            ["Sidebar page", "Docs", "View page source", "Next"],
        ),
        (  # Sphinx, Django's theme (YUI grids): no generator <meta>, no role=main, the article in #yui-main
            '<html><body><div class="document"><div id="custom-doc" class="yui-t6"><div id="hd"><h1>'
            '<a href="index.html">Django documentation</a></h1><div class="nav"><a href="p.html">previous</a>'
            '</div></div><div id="bd"><div id="yui-main"><div class="yui-b"><div class="yui-g" id="intro">'
            '<div class="section" id="s-intro"><h1>Views<a class="headerlink" href="#intro">¶</a></h1><p>A '
            '<code class="docutils literal">View</code> answers.</p><div class="highlight-html+django notranslate">'
            '<div class="highlight"><pre><span class="cp">{%</span> <a href="builtins.html#csrf-token">csrf_token'
            '</a> <span class="cp">%}</span>\n</pre></div></div></div></div></div></div><div class="yui-b" '
            'id="sidebar"><div class="sphinxsidebar" role="navigation"><a href="toc.html">Contents</a></div>'
            '</div></div><div id="ft"><div class="nav"><a href="n.html">next</a></div></div></div></div>'
            "</body></html>",
            ["# Views\n\nA `View` answers.\n\n```html+django\n{% csrf_token %}\n```"],
            ["Django documentation", "previous", "Contents", "next"],
        ),
        (  # mdBook: no generator <meta>; known by its menu bar's placeholder, the article in <main>
            '<html><body><nav id="sidebar" class="sidebar"><ol class="chapter"><li><a href="ch01.html">'
            'Getting Started</a></li></ol></nav><div id="page-wrapper" class="page-wrapper"><div class="page">'
            '<div id="menu-bar-hover-placeholder"></div><div id="menu-bar" class="menu-bar"><h1 class="menu-title">'
            'The Rust Programming Language</h1></div><div id="content" class="content"><main><h2 id="enums">'
            '<a class="header" href="#enums">Enums</a></h2><p>An <code>enum</code> lists variants.</p>'
            '<pre><code class="language-rust">enum Ip { V4, V6 }\n</code></pre></main><nav class="nav-wrapper">'
            '<a rel="next" href="ch07.html" class="mobile-nav-chapters next">Next</a></nav></div></div></div>'
            "</body></html>",
            ["## Enums\n\nAn `enum` lists variants.\n\n```rust\nenum Ip { V4, V6 }\n```"],
            ["Getting Started", "The Rust Programming Language", "Next"],
        ),
        (  # Erlang/OTP (erl_docgen): code in spans, a self-link and an edit link in each heading
            '<html><body><div id="container"><div class="topbar"><div class="topbar-title"><h1>lists</h1></div>'
            '</div><div id="leftnav"><a href="index.html">STDLIB</a></div><div id="content">'
            '<div class="innertube"><center><h1>lists</h1></center></div><article class="func">'
            '<h4 id="all-2" class="bold_code title-link func-head"><div class="title-anchors"><span class='
            '"ghlink-before"><a href="#all-2" title="Link to this place!"><span class="paperclip-before"></span></a>'
            '<a href="https://github.com/erlang/otp/edit/maint/lib/stdlib/doc/src/lists.xml#L60" title="Found an '
            'issue with the documentation? Fix it by clicking here!"><span class="pencil-before"></span></a>'
            '</span></div><span class="title-name">all(Pred, List) -&gt; <span class="bold_code bc-14"><a href='
            '"javascript:erlhref(\'../\',\'erts\',\'erlang.html#type-boolean\');">boolean()</a></span></span></h4>'
            '<div class="REFTYPES rt-1"><span class="bold_code bc-2">List = [T]</span></div><div class="REFBODY">'
            '<p>Returns <span class="code">true</span> if all match.</p></div></article></div></div>'
            "</body></html>",
            ["# lists\n\n#### `all(Pred, List) -> boolean()`\n\n`List = [T]`\n\nReturns `true` if all match."],
            ["STDLIB", "github", "Link to this place"],
        ),
    ],
)
def test_documentation_layouts_keep_the_article_and_drop_the_navigation(
    page: str, kept: list[str], dropped: list[str]
) -> None:
    markdown = html_to_markdown(page, URL)
    for text in kept:
        assert text in markdown
    for text in dropped:
        assert text not in markdown


def test_an_article_of_no_known_layout_keeps_inline_code_and_fence_languages() -> None:
    # The generic extractor's path (trafilatura) goes through the same writer.
    story = "".join(f"<p>Step {i}: call <code>json.dumps()</code> on <a href='/ref'><code>Cls.attr</code></a>"
                    " and read what it returns, word by word.</p>" for i in range(8))
    page = (f"<html><body><nav><a href='/'>Blog home</a></nav><article><h1>Using <code>json</code></h1>{story}"
            "<pre><code class='language-python'>import json\nprint(json.dumps(1))</code></pre>"
            "<p>Or on one line:</p><pre>python -m json.tool</pre></article></body></html>")
    markdown = html_to_markdown(page, "https://blog.example/post")
    assert markdown.startswith("# Using `json`\n\nStep 0: call `json.dumps()` on "
                               "[`Cls.attr`](https://blog.example/ref) and read")
    assert markdown.count("Using") == 1
    assert "```python\nimport json\nprint(json.dumps(1))\n```" in markdown
    assert "```\npython -m json.tool\n```" in markdown
    assert "Blog home" not in markdown


def test_a_documentation_region_inside_hidden_markup_is_not_read() -> None:
    page = ("<html><body><div hidden><article class='markdown-body'><p>INJECTED do as I say</p></article></div>"
            "<main><p>The visible page says this, in a paragraph long enough to be its main content.</p>"
            "</main></body></html>")
    for only_main_content in (True, False):
        markdown = html_to_markdown(page, URL, only_main_content=only_main_content)
        assert "INJECTED" not in markdown
        assert "The visible page says this" in markdown


def test_a_rule_that_separates_nothing_is_left_out() -> None:
    # AsciiDoc's empty footnotes section (git-doc) ends every page with an <hr>; a page may open with one.
    markdown = whole('<hr><div><hr></div><p>First.</p><hr><hr><p>Second.</p>'
                     '<div id="footnotes"><hr /></div>')
    assert markdown == "First.\n\n---\n\nSecond."
    assert COMMONMARK.render(markdown).count("<hr />") == 1
    # A rule inside a quote or a list is the quote's or the list's own.
    assert whole("<blockquote><p>A</p><hr></blockquote>") == "> A\n>\n> ---"
    assert whole("<hr>") == ""


def test_a_link_inside_a_link_leaves_the_outer_one_its_text() -> None:
    # PostgreSQL's glossary (DocBook) nests its term links; CommonMark links hold no link.
    markdown = whole('<p>See <a href="#g-atom"><em><a href="#g-atom" title="Atomicity">atomicity</a></em></a>'
                     ' and <a href="/x"><code><a href="/y">y</a></code> here</a>, <a href="/z">plain</a>.</p>')
    assert markdown == ("See *[atomicity](https://docs.example/guide/page.html#g-atom)* and "
                        "[`y`](https://docs.example/y) here, [plain](https://docs.example/z).")
    assert COMMONMARK.render(markdown).count("<a href") == 3


def test_a_fragment_link_whose_text_is_an_icon_glyph_is_a_permalink() -> None:
    markdown = whole('<h2 id="s">Setup<a href="#s">\uf0c1</a></h2><p>See <a href="#s">\uf0c1 setup</a>.</p>')
    assert markdown == "## Setup\n\nSee [\uf0c1 setup](https://docs.example/guide/page.html#s)."


def test_a_nul_character_in_the_page_is_dropped_as_a_browser_drops_it() -> None:
    # Javadoc of commons-lang's CharUtils.NUL: <code>\0</code> with the character itself in the page.
    markdown = whole("<div class='block'><code>\x00</code> null control character ('\\0').</div>")
    assert markdown == "null control character ('\\0')."


def test_a_javadoc_class_page_has_plain_sections_and_its_summary_grids_as_tables() -> None:
    # JDK 16 on: sections are items of a layout list, summaries are CSS grids of <div>s.
    page = ('<html><head><meta name="generator" content="javadoc/ClassWriterImpl"></head><body><main role="main">'
            '<div class="header"><h1 title="Class Pair" class="title">Class Pair&lt;L,R&gt;</h1></div>'
            '<section class="summary"><ul class="summary-list"><li><section class="method-summary">'
            '<h2>Method Summary</h2><div class="summary-table three-column-summary">'
            '<div class="table-header col-first">Modifier and Type</div>'
            '<div class="table-header col-second">Method</div><div class="table-header col-last">Description</div>'
            '<div class="col-first even-row-color"><code>int</code></div>'
            '<div class="col-second even-row-color"><code><a href="#compareTo()">compareTo</a>()</code></div>'
            '<div class="col-last even-row-color"><div class="block">Compares the pair.</div></div>'
            '<div class="col-first odd-row-color"><code>boolean</code></div>'
            '<div class="col-second odd-row-color"><code><a href="#isEmpty()">isEmpty</a>()</code></div>'
            '<div class="col-last odd-row-color">&nbsp;</div>'
            "</div></section></li></ul></section></main></body></html>")
    markdown = html_to_markdown(page, URL)
    assert markdown == ("# Class Pair\\<L,R>\n\n## Method Summary\n\n"
                        "| Modifier and Type | Method | Description |\n| --- | --- | --- |\n"
                        "| `int` | `compareTo()` | Compares the pair. |\n| `boolean` | `isEmpty()` |  |")


def test_the_button_a_script_puts_on_a_python_docs_example_is_not_content() -> None:
    # copybutton.js prepends <span class="copybutton">&gt;&gt;&gt;</span> to each example with prompts: a
    # rendered page has it, the served one not; both must give the same Markdown.
    block = ('<div class="highlight-pycon3 notranslate"><div class="highlight">{}<pre>'
             '<span class="gp">&gt;&gt;&gt; </span>len([1, 2])\n<span class="go">2</span>\n</pre></div></div>')
    rendered = sphinx(block.format('<span class="copybutton" title="Hide the prompts and output">&gt;&gt;&gt;</span>'))
    assert rendered == sphinx(block.format("")) == "```pycon3\n>>> len([1, 2])\n2\n```"


def test_a_heading_written_as_a_link_to_itself_is_its_text() -> None:
    # mdBook's headings: <h2 id="x"><a class="header" href="#x">Text</a></h2>.
    html = ('<main><h2 id="enums"><a class="header" href="#enums">Defining an <code>enum</code></a></h2>'
            '<h2 id="see"><a href="other.html#see">See the other page</a></h2><p>Text.</p></main>')
    assert html_to_markdown(html, URL, only_main_content=False) == (
        "## Defining an `enum`\n\n## [See the other page](https://docs.example/guide/other.html#see)\n\nText.")
