"""schemathesis drives the local API from the OpenAPI document: no 5xx of ours, every answer as documented.

Bounded: a fixed number of examples per operation, on two workers (the local API serves requests side by
side, as the gateway does). Targets are the document's own examples pointed at the loopback fixture server
(so the 200 forms are exercised) and whatever URLs schemathesis makes up: no network here, so public names
fail fast to the documented 502 NAVIGATION_FAILED, which is the page's failure, not ours; 500 and 503 stay
failures. Any unhandled error the functions log fails the test too, so a crash hidden behind the gateway's
502 cannot pass.

The coverage phase writes a few hundred refused bodies per page operation, almost all of them for the
fields every page operation shares (PageControl's, one model and one validator): a run of its own would
repeat them six times over. So the screenshot's coverage runs on its whole body, and the other page
operations' on a copy of the document whose bodies hold only what is their own (and what is required);
every operation still runs every phase and every check.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import requests

from tests.support.fake_openai import FakeOpenAI, json_completion
from tests.support.fixture_server import EGRESS_ALLOW, get_server
from tests.support.jobs_client import job, wait_until_settled
from tests.support.json_schema_refs import resolved
from tests.support.local_api import LocalApi, start_local_api

CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,"
          "response_schema_conformance,negative_data_rejection")
EXAMPLES_PER_OPERATION = 12
CONFIG = """
[checks.not_a_server_error]
# 502 NAVIGATION_FAILED / 504 NAVIGATION_TIMEOUT: the target page failed, as documented.
expected-statuses = ["2XX", "3XX", "4XX", "502", "504"]

[phases.coverage]
# The coverage phase writes every field's boundary values, one case each. Its negative cases are refused
# before any page loads; its positive ones would each load a page (a wait at its maximum is seconds), over
# a hundred per endpoint, which the examples and fuzzing phases already do within --max-examples.
generation.mode = "negative"

