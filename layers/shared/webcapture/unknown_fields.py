"""Fields a request sent that its model does not know, at any depth, each with the closest known name.

Unknown fields are not an error (clients written for the original service send some), but a misspelt
`fullpage` silently answering a full page is worse than a refusal: the answer names each one in its warning
(docs/api.md#unknown-fields).
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Iterator, Sequence
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

Path = tuple[str | int, ...]


def render_path(path: Sequence[str | int]) -> str:
    """A field's path as a reader writes it: `screenshotOptions.fullPage`, `requests[0].url`."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _known_names(model: type[BaseModel]) -> dict[str, Any]:
    """Every name the model accepts (its field names and their aliases), with the field's annotation."""
    names: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        names[name] = info.annotation
        for alias in (info.alias, info.validation_alias):
            if isinstance(alias, str):
                names[alias] = info.annotation
    return names


def _public_names(model: type[BaseModel]) -> list[str]:
    """The names documented for callers (the alias where a field has one)."""
    return [info.alias if isinstance(info.alias, str) else name for name, info in model.model_fields.items()]


def _closest(name: str, candidates: list[str]) -> str | None:
    by_case = {candidate.lower(): candidate for candidate in candidates}
    if name.lower() in by_case:  # `fullpage`, `FullPage`: a different case only
        return by_case[name.lower()]
    found = difflib.get_close_matches(name.lower(), list(by_case), n=1, cutoff=0.6)
    return by_case[found[0]] if found else None


def _members(annotation: Any) -> list[Any]:
    """The types an annotation admits: Annotated unwrapped, a union's members."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _members(get_args(annotation)[0])
    if origin is Union or isinstance(annotation, types.UnionType):
        return [member for arg in get_args(annotation) for member in _members(arg)]
    return [annotation]


def _unknown(annotation: Any, value: Any, path: Path) -> Iterator[tuple[Path, type[BaseModel]]]:
    walks = [list(_walk(member, value, path)) for member in _members(annotation)]
    walks = [walk for walk in walks if walk != [None]]
    if walks:  # of a union's models, the one the value fits best (a tagged action by its own fields)
        yield from min(walks, key=len)


def _walk(annotation: Any, value: Any, path: Path) -> Iterator[Any]:
    """(unknown path, the model it was sent to) pairs; a lone None when the annotation cannot describe the
    value."""
    origin = get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if not isinstance(value, dict):
            yield None
            return
        known = _known_names(annotation)
        for key, item in value.items():
            if not isinstance(key, str):
                continue
            if key in known:
                yield from _unknown(known[key], item, (*path, key))
            else:
                yield (*path, key), annotation
    elif origin in (list, tuple, Sequence):
        if not isinstance(value, list):
            yield None
            return
        args = [arg for arg in get_args(annotation) if arg is not Ellipsis]
        for index, item in enumerate(value):
            if args:
                yield from _unknown(args[min(index, len(args) - 1)], item, (*path, index))
    elif origin is dict:
        if not isinstance(value, dict):
            yield None
            return
        key_and_value = get_args(annotation)
        for key, item in value.items():
            if len(key_and_value) == 2:
                yield from _unknown(key_and_value[1], item, (*path, key))
    elif annotation is not Any and isinstance(value, dict | list):
        yield None  # a scalar's type (or None) does not describe an object or an array


def _nested_fields(model: type[BaseModel], path: Path, depth: int = 3) -> Iterator[Path]:
    """The paths of the fields of `model`'s nested objects (not through arrays), a few levels deep."""
    if depth == 0:
        return
    for name, info in model.model_fields.items():
        public = info.alias if isinstance(info.alias, str) else name
        for member in _members(info.annotation):
            if isinstance(member, type) and issubclass(member, BaseModel):
                yield from ((*path, public, inner) for inner in _public_names(member))
                yield from _nested_fields(member, (*path, public), depth - 1)


def _suggestion(model: type[BaseModel], path: Path, root: type[BaseModel], prefix: Path) -> Path | None:
    """The closest name of the same object; at the top level, else a nested field of the same name
    (`fullPage` sent beside `url` belongs in `screenshotOptions`)."""
    parent, key = path[:-1], str(path[-1])
    names = _public_names(model)
    same_case = [name for name in names if name.lower() == key.lower()]
    if same_case:
        return (*parent, same_case[0])
    if parent == prefix and model is root:
        nested = next((nested for nested in _nested_fields(root, prefix)
                       if str(nested[-1]).lower() == key.lower()), None)
        if nested is not None:
            return nested
    closest = _closest(key, names)
    return (*parent, closest) if closest is not None else None


def unknown_field_warnings(model: type[BaseModel], payload: Any, prefix: Path = ()) -> list[str]:
    """One warning per unknown field of `payload` read as `model`, e.g. "ignored unknown field 'fullpage'
    (did you mean 'fullPage'?)"."""
    return [_warning(unknown, _suggestion(owner, unknown, model, prefix))
            for unknown, owner in _unknown(model, payload, prefix)]


def unknown_field_warning(name: str, known: Sequence[str]) -> str:
    """The warning for a top-level field of a body read by hand (not by a model)."""
    closest = _closest(name, list(known))
    return _warning((name,), (closest,) if closest else None)


def _warning(unknown: Path, suggestion: Path | None) -> str:
    text = f"ignored unknown field '{render_path(unknown)}'"
    return text + (f" (did you mean '{render_path(suggestion)}'?)" if suggestion is not None else "")
