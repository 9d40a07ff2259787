"""Which AWS API calls a function's code can make, read statically from the source.

From the handler module, follow every reference (names, `module.attribute`, re-exports through package
__init__ files, imports inside functions) to the top-level functions and classes of webcapture it can reach,
and collect the boto3 operations they call (`.put_item(`, `.query(`, `.put_object(`, ...) and Powertools'
SecretsProvider (GetSecretValue). Each call is tied to the resource it names: the table whose settings field
(`api_keys_table`, `files_table`) the calling function, or a helper of its own module it calls, reads; the
index whose name it passes to a query; the bucket for S3; the queue for SQS. A DynamoDB transaction is
charged item by item: each `{"Put": {"TableName": ...}}` (Update, Delete, ConditionCheck, Get) names its
own table, through a settings field, a local variable or a helper of the module returning one. The work
queues (`job_queues`) are one per operation: a handler that runs items (`ItemRunner(Operation.X, ...)`)
sends back to its own operation's queue what the item worker sends; any other send on them (the batch
submission) may go to any operation's queue. It follows functions, not whole modules, so the authorizer,
which imports the key store to read one key, is not charged with the CLI's writes.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ACTIONS = {
    "get_item": "dynamodb:GetItem", "put_item": "dynamodb:PutItem", "update_item": "dynamodb:UpdateItem",
    "delete_item": "dynamodb:DeleteItem", "query": "dynamodb:Query", "scan": "dynamodb:Scan",
    "batch_get_item": "dynamodb:BatchGetItem", "batch_write_item": "dynamodb:BatchWriteItem",
    "get_object": "s3:GetObject", "head_object": "s3:GetObject", "put_object": "s3:PutObject",
    "upload_fileobj": "s3:PutObject", "delete_object": "s3:DeleteObject", "delete_objects": "s3:DeleteObject",
    "list_objects_v2": "s3:ListBucket", "get_secret_value": "secretsmanager:GetSecretValue",
    "create_invalidation": "cloudfront:CreateInvalidation",
    "send_message": "sqs:SendMessage", "send_message_batch": "sqs:SendMessage",
    "delete_message": "sqs:DeleteMessage", "delete_message_batch": "sqs:DeleteMessage",
    "change_message_visibility": "sqs:ChangeMessageVisibility",
    "change_message_visibility_batch": "sqs:ChangeMessageVisibility",
    "receive_message": "sqs:ReceiveMessage", "get_queue_url": "sqs:GetQueueUrl",
    "create_schedule": "scheduler:CreateSchedule", "update_schedule": "scheduler:UpdateSchedule",
    "delete_schedule": "scheduler:DeleteSchedule", "get_schedule": "scheduler:GetSchedule",
}
# A schedule is created or changed with the role it sends with: that is iam:PassRole on the role.
PASSES_ROLE = {"scheduler:CreateSchedule", "scheduler:UpdateSchedule"}
# Transactions: each item's kind is its action, on the table the item names.
TRANSACTIONS = {"transact_write_items", "transact_get_items"}
# Functions that run a transaction their caller builds: the items are read in each caller's code.
TRANSACTION_RUNNERS = {"transact_with_key_refund"}
TRANSACTION_ITEMS = {"Put": "dynamodb:PutItem", "Update": "dynamodb:UpdateItem", "Delete": "dynamodb:DeleteItem",
                     "ConditionCheck": "dynamodb:ConditionCheckItem", "Get": "dynamodb:GetItem"}
# Powertools' SecretsProvider(...).get(name) is GetSecretValue under the hood.
CONSTRUCTORS = {"SecretsProvider": "secretsmanager:GetSecretValue"}
# Settings fields that name a resource of the template.
TABLES = {"api_keys_table": "ApiKeysTable", "files_table": "FilesTable",
          "signing_secrets_table": "SigningSecretsTable", "jobs_table": "JobsTable",
          "profiles_table": "ProfilesTable", "monitors_table": "MonitorsTable"}
BUCKETS = {"files_bucket": "FilesBucket"}
QUEUES = {"webhooks_queue": "WebhooksQueue", "crawl_queue": "CrawlJobsQueue",
          "monitor_compare_queue": "MonitorsCompareQueue"}
JOB_QUEUES_FIELD = "job_queues"  # (operation, URL) of every operation's work queue
# Operation members (webcapture.credits.Operation) whose batch items have a work queue.
JOB_QUEUES = {"SCREENSHOT": "ScreenshotJobsQueue", "LINKS": "LinksJobsQueue", "AI_EXTRACT": "AiExtractJobsQueue",
              "MARKDOWN": "MarkdownJobsQueue", "CONTENT": "ContentJobsQueue", "PDF": "PdfJobsQueue"}
# (operation, URL) of the work queues of the operations a monitor runs: a check queued by `run`.
MONITOR_QUEUES_FIELD = "monitor_queues"
MONITOR_QUEUES = {"ScreenshotJobsQueue", "MarkdownJobsQueue", "AiExtractJobsQueue"}
ITEM_RUNNER = "ItemRunner"
DISTRIBUTIONS = {"files_distribution_id": "FilesDistribution"}
SCHEDULE_GROUPS = {"monitors_schedule_group": "MonitorsScheduleGroup"}
ROLES = {"monitors_scheduler_role_arn": "MonitorsSchedulerRole"}
SECRET = "secret"
PACKAGE = "webcapture"


class UnclearResource(AssertionError):
    """A call whose resource the analysis cannot name: make the code say which table it uses."""


@dataclass
class Node:
    module: str
    name: str  # a top-level function or class, or "<module>" for the module's own statements
    tree: ast.AST
    refs: set[tuple[str, str]] = field(default_factory=set)  # (module or alias, attribute or name)
    calls: set[str] = field(default_factory=set)  # method names called
    fields: set[str] = field(default_factory=set)  # attribute names read
    strings: set[str] = field(default_factory=set)  # string literals and module constants referenced


@dataclass
class Module:
    name: str
    imports: dict[str, tuple[str, str | None]]  # alias -> (module, name or None for `import x`)
    defs: dict[str, Node]
    constants: dict[str, str]


class CodeBase:
    def __init__(self, package_root: Path) -> None:
        self.package_root = package_root  # the folder holding the webcapture package
        self.modules: dict[str, Module] = {}

    def module(self, name: str, path: Path | None = None) -> Module | None:
        if name in self.modules:
            return self.modules[name]
        path = path or self._path_of(name)
        if path is None:
            return None
        self.modules[name] = parsed = _parse(name, path)
        return parsed

    def _path_of(self, name: str) -> Path | None:
        if name != PACKAGE and not name.startswith(PACKAGE + "."):
            return None
        base = self.package_root.joinpath(*name.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    def resolve(self, module_name: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()) -> Node | None:
        """The node `name` means in `module_name`, following re-exports and submodules."""
        if (module_name, name) in seen:
            return None
        module = self.module(module_name)
        if module is None:
            return None
        if name in module.defs:
            return module.defs[name]
        if name in module.imports:
            target, attribute = module.imports[name]
            if attribute is None:
                return self._module_node(target)
            return self.resolve(target, attribute, seen | {(module_name, name)}) or self._module_node(
                f"{target}.{attribute}")
        return self._module_node(f"{module_name}.{name}")

    def _module_node(self, name: str) -> Node | None:
        module = self.module(name)
        return module.defs["<module>"] if module else None


def _parse(name: str, path: Path) -> Module:
    tree = ast.parse(path.read_text(), filename=str(path))
    imports: dict[str, tuple[str, str | None]] = {}
    for node in ast.walk(tree):  # imports inside functions count too
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = (alias.name, None)
                else:
                    imports[alias.name.split(".")[0]] = (alias.name.split(".")[0], None)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                imports[alias.asname or alias.name] = (node.module, alias.name)
    constants = {}
    body_statements = []
    defs: dict[str, Node] = {}
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defs[statement.name] = Node(name, statement.name, statement)
            continue
        body_statements.append(statement)
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)):
            constants[statement.targets[0].id] = statement.value.value
    defs["<module>"] = Node(name, "<module>", ast.Module(body=body_statements, type_ignores=[]))
    module = Module(name, imports, defs, constants)
    for node in defs.values():
        _scan(node, module)
    return module


def _annotations(tree: ast.AST) -> set[int]:
    """The nodes of the functions' parameter and return annotations: types, never run as calls."""
    found: set[int] = set()
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = function.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                     *(a for a in (arguments.vararg, arguments.kwarg) if a is not None)]
            for annotation in [a.annotation for a in every] + [function.returns]:
                if annotation is not None:
                    found |= {id(part) for part in ast.walk(annotation)}
    return found


