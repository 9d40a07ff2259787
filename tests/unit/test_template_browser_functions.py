"""template.yaml's browser functions are exactly what scripts/write_browser_functions.py writes from its one
definition, and that definition covers every page endpoint that runs Chromium."""

from __future__ import annotations

from localapi.cfn_template import load_template
from scripts.write_browser_functions import FUNCTIONS, TEMPLATE, render, split_template


def test_the_committed_browser_functions_are_what_the_generator_writes() -> None:
    # On failure: `make template` (python scripts/write_browser_functions.py) and commit template.yaml.
    _, region, _ = split_template(TEMPLATE.read_text(encoding="utf-8"))
    assert region == render()


def test_every_function_that_runs_chromium_comes_from_the_one_definition_but_the_crawl() -> None:
    # The crawl runs Chromium too, but reserves a whole job's cost, walks its own queue and records the
    # URLs it found: its grants share little with a page endpoint's, so it is written by hand.
    resources = load_template()["Resources"]
    with_browser = {name for name, resource in resources.items()
                    if {"Ref": "BrowserLayer"} in resource.get("Properties", {}).get("Layers", [])}
    assert with_browser == {f"{function.name}Function" for function in FUNCTIONS} | {"CrawlFunction"}


def test_only_the_functions_that_store_files_may_write_the_files_table() -> None:
    resources = load_template()["Resources"]
    writers = {f"{function.name}Function" for function in FUNCTIONS
               if any(statement.get("Resource") == {"Fn::GetAtt": ["FilesTable", "Arn"]}
                      for policy in resources[f"{function.name}Function"]["Properties"]["Policies"]
                      for statement in policy["Statement"])}
    assert writers == {"ScreenshotFunction", "PdfFunction"}