[checks.negative_data_rejection]
# schemathesis's own list, and 413: a body over 100 KB is refused before validation (PAYLOAD_TOO_LARGE).
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]
"""
# The page operations whose coverage runs on their own fields only (the module's docstring); the screenshot's
# body holds every field they share.
WHOLE_BODY_COVERAGE = "screenshot"
OWN_FIELDS_COVERAGE = ("links", "aiExtract", "markdown", "content", "pdf")
COVERAGE_ON_OWN_FIELDS_ONLY = f"""
[[operations]]
include-operation-id = {json.dumps(list(OWN_FIELDS_COVERAGE))}
phases.coverage.enabled = false
"""


@pytest.fixture(scope="module")
def fuzzed_api() -> Iterator[LocalApi]:
    with FakeOpenAI() as provider:
        provider.script(*[json_completion({"title": "Plain", "intro": "A plain page."}) for _ in range(500)])
        api = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": EGRESS_ALLOW, "WEBCAPTURE_REQUEST_BUDGET_MS": "8000",
                               "OPENAI_BASE_URL": provider.base_url, "OPENAI_API_KEY": "sk-fuzz",
                               "WEBCAPTURE_AI_TIMEOUT_S": "3"}, demo_credits=1_000_000)
        yield api
        api.stop()


def _with_loopback_examples(document: dict[str, Any], page_url: str) -> dict[str, Any]:
    for methods in document["paths"].values():
        for operation in methods.values():
            example = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("example")
            if isinstance(example, dict) and "url" in example:
                example["url"] = page_url
    return document


def _operations(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {operation["operationId"]: operation for methods in document["paths"].values()
            for operation in methods.values() if isinstance(operation, dict) and "operationId" in operation}


def _own_fields_only(document: dict[str, Any]) -> dict[str, Any]:
    """The document with OWN_FIELDS_COVERAGE's bodies cut to the fields whose schema is not the screenshot's
    (and the required ones), and no example (it holds shared fields)."""
    reduced = copy.deepcopy(document)
    schemas = reduced["components"]["schemas"]
    operations = _operations(reduced)

    def body_of(operation_id: str) -> dict[str, Any]:
        ref = operations[operation_id]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        return dict(schemas[ref.rsplit("/", 1)[1]])

    shared = body_of(WHOLE_BODY_COVERAGE)["properties"]
    for operation_id in OWN_FIELDS_COVERAGE:
        body = body_of(operation_id)
        own = {name: field for name, field in body["properties"].items()
               if shared.get(name) != field or name in body.get("required", [])}
        content = operations[operation_id]["requestBody"]["content"]["application/json"]
        content.pop("example", None)
        content["schema"] = {**body, "properties": own}
    return reduced


def _schemathesis(api: LocalApi, workdir: Path, schema: Path, config_text: str,
                  *args: str) -> subprocess.CompletedProcess[str]:
    config = workdir / "schemathesis.toml"
    config.write_text(config_text)
    return subprocess.run(
        [str(Path(sys.executable).with_name("st")), "--config-file", str(config), "run", str(schema),
         "--url", api.url, "-H", f"Authorization: Bearer {api.api_key}",
         "--checks", CHECKS, "--max-examples", str(EXAMPLES_PER_OPERATION), "--workers", "2",
         "--request-timeout", "40", "--seed", "20261122", "--no-color",
         # No example database: a run replays nothing an earlier run stored, and writes nothing into the repo.
         "--generation-database", "none", *args],
        capture_output=True, text=True, timeout=900, check=False, cwd=workdir,
    )


def test_schemathesis_finds_nothing(fuzzed_api: LocalApi, tmp_path: Path) -> None:
    document = _with_loopback_examples(requests.get(fuzzed_api.url + "/v1/openapi.json", timeout=30).json(),
                                       get_server().url("/plain.html"))
    schema = tmp_path / "openapi.json"
    schema.write_text(json.dumps(document))
    run = _schemathesis(
        fuzzed_api, tmp_path, schema, CONFIG + COVERAGE_ON_OWN_FIELDS_ONLY,
        # A batch's items run after its answer, on the queue: fuzzed, up to 1,000 generated pages each would
        # keep the workers busy long after the run (test_e2e_jobs covers the batch's validation and limits).
        "--exclude-operation-id", "submitBatch",
        # A crawl likewise (its pages run after the answer; test_e2e_crawl covers its validation and limits).
        "--exclude-operation-id", "crawl",
        # The MCP transport is the MCP SDK's, answering JSON-RPC errors of its own; its tools call the
        # endpoints fuzzed here (test_e2e_mcp_http and tests/unit/test_mcp_http_function cover it).
        "--exclude-operation-id", "mcp")
    report = run.stdout[-6000:] + run.stderr[-2000:]
    assert run.returncode == 0, report
    assert "generated" in run.stdout  # it ran test cases, not nothing
    own_fields = tmp_path / "own-fields.json"
    own_fields.write_text(json.dumps(_own_fields_only(document)))
    (tmp_path / "own").mkdir()
    covered = _schemathesis(fuzzed_api, tmp_path / "own", own_fields, CONFIG, "--phases", "coverage",
                            *[f"--include-operation-id={operation_id}" for operation_id in OWN_FIELDS_COVERAGE])
    report = covered.stdout[-6000:] + covered.stderr[-2000:]
    assert covered.returncode == 0, report
    assert "generated" in covered.stdout
    crashes = [line for line in fuzzed_api.output if "unhandled error" in line or "Traceback" in line]
    assert not crashes, "".join(crashes[:5])


def test_an_idempotency_replay_answers_as_the_document_says(fuzzed_api: LocalApi) -> None:
    """The fuzzing above leaves batches out (their items would run long after it); a replay of one is
    checked here against the same document: its 202 schema, after the job has started and after it ended."""
    document = requests.get(fuzzed_api.url + "/v1/openapi.json", timeout=30).json()
    accepted = document["paths"]["/v1/batch"]["post"]["responses"]["202"]["content"]["application/json"]
    validator = jsonschema.Draft202012Validator(
        resolved(accepted["schema"], document["components"]["schemas"], "#/components/schemas/"))
    body = {"operation": "links", "requests": [{"url": get_server().url("/plain.html")}]}
    headers = {"Idempotency-Key": "schemathesis-replay"}
    answers = [fuzzed_api.call("POST", "/v1/batch", json=body, headers=headers)]
    job_id = answers[0].json()["data"]["jobId"]
    wait_until_settled(fuzzed_api, job_id, give_up_s=300)
    answers.append(fuzzed_api.call("POST", "/v1/batch", json=body, headers=headers))
    for answer in answers:
        assert answer.status_code == 202, answer.text
        errors = [error.message for error in validator.iter_errors(answer.json())]
        assert not errors, (answer.text, errors)
    assert answers[1].json()["data"]["jobId"] == job_id and answers[1].json()["creditsCost"] == 0
    assert job(fuzzed_api, job_id)["status"] == "completed"  # the replay said queued: it was accepted so
