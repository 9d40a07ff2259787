"""Every `docs/<file>.md#<anchor>` the code, tests and docs cite exists, and no numbered citation of a
contract outside the repository is left (scripts/cite_docs.py rewrites those)."""

from __future__ import annotations

from pathlib import Path

from scripts.cite_docs import NUMBERED, anchors_of, broken_citations, cite, tracked_files


def test_every_cited_doc_anchor_exists() -> None:
    assert broken_citations(tracked_files()) == []


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
