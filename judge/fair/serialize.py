"""The fair-assignment values as JSON-ready data, so the commands can store a run between
emails: ``from_data(to_data(value)) == value`` for every state, contest and message here.

Only the classes of ``judge.fair`` are rebuilt; tuples come back as tuples."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from judge.fair import assignment, blind, blind_messages, blind_protocol, lottery, preferences

_MODULES = (assignment, blind, blind_messages, blind_protocol, lottery, preferences)
_CLASSES: dict[str, type] = {
    name: value
    for module in _MODULES
    for name, value in vars(module).items()
    if isinstance(value, type)
    and value.__module__ == module.__name__
    and (dataclasses.is_dataclass(value) or issubclass(value, enum.Enum))
}


def to_data(value: Any) -> Any:
    """Dataclasses, enums, ranges, frozensets and tuples of ``judge.fair`` as plain JSON data."""
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if isinstance(value, enum.Enum):
        return {"enum": type(value).__name__, "value": value.value}
    if isinstance(value, range):
        return {"range": [value.start, value.stop]}
    if isinstance(value, frozenset):
        return {"frozenset": sorted(to_data(item) for item in value)}
    if isinstance(value, tuple):
        return [to_data(item) for item in value]
    if dataclasses.is_dataclass(value) and type(value).__name__ in _CLASSES:
        fields = {field.name: to_data(getattr(value, field.name)) for field in dataclasses.fields(value)}
        return {"type": type(value).__name__, "fields": fields}
    raise TypeError(f"cannot store {type(value).__name__} {value!r}")


def from_data(data: Any) -> Any:
    """The value :func:`to_data` was given."""
    if data is None or isinstance(data, (str, int, bool)):
        return data
    if isinstance(data, list):
        return tuple(from_data(item) for item in data)
    if isinstance(data, dict):
        if "enum" in data:
            return _known(data["enum"])(data["value"])
        if "range" in data:
            return range(*data["range"])
        if "frozenset" in data:
            return frozenset(from_data(item) for item in data["frozenset"])
        if "type" in data:
            fields = {name: from_data(item) for name, item in data["fields"].items()}
            return _known(data["type"])(**fields)
    raise ValueError(f"not stored fair-assignment data: {data!r}")


def _known(name: str) -> type:
    if name not in _CLASSES:
        raise ValueError(f"unknown stored type {name!r}")
    return _CLASSES[name]
