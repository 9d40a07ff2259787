"""The main-content step scored on the main-content benchmark's 54 article pages (benchmarks/
main-content, hand-checked article bodies), with the benchmark's own scoring: F1 must stay at the best
published figure, 0.97. The pages go through the same function production uses, pruning included."""

from __future__ import annotations

import gzip
import importlib.util
import json
import statistics
from pathlib import Path
from types import ModuleType

from webcapture.content.main_content import main_content_markdown

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "main-content"
F1_FLOOR = 0.97


def _score_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("main_content_score", BENCHMARK / "score.py")
    assert spec is not None and spec.loader is not None, f"no score.py in {BENCHMARK}"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_main_content_f1_on_the_benchmark_pages() -> None:
    score = _score_module()
    truth = json.loads((BENCHMARK / "ground-truth.json").read_text(encoding="utf-8"))
    assert len(truth) == 54
    rows = []
    for page_id, expected in sorted(truth.items()):
        html = gzip.decompress((BENCHMARK / "html" / f"{page_id}.html.gz").read_bytes()).decode("utf-8", "replace")
        markdown = main_content_markdown(html, expected.get("url") or "https://example.com/")
        # As score.py does: a reader sees link texts, not link targets.
        predicted = score.MD_LINK.sub(lambda match: match.group(1), markdown)
        rows.append(score.tp_fp_fn(expected.get("articleBody", ""), predicted))
    precision = statistics.mean(score.precision(*row) for row in rows if row[0] + row[1] > 0)
    recall = statistics.mean(score.recall(*row) for row in rows if row[0] + row[2] > 0)
    f1 = 2 * precision * recall / (precision + recall)
    assert f1 >= F1_FLOOR, f"main content F1 {f1:.3f} (precision {precision:.3f}, recall {recall:.3f})"
