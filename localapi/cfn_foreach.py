"""`Fn::ForEach` expanded as the AWS::LanguageExtensions transform does, for everything that reads
template.yaml here (the local API, the unit and artefact tests, the size and build scripts).

CloudFormation replaces every `${Identifier}` (and `&{Identifier}`, alphanumerics only) in a loop's keys
and values with each item of its collection. After that, a `Fn::Sub` with nothing left to substitute is its
string, and a `Fn::FindInMap` of literal keys is the mapping's value: the forms the rest of the template
writes directly (`Ref: Name`, `GetAtt: [Name, Attribute]`, a number), so readers need no second path.
"""

from __future__ import annotations

import re
from typing import Any

FOR_EACH = "Fn::ForEach::"


def expand_for_each(template: dict[str, Any]) -> dict[str, Any]:
    """`template` with the loops of its Resources written out, one resource per item."""
    if "Resources" in template:
        template["Resources"] = _expanded(template["Resources"], template.get("Mappings", {}), looped=False)
    return template


def _expanded(section: dict[str, Any], mappings: dict[str, Any], *, looped: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in section.items():
        if key.startswith(FOR_EACH):
            identifier, collection, fragment = value
            for item in collection:
                out.update(_expanded(_replaced(fragment, identifier, str(item)), mappings, looped=True))
        else:
            out[key] = _collapsed(value, mappings) if looped else value
    return out


def _replaced(node: Any, identifier: str, item: str) -> Any:
    if isinstance(node, str):
        plain = re.sub(r"[^0-9A-Za-z]", "", item)
        return node.replace("${" + identifier + "}", item).replace("&{" + identifier + "}", plain)
    if isinstance(node, list):
        return [_replaced(element, identifier, item) for element in node]
    if isinstance(node, dict):
        if node == {"Ref": identifier}:
            return item
        return {_replaced(k, identifier, item): _replaced(v, identifier, item) for k, v in node.items()}
    return node


def _collapsed(node: Any, mappings: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_collapsed(element, mappings) for element in node]
    if not isinstance(node, dict):
        return node
    node = {k: _collapsed(v, mappings) for k, v in node.items()}
    sub = node.get("Fn::Sub")
    if len(node) == 1 and isinstance(sub, str) and "${" not in sub:
        return sub
    found = node.get("Fn::FindInMap")
    if len(node) == 1 and isinstance(found, list) and all(isinstance(part, str) for part in found):
        name, first, second = found
        return mappings[name][first][second]
    return node
