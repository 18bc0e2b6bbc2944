"""Lists in pages, each page written again only when what it shows changed.

A page's key is a digest of everything it is rendered from; the keys of the pages written
are kept in the archive's state (judge/web/files.py), and a page is rendered and written
only when its key differs from the kept one or its file is missing.  The index of games
(judge/web/index.py) and the registered players' pages (judge/web/players.py) share this.
"""

from __future__ import annotations

import hashlib
import json
from typing import Callable, Collection, Mapping, Sequence, TypeVar

from judge.web.files import ArchiveFiles

T = TypeVar("T")

#: Rows per page of a list: a page stays small to download and cheap to render.
PAGE_ROWS = 200


def page_count(rows: int) -> int:
    """Pages for ``rows`` rows: at least one (an empty list has its page too)."""
    return max(1, -(-rows // PAGE_ROWS))


def page_rows(rows: Sequence[T], number: int) -> Sequence[T]:
    """The rows of page ``number`` (from 1)."""
    return rows[(number - 1) * PAGE_ROWS:number * PAGE_ROWS]


def page_key(*parts: object) -> str:
    """The digest of what a page is rendered from (values JSON can write)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()


def write_changed(files: ArchiveFiles, keys: Mapping[str, str], written: Mapping[str, str],
                  render: Callable[[str], str]) -> list[str]:
    """Render and write each path of ``keys`` whose key is not the one ``written`` keeps
    for it, or whose file is missing; the paths written."""
    changed = [path for path, key in keys.items() if written.get(path) != key or not files.exists(path)]
    for path in changed:
        files.write(path, render(path))
    return changed


def remove_others(files: ArchiveFiles, folder: str, wanted: Collection[str]) -> None:
    """Remove the files of ``folder`` (its own, not its sub-folders') not among ``wanted``
    (paths from the archive's root)."""
    for name in files.listing(folder):
        path = f"{folder}/{name}"
        if path not in wanted and not files.path(path).is_dir():
            files.path(path).unlink(missing_ok=True)
