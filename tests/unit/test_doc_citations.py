"""Every `docs/<file>.md#<anchor>` the code, tests and docs cite exists, and no numbered citation of a
contract outside the repository is left (scripts/cite_docs.py rewrites those)."""

from __future__ import annotations

from pathlib import Path

from scripts import cite_docs
from scripts.cite_docs import NUMBERED, anchors_of, broken_citations, cite, cite_python, tracked_files


def test_every_cited_doc_anchor_exists() -> None:
    # The script and this file cite made-up anchors on purpose, as examples.
    examples = {Path(__file__).resolve(), Path(cite_docs.__file__).resolve()}
    assert broken_citations(path for path in tracked_files() if path.resolve() not in examples) == []


def test_a_made_up_anchor_is_reported(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "jobs.md").write_text('<a id="jobs"></a>\n# Jobs\n\n## Cancel a job\n', encoding="utf-8")
    code = tmp_path / "handler.py"
    code.write_text("# docs/jobs.md#jobs, docs/jobs.md#cancel-a-job\n# docs/jobs.md#no-such-rule\n"
                    "# docs/nowhere.md#jobs\n", encoding="utf-8")
    assert broken_citations([code], root=tmp_path) == [
        "handler.py:2: docs/jobs.md#no-such-rule", "handler.py:3: docs/nowhere.md#jobs"]


def test_headings_are_anchors_as_github_writes_them() -> None:
    markdown = "# POST /v1/web/screenshot\n```\n# not a heading\n```\n## Limits\n## Limits\n<a id=\"own\"></a>\n"
    assert anchors_of(markdown) == {"post-v1webscreenshot", "limits", "limits-1", "own"}


def test_numbered_citations_become_doc_anchors_once() -> None:
    word = "CONTRACT"  # spelt apart, so that this file holds no citation for the sweep to rewrite
    text = f"({word} 17) {word} section 13; {word} 7, 12 and {word} 10-12"
    cited = cite(text)
    assert cited == ("(docs/jobs.md#jobs) docs/api.md#egress-policy; docs/api.md#screenshot, "
                     "docs/api.md#stored-files and docs/api.md#files-delete, docs/api.md#api-keys-list, "
                     "docs/api.md#stored-files")
    assert cite(cited) == cited and not NUMBERED.search(cited)


def test_no_numbered_citation_is_left() -> None:
    left = [str(path) for path in tracked_files() if NUMBERED.search(path.read_text(encoding="utf-8",
                                                                                     errors="replace"))]
    assert left == []


def test_rewritten_python_keeps_the_line_width() -> None:
    word = "CONTRACT"
    source = (f'"""A module whose docstring is long enough that the anchor pushes it ({word} 19) past\n'
              "the width of a line, and goes on.\"\"\"\n\n"
              f"LIMIT = 5  # a limit whose trailing comment is long once its citation is written out ({word} 20)\n")
    cited = cite_python(source)
    assert all(len(line) <= 110 for line in cited.splitlines()), cited
    assert "docs/cache-and-signed-links.md#cache-and-signed-links" in cited
    lines = cited.splitlines()
    assert lines[3].startswith("# a limit whose trailing comment") and lines[-1] == "LIMIT = 5"
    compile(cited, "cited.py", "exec")
    assert cite_python(cited) == cited


def test_a_hash_inside_a_string_is_not_a_comment() -> None:
    word = "CONTRACT"
    line = (f'STYLE = "  # a string, not a comment, that the citation makes long enough to pass the width"'
            f"  # the rule ({word} 17)\n")
    cited = cite_python(line)
    assert cited.splitlines() == ["# the rule (docs/jobs.md#jobs)",
                                  'STYLE = "  # a string, not a comment, that the citation makes long enough to '
                                  'pass the width"']
    compile(cited, "cited.py", "exec")
