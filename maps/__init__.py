"""Map files shipped with the judge: ``maps/<name>.map`` -> ``Variant``.

The only place that reads map files; parsing is ``adjudicator.mapdata.parse_map``.
No cache here: callers that load a map often keep the ``Variant`` they got.
"""

from __future__ import annotations

import re
from pathlib import Path

from adjudicator.mapdata import MapError, parse_map
from adjudicator.types import Variant

__all__ = ["MapError", "UnknownMapError", "available", "load"]

_DIRECTORY = Path(__file__).resolve().parent
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")


class UnknownMapError(LookupError):
    """No map file of that name; ``str()`` lists the maps there are."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown map {name!r} (available: {', '.join(available()) or 'none'})")
        self.name = name


def available() -> list[str]:
    """Names of the shipped maps, sorted."""
    return sorted(path.stem for path in _DIRECTORY.glob("*.map"))


def load(name: str = "standard") -> Variant:
    """Read and parse ``maps/<name>.map``; raises UnknownMapError or MapError."""
    text, filename = _read(name)
    return parse_map(text, filename, _read)


def _read(name: str) -> tuple[str, str]:
    """The text and file name of ``maps/<name>.map`` (also for a map's ``base``)."""
    key = name.strip().lower()
    path = _DIRECTORY / f"{key}.map"
    if not _NAME.match(key) or not path.is_file():
        raise UnknownMapError(name)
    return path.read_text(encoding="utf-8-sig"), path.name  # a BOM is not content
