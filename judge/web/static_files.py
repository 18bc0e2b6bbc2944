"""The archive's style sheet and script (judge/web/static/), as shipped in the package."""

from __future__ import annotations

from importlib.resources import files
from typing import Mapping

STATIC_NAMES = ("site.css", "site.js", "favicon.svg")
STATIC_FILES: Mapping[str, bytes] = {name: files("judge.web").joinpath("static", name).read_bytes()
                                     for name in STATIC_NAMES}
