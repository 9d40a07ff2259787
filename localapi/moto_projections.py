"""moto projects an item by reading only the attributes its ProjectionExpression names.

moto's Item.project turns the whole item into plain JSON once for each path of the expression, then back
into DynamoDB's form: a read of seven small attributes of a crawl's result, whose item also keeps the
page's body inline, converted that body seven times. An incremental re-crawl reads such a projection of
every earlier page (site.crawl_changes.earlier_pages). Real DynamoDB reads what it is asked for. Where every
path is a top-level attribute (no `a.b`, no `a[0]`), the projected item is built from those attributes
alone, in the expression's order, as moto's merge builds it; other expressions keep moto's own projection.
tests/unit/test_moto_projections.py holds the answers to moto's.
"""

from __future__ import annotations

import threading

from moto.dynamodb.models.dynamo_type import Item

_moto_project = Item.project
_lock = threading.Lock()
_patched = False


def _project(self: Item, projection_expressions: list[list[str]]) -> Item:
    if any(len(path) != 1 for path in projection_expressions):
        return _moto_project(self, projection_expressions)
    names = dict.fromkeys(path[0] for path in projection_expressions)
    # The stored values are shared, not copied: the handler answers under the emulator's writes lock
    # (localapi.moto_atomicity), so no write changes them before the answer is written.
    return Item(hash_key=self.hash_key, range_key=self.range_key,
                attrs={name: self.attrs[name] for name in names if name in self.attrs})


def make_projections_read_only_their_attributes() -> None:
    """Project items from the named attributes alone (once per process)."""
    global _patched
    with _lock:
        if not _patched:
            Item.project = _project  # type: ignore[method-assign]
            _patched = True