def _scan(node: Node, module: Module) -> None:
    skipped = _annotations(node.tree)
    for child in ast.walk(node.tree):
        if id(child) in skipped:
            continue
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            node.refs.add((module.name, child.id))
            if child.id in module.constants:
                node.strings.add(module.constants[child.id])
        elif isinstance(child, ast.Attribute):
            node.fields.add(child.attr)
            if isinstance(child.value, ast.Name) and child.value.id in module.imports:
                target, attribute = module.imports[child.value.id]
                node.refs.add((f"{target}.{attribute}" if attribute else target, child.attr))
        elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
            node.calls.add(child.func.attr)
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            node.strings.add(child.value)


def reachable(code: CodeBase, handler_module: str, handler_path: Path) -> list[Node]:
    """Every node a handler module can reach: its own code first, then what it references."""
    root = code.module(handler_module, handler_path)
    assert root is not None
    return _reachable_from(code, list(root.defs.values()))


def _reachable_from(code: CodeBase, roots: list[Node]) -> list[Node]:
    queue = deque(roots)
    seen: dict[tuple[str, str], Node] = {}
    while queue:
        node = queue.popleft()
        if (node.module, node.name) in seen:
            continue
        seen[(node.module, node.name)] = node
        if node.name != "<module>":
            queue.append(code.modules[node.module].defs["<module>"])  # importing runs the module body
        for module_name, name in node.refs:
            if module_name == node.module and name in code.modules[node.module].imports:
                target, attribute = code.modules[node.module].imports[name]
                found = code.resolve(target, attribute) if attribute else code._module_node(target)
            else:
                found = code.resolve(module_name, name)
            if found is not None:
                queue.append(found)
    return list(seen.values())


