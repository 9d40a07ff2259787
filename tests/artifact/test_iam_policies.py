"""Least privilege: each function's IAM policy in template.yaml grants exactly the AWS calls its code can
make (tests/artifact/aws_calls.py reads them from the source): nothing missing, nothing extra."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from localapi.cfn_template import load_template
from tests.artifact.aws_calls import JOB_QUEUES, SECRET, CodeBase, UnclearResource, aws_calls
from tests.artifact.harness import REPO_ROOT

TEMPLATE = load_template(REPO_ROOT / "template.yaml")
FUNCTIONS = {name: res for name, res in TEMPLATE["Resources"].items()
             if res["Type"] == "AWS::Serverless::Function"}


def table_indexes() -> dict[str, set[str]]:
    return {name: {index["IndexName"] for index in res["Properties"].get("GlobalSecondaryIndexes", [])}
            for name, res in TEMPLATE["Resources"].items() if res["Type"] == "AWS::DynamoDB::Table"}


def resource_id(resource: Any) -> str:
    """A policy resource as the analysis names it: the logical id, `<Table>/index/<name>`, or "secret"."""
    if isinstance(resource, dict) and "Fn::GetAtt" in resource:
        logical_id, attribute = resource["Fn::GetAtt"]
        assert attribute == "Arn", resource
        return str(logical_id)
    if isinstance(resource, dict) and "Fn::Sub" in resource:
        text = resource["Fn::Sub"]
        if ":secretsmanager:" in text:
            return SECRET
        if distribution := re.fullmatch(r"arn:\$\{AWS::Partition\}:cloudfront::\$\{AWS::AccountId\}:"
                                        r"distribution/\$\{(\w+)\}", text):
            return distribution.group(1)
        if group := re.fullmatch(r"arn:\$\{AWS::Partition\}:scheduler:\$\{AWS::Region\}:\$\{AWS::AccountId\}:"
                                 r"schedule/\$\{(\w+)\}/\*", text):
            return group.group(1)  # the schedules of one group
        match = re.fullmatch(r"\$\{(\w+)\.Arn\}(/index/[\w.-]+|/[\w/*-]*)?", text)
        assert match, f"unexpected resource {text}"
        logical_id, suffix = match.groups()
        return f"{logical_id}{suffix}" if suffix and suffix.startswith("/index/") else logical_id
    raise AssertionError(f"write the resource as !GetAtt X.Arn or !Sub: {resource}")


def statements(policies: list[Any]) -> list[dict[str, Any]]:
    found = []
    for policy in policies:
        assert isinstance(policy, dict) and "Statement" in policy, (
            f"explicit statements only (a SAM policy template hides its actions): {policy}")
        for statement in policy["Statement"]:
            if "Fn::If" in statement:
                # Granted when the condition holds (the AI key's secret is configured).
                found += [branch for branch in statement["Fn::If"][1:] if "Effect" in branch]
            else:
                found.append(statement)
    return found


def granted(function: str) -> set[tuple[str, str]]:
    pairs = set()
    for statement in statements(FUNCTIONS[function]["Properties"].get("Policies", [])):
        assert statement["Effect"] == "Allow"
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        pairs |= {(action, resource_id(resource)) for action in actions for resource in resources}
    return pairs


def needed(function: str) -> set[tuple[str, str]]:
    source = REPO_ROOT / FUNCTIONS[function]["Properties"]["CodeUri"]
    handler = FUNCTIONS[function]["Properties"].get("Handler") or TEMPLATE["Globals"]["Function"]["Handler"]
    module = handler.rsplit(".", 1)[0]
    code = CodeBase(REPO_ROOT / "layers" / "shared")
    return aws_calls(code, module, source / f"{module}.py", table_indexes())


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
def test_policy_grants_exactly_what_the_code_calls(function: str) -> None:
    code, policy = needed(function), granted(function)
    assert not code - policy, f"{function} calls AWS without permission: {sorted(code - policy)}"
    assert not policy - code, f"{function} is granted what its code never calls: {sorted(policy - code)}"


def test_the_analysis_sees_the_calls_we_know_of() -> None:
    """Guards the analysis itself: a few calls read by hand from the code."""
    assert needed("AuthorizerFunction") == {("dynamodb:GetItem", "ApiKeysTable")}
    assert ("dynamodb:Query", "ApiKeysTable/index/byUser") in needed("ApiKeysListFunction")
    assert ("s3:PutObject", "FilesBucket") in needed("ScreenshotFunction")
    assert ("secretsmanager:GetSecretValue", SECRET) in needed("AiExtractFunction")
    assert needed("MethodNotAllowedFunction") == set()
    assert ("cloudfront:CreateInvalidation", "FilesDistribution") in needed("FilesDeleteFunction")
    assert all(("cloudfront:CreateInvalidation", "FilesDistribution") not in needed(name)
               for name in FUNCTIONS if name != "FilesDeleteFunction")
    # Metering, the upstream proxies' secret, the answer cache's objects (maxAge), and a batch's items: the
    # job's claims, results and refunds (one transaction on the jobs and keys tables), results too large for
    # an item in S3, a busy item sent back to the function's own queue, the job's webhook events.
    jobs_items = {("dynamodb:GetItem", "JobsTable"), ("dynamodb:PutItem", "JobsTable"),
                  ("dynamodb:UpdateItem", "JobsTable"), ("sqs:SendMessage", "WebhooksQueue")}
    # A request's profile: its metadata read and its version swapped on a save, its state objects read,
    # written and the replaced one deleted (docs/profiles.md).
    profiles = {("dynamodb:GetItem", "ProfilesTable"), ("dynamodb:UpdateItem", "ProfilesTable"),
                ("s3:DeleteObject", "FilesBucket")}
    browser = {("dynamodb:UpdateItem", "ApiKeysTable"), ("secretsmanager:GetSecretValue", SECRET),
               ("s3:GetObject", "FilesBucket"), ("s3:PutObject", "FilesBucket")} | jobs_items | profiles
    # A monitor's check (docs/monitors.md#checks) on the functions of the operations a monitor runs: the
    # monitor and its checks, the check's job created (the key read when it cannot pay) and its result read.
    checks = {("dynamodb:GetItem", "MonitorsTable"), ("dynamodb:PutItem", "MonitorsTable"),
              ("dynamodb:Query", "MonitorsTable"), ("dynamodb:Query", "JobsTable"),
              ("dynamodb:GetItem", "ApiKeysTable")}
    assert needed("MarkdownFunction") == browser | checks | {("sqs:SendMessage", "MarkdownJobsQueue")}
    assert needed("ContentFunction") == browser | {("sqs:SendMessage", "ContentJobsQueue")}
    # Stores its file the same way; the screenshot function also reads signing secrets (signed links) and
    # hands its monitors' checks to the comparison queue (the markdown function above does not).
    assert (needed("PdfFunction") - {("sqs:SendMessage", "PdfJobsQueue")}
            | {("dynamodb:GetItem", "SigningSecretsTable"), ("sqs:SendMessage", "ScreenshotJobsQueue"),
               ("sqs:SendMessage", "MonitorsCompareQueue")} | checks
            == needed("ScreenshotFunction"))
    # The comparison: the check and its monitor, the job's result read and, when the comparison fails, its
    # refund counted in one transaction with the key's (metering.key_refund_write, an item built in another
    # module); the captures read and the marked one stored as a file; the monitor's webhook events.
    assert needed("MonitorsCompareFunction") == {
        ("dynamodb:GetItem", "MonitorsTable"), ("dynamodb:PutItem", "MonitorsTable"),
        ("dynamodb:Query", "MonitorsTable"), ("dynamodb:GetItem", "JobsTable"), ("dynamodb:Query", "JobsTable"),
        ("dynamodb:UpdateItem", "JobsTable"), ("dynamodb:UpdateItem", "ApiKeysTable"),
        ("dynamodb:GetItem", "FilesTable"), ("dynamodb:PutItem", "FilesTable"), ("s3:GetObject", "FilesBucket"),
        ("s3:PutObject", "FilesBucket"), ("s3:DeleteObject", "FilesBucket"), ("sqs:SendMessage", "WebhooksQueue")}
    assert ("s3:DeleteObject", "FilesBucket") in needed("FilesDeleteFunction")
    # A batch reserves its credits on the key and creates its job in one transaction, then queues its items
    # on its operation's queue, any of them; it sends no webhook itself.
    batch = needed("BatchFunction")
    assert {("dynamodb:UpdateItem", "ApiKeysTable"), ("dynamodb:PutItem", "JobsTable")} <= batch
    assert {queue for action, queue in batch if action == "sqs:SendMessage"} == set(JOB_QUEUES.values())
    # The webhooks function reads the job and records its deliveries; a failed delivery's next attempt is
    # a delayed message on its own queue.
    assert needed("WebhooksFunction") == jobs_items
    # Status and results: the job's items by query, large results from S3; a cancel that settles the job
    # at once sends its job.cancelled event, and queues nothing else.
    jobs = needed("JobsFunction")
    assert {("dynamodb:GetItem", "JobsTable"), ("dynamodb:Query", "JobsTable"), ("s3:GetObject", "FilesBucket")} <= jobs
    assert {queue for action, queue in jobs if action.startswith("sqs:")} == {"WebhooksQueue"}
    # The profile routes: metadata and the per-user count (transactions), imported states written; a state
    # is never read back.
    assert needed("ProfilesFunction") == {
        ("dynamodb:UpdateItem", "ApiKeysTable"), ("dynamodb:GetItem", "ProfilesTable"),
        ("dynamodb:PutItem", "ProfilesTable"), ("dynamodb:UpdateItem", "ProfilesTable"),
        ("dynamodb:DeleteItem", "ProfilesTable"), ("dynamodb:Query", "ProfilesTable"),
        ("s3:PutObject", "FilesBucket"), ("s3:DeleteObject", "FilesBucket")}
    assert ("dynamodb:GetItem", "ProfilesTable") in needed("BatchFunction")
    # The monitor routes: monitors and the per-user count (transactions), the profile a request names, and
    # the schedules of the stack's group, created and changed with the scheduler's role; `run` queues a
    # check on the work queue of an operation a monitor runs, and a check's large data is read from S3.
    assert needed("MonitorsFunction") == {
        ("sqs:SendMessage", "ScreenshotJobsQueue"), ("sqs:SendMessage", "MarkdownJobsQueue"),
        ("sqs:SendMessage", "AiExtractJobsQueue"), ("s3:GetObject", "FilesBucket"),
        ("dynamodb:UpdateItem", "ApiKeysTable"), ("dynamodb:GetItem", "MonitorsTable"),
        ("dynamodb:PutItem", "MonitorsTable"), ("dynamodb:UpdateItem", "MonitorsTable"),
        ("dynamodb:DeleteItem", "MonitorsTable"), ("dynamodb:Query", "MonitorsTable"),
        ("dynamodb:GetItem", "ProfilesTable"), ("scheduler:CreateSchedule", "MonitorsScheduleGroup"),
        ("scheduler:UpdateSchedule", "MonitorsScheduleGroup"), ("scheduler:DeleteSchedule", "MonitorsScheduleGroup"),
        ("iam:PassRole", "MonitorsSchedulerRole")}
    assert needed("SigningSecretFunction") >= {("dynamodb:GetItem", "SigningSecretsTable"),
                                               ("dynamodb:PutItem", "SigningSecretsTable")}
    # A function that runs no batch items never reaches the job store or the queues.
    for name in ("ApiKeysListFunction", "FilesDeleteFunction", "MapFunction", "SigningSecretFunction",
                 "DocsFunction"):
        assert all(resource != "JobsTable" and not action.startswith("sqs:")
                   for action, resource in needed(name)), name


def test_each_transaction_item_is_charged_on_its_own_table(tmp_path: Path) -> None:
    package = tmp_path / "webcapture"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "store.py").write_text(
        "def _keys():\n    return get_settings().api_keys_table\n"
        "def _charge():\n    return {'Update': {'TableName': _keys(), 'Key': {}}}\n"
        "def create():\n    jobs = get_settings().jobs_table\n"
        "    dynamodb_client().transact_write_items(TransactItems=[\n"
        "        {'Put': {'TableName': jobs, 'Item': {}}}, _charge()])\n"
        "def mystery(name):\n    dynamodb_client().transact_write_items(TransactItems=[\n"
        "        {'Delete': {'TableName': name, 'Key': {}}}])\n")
    handler = tmp_path / "app.py"
    handler.write_text("from webcapture.store import create\n\ndef lambda_handler(event, context):\n"
                       "    return create()\n")
    assert aws_calls(CodeBase(tmp_path), "app", handler, {}) == {
        ("dynamodb:PutItem", "JobsTable"), ("dynamodb:UpdateItem", "ApiKeysTable")}
    handler.write_text("from webcapture.store import mystery\n\ndef lambda_handler(event, context):\n"
                       "    return mystery('t')\n")
    with pytest.raises(UnclearResource, match="cannot name: name"):
        aws_calls(CodeBase(tmp_path), "app", handler, {})


def test_a_transaction_item_built_in_another_module_is_charged(tmp_path: Path) -> None:
    package = tmp_path / "webcapture"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "refunds.py").write_text(
        "def refund_write(key):\n    return {'Update': {'TableName': get_settings().api_keys_table, 'Key': key}}\n")
    (package / "store.py").write_text(
        "from webcapture.refunds import refund_write\n"
        "def fail(key):\n    writes = [{'Put': {'TableName': get_settings().jobs_table, 'Item': {}}}]\n"
        "    writes.append(refund_write(key))\n    transact_with_key_refund(writes, refund_last=True)\n")
    handler = tmp_path / "app.py"
    handler.write_text("from webcapture.store import fail\n\ndef lambda_handler(event, context):\n"
                       "    return fail('k')\n")
    assert aws_calls(CodeBase(tmp_path), "app", handler, {}) == {
        ("dynamodb:PutItem", "JobsTable"), ("dynamodb:UpdateItem", "ApiKeysTable")}


def test_a_worker_sends_only_to_its_own_work_queue(tmp_path: Path) -> None:
    package = tmp_path / "webcapture"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "queues.py").write_text(
        "def url(operation):\n    return dict(get_settings().job_queues)[operation]\n"
        "def send(operation):\n    sqs_client().send_message(QueueUrl=url(operation))\n"
        "def event():\n    sqs_client().send_message(QueueUrl=get_settings().webhooks_queue)\n")
    (package / "worker.py").write_text(
        "from webcapture.queues import send\n\nclass ItemRunner:\n"
        "    def handle(self):\n        send(self.operation)\n")
    handler = tmp_path / "app.py"
    handler.write_text("from webcapture.worker import ItemRunner\nfrom webcapture.queues import event\n"
                       "lambda_handler = ItemRunner(Operation.LINKS, None)\nevent()\n")
    assert aws_calls(CodeBase(tmp_path), "app", handler, {}) == {
        ("sqs:SendMessage", "LinksJobsQueue"), ("sqs:SendMessage", "WebhooksQueue")}
    # The same send outside the worker (a batch's submission) may name any operation.
    handler.write_text("from webcapture.queues import send\n\ndef lambda_handler(event, context):\n"
                       "    send(event['operation'])\n")
    assert aws_calls(CodeBase(tmp_path), "app", handler, {}) == {
        ("sqs:SendMessage", queue) for queue in JOB_QUEUES.values()}


def test_the_analysis_reads_all_of_webcapture() -> None:
    # A module the analysis cannot parse would hide its calls; parse them all.
    code = CodeBase(REPO_ROOT / "layers" / "shared")
    for path in sorted((REPO_ROOT / "layers" / "shared" / "webcapture").rglob("*.py")):
        relative = path.relative_to(REPO_ROOT / "layers" / "shared").with_suffix("")
        name = ".".join(relative.parts[:-1] if relative.name == "__init__" else relative.parts)
        assert code.module(name) is not None, path


def test_the_analysis_follows_calls_not_imports(tmp_path: Path) -> None:
    package = tmp_path / "webcapture"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "store.py").write_text(
        "USER_INDEX = 'byUser'\n"
        "def _table():\n    return dynamodb_table(get_settings().api_keys_table)\n"
        "def used(user):\n    return _table().query(IndexName=USER_INDEX)\n"
        "def unused():\n    _table().delete_item(Key={})\n"
        "def bucket():\n    s3_client().put_object(Bucket=get_settings().files_bucket)\n")
    (package / "ops.py").write_text("from webcapture import store\n\ndef run():\n    return store.used('u')\n")
    handler = tmp_path / "app.py"
    handler.write_text("from webcapture.ops import run as go\n\ndef lambda_handler(event, context):\n"
                       "    return go()\n")
    calls = aws_calls(CodeBase(tmp_path), "app", handler, {"ApiKeysTable": {"byUser"}})
    assert calls == {("dynamodb:Query", "ApiKeysTable/index/byUser")}
