"""Writing the archive's files so that no reader and no other judge sees half of one.

Every file is written beside its final name and renamed over it (``os.replace`` is atomic
on one file system), so a web server serves the old file or the new one.  A game's files
are written in an order that keeps every link good: its pictures and phase pages first,
then the game page that links them, then the index.  Several judges on one database may
write one archive: each holds ``.lock`` (flock) while it reads the store and writes, so
the last writer wrote from the newest state and two never interleave their files.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

LOCK_NAME = ".lock"
STATE_NAME = ".built.json"


class ArchiveFiles:
    """The archive under ``root``: atomic writes, the writers' lock, what was built."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the archive's write lock (blocking until another writer is done)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / LOCK_NAME, "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def path(self, relative: str) -> Path:
        target = (self.root / relative).resolve()
        if not target.is_relative_to(self.root.resolve()):
            raise ValueError(f"{relative!r} is outside the archive")
        return target

    def exists(self, relative: str) -> bool:
        return self.path(relative).exists()

    def write(self, relative: str, data: bytes | str) -> None:
        """Replace ``relative`` with ``data`` in one step (readable by everyone)."""
        target = self.path(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        payload = data.encode("utf-8") if isinstance(data, str) else data
        handle, partial = tempfile.mkstemp(dir=target.parent, prefix=".partial-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(payload)
            os.chmod(partial, 0o644)
            os.replace(partial, target)
        except BaseException:
            Path(partial).unlink(missing_ok=True)
            raise

    def remove_tree(self, relative: str) -> None:
        """Remove a folder: renamed away first, so a reader never finds it half removed."""
        target = self.path(relative)
        if not target.exists():
            return
        doomed = target.with_name(f".removed-{target.name}-{os.getpid()}")
        os.replace(target, doomed)
        shutil.rmtree(doomed, ignore_errors=True)

    def listing(self, relative: str) -> list[str]:
        folder = self.path(relative)
        return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []

    def read_state(self, name: str = STATE_NAME) -> dict[str, Any]:
        """What the last writer built: in ``.built.json``, game id -> the signature its
        pages were built from; in a game's ``.pages.json``, phase -> its page's key
        (judge/web/build.py); in ``.index.json``, the index's rows and its pages' keys
        (judge/web/index.py).  A file unreadable or of another form reads as nothing built."""
        try:
            state = json.loads(self.path(name).read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return state if isinstance(state, dict) else {}

    def write_state(self, state: dict[str, Any], name: str = STATE_NAME) -> None:
        self.write(name, json.dumps(state, sort_keys=True))