def _same_module_helpers(code: CodeBase, node: Node) -> list[Node]:
    module = code.modules[node.module]
    found, queue = [node], [node]
    while queue:
        current = queue.pop()
        for module_name, name in current.refs:
            helper = module.defs.get(name) if module_name == node.module else None
            if helper is not None and helper not in found:
                found.append(helper)
                queue.append(helper)
    return found


def aws_calls(code: CodeBase, handler_module: str, handler_path: Path,
              indexes: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(IAM action, resource) pairs the handler's code can call; resources are template logical ids,
    `<Table>/index/<name>` for a query on an index, or "secret" for the AI key's secret."""
    needed: set[tuple[str, str]] = set()
    nodes = reachable(code, handler_module, handler_path)
    queues = _job_queues(code, handler_module, handler_path)
    for node in nodes:
        runs_one = any(name in TRANSACTION_RUNNERS for _, name in node.refs)
        if node.name not in TRANSACTION_RUNNERS and (node.calls & TRANSACTIONS or runs_one):
            needed |= _transaction_items(code, node)
        actions = [ACTIONS[call] for call in node.calls if call in ACTIONS]
        actions += [action for cls, action in CONSTRUCTORS.items() if (node.module, cls) in node.refs]
        if not actions:
            continue
        helpers = _same_module_helpers(code, node)
        fields = set().union(*(h.fields for h in helpers))
        strings = set().union(*(h.strings for h in helpers))
        for action in actions:
            if action.startswith("sqs:") and MONITOR_QUEUES_FIELD in fields:
                needed |= {(action, queue) for queue in MONITOR_QUEUES}
            elif action.startswith("sqs:") and JOB_QUEUES_FIELD in fields:
                if QUEUES.keys() & fields:
                    raise UnclearResource(f"{node.module}.{node.name} calls {action} on a work queue and "
                                          f"{sorted(QUEUES.keys() & fields)}")
                needed |= {(action, queue) for queue in queues(node)}
            else:
                needed.add((action, _resource(action, fields, strings, indexes, node)))
            if action in PASSES_ROLE:
                needed.add(("iam:PassRole", _resource("iam:PassRole", fields, strings, indexes, node)))
    return needed


def _job_queues(code: CodeBase, handler_module: str, handler_path: Path) -> Callable[[Node], set[str]]:
    """Which work queues a send reading `job_queues` can reach: the handler's own operations' queues for
    the item worker's sends (it sends an item back to the queue of its runner's operation), every queue
    for any other (a batch names its operation)."""
    module = code.module(handler_module, handler_path)
    assert module is not None
    own: set[str] = set()
    runner_module = None
    for node in module.defs.values():
        for call in ast.walk(node.tree):
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == ITEM_RUNNER
                    and call.args and isinstance(call.args[0], ast.Attribute)):
                if call.args[0].attr not in JOB_QUEUES:
                    raise UnclearResource(f"{handler_module} runs items of {call.args[0].attr}, "
                                          "which has no work queue")
                own.add(JOB_QUEUES[call.args[0].attr])
                runner = code.resolve(handler_module, ITEM_RUNNER)
                runner_module = runner.module if runner else None
    worker_nodes: set[tuple[str, str]] = set()
    if runner_module is not None:
        worker = code.module(runner_module)
        assert worker is not None and worker.defs
        worker_nodes = {(n.module, n.name) for n in _reachable_from(code, list(worker.defs.values()))}

    def queues(node: Node) -> set[str]:
        if own and (node.module, node.name) in worker_nodes:
            return own
        return set(JOB_QUEUES.values())

    return queues


def _item_builders(code: CodeBase, helpers: list[Node]) -> list[Node]:
    """Functions of other modules the helpers call that build a transaction item without running a
    transaction themselves (metering.key_refund_write): their items are the caller's transaction's."""
    found = []
    for helper in helpers:
        for module_name, name in helper.refs:
            module = code.modules[helper.module]
            if module_name == helper.module and name in module.imports:
                target, attribute = module.imports[name]
                builder = code.resolve(target, attribute) if attribute else None
            else:
                builder = code.resolve(module_name, name)
            if (builder is not None and builder.module != helper.module and builder.name != "<module>"
                    and not builder.calls & TRANSACTIONS and builder.name not in TRANSACTION_RUNNERS
                    and not any(ref in TRANSACTION_RUNNERS for _, ref in builder.refs)
                    and builder not in found):
                found.append(builder)
    return found


def _transaction_items(code: CodeBase, node: Node) -> set[tuple[str, str]]:
    """(action, table) of each item a transaction in `node` (or a helper of its module it calls, or a
    function of another module they call that builds an item) builds."""
    found = set()
    helpers = _same_module_helpers(code, node)
    for helper in helpers + _item_builders(code, helpers):
        for child in ast.walk(helper.tree):
            if not isinstance(child, ast.Dict):
                continue
            for key, value in zip(child.keys, child.values, strict=True):
                if not (isinstance(key, ast.Constant) and key.value in TRANSACTION_ITEMS
                        and isinstance(value, ast.Dict)):
                    continue
                for inner_key, inner_value in zip(value.keys, value.values, strict=True):
                    if isinstance(inner_key, ast.Constant) and inner_key.value == "TableName":
                        table = _table_of(code, helper, inner_value, f"{node.module}.{node.name}")
                        found.add((TRANSACTION_ITEMS[key.value], table))
    if not found:
        raise UnclearResource(f"{node.module}.{node.name} runs a transaction whose items the analysis cannot see")
    return found


def _table_of(code: CodeBase, helper: Node, expression: ast.expr, where: str, depth: int = 0) -> str:
    """The table an item's `TableName` expression names: `get_settings().<x>_table`, a local variable
    assigned one, or a call of a function of the module returning one."""
    module = code.modules[helper.module]
    if depth < 5:
        if isinstance(expression, ast.Attribute) and expression.attr in TABLES:
            return TABLES[expression.attr]
        if isinstance(expression, ast.Name):
            values = [statement.value for statement in ast.walk(helper.tree)
                      if isinstance(statement, ast.Assign) and len(statement.targets) == 1
                      and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == expression.id]
            tables = {_table_of(code, helper, value, where, depth + 1) for value in values}
            if len(tables) == 1:
                return tables.pop()
        if (isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name)
                and expression.func.id in module.defs):
            function = module.defs[expression.func.id]
            returns = [r.value for r in ast.walk(function.tree) if isinstance(r, ast.Return) and r.value]
            tables = {_table_of(code, function, value, where, depth + 1) for value in returns}
            if len(tables) == 1:
                return tables.pop()
    raise UnclearResource(f"{where} writes a transaction item on a table the analysis cannot name: "
                          f"{ast.unparse(expression)}")


def _resource(action: str, fields: set[str], strings: set[str], indexes: dict[str, set[str]],
              node: Node) -> str:
    where = f"{node.module}.{node.name}"
    if action.startswith("secretsmanager:"):
        return SECRET
    pool = (TABLES if action.startswith("dynamodb:") else DISTRIBUTIONS if action.startswith("cloudfront:")
            else QUEUES if action.startswith("sqs:") else SCHEDULE_GROUPS if action.startswith("scheduler:")
            else ROLES if action.startswith("iam:") else BUCKETS)
    named = {pool[f] for f in fields if f in pool}
    if len(named) != 1:
        raise UnclearResource(f"{where} calls {action} on {sorted(named) or 'an unnamed resource'}")
    (resource,) = named
    if action == "dynamodb:Query":
        used = sorted(strings & indexes.get(resource, set()))
        if len(used) > 1:
            raise UnclearResource(f"{where} queries several indexes of {resource}: {used}")
        if used:
            return f"{resource}/index/{used[0]}"
    return resource
