"""Keeping the archive current while the judge runs: a thread that looks every
``[web] poll_seconds`` for games whose phases, list mail, row or members changed and
rebuilds their pages (judge/web/build.py).  It reads the store, so it sees what every
process wrote (mail workers, scheduler passes, other hosts) without a hook in their
transactions; a failed build is logged and tried again at the next look."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from judge.config import Settings
from judge.store.engine import Store
from judge.web.build import Archive
from judge.web.server import ArchiveServer

log = logging.getLogger(__name__)


class ArchiveKeeper:
    """The archive's writer thread and, when ``[web] host`` is set, its server."""

    def __init__(self, store: Store, settings: Settings, root: Path) -> None:
        self.archive = Archive(store, root, settings.judge.domain)
        self.poll_seconds = settings.web.poll_seconds
        self.server = ArchiveServer(root, settings.web) if settings.web.host else None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.server is not None:
            self.server.start()
        self._thread = threading.Thread(target=self._run, name="web-archive", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self.server is not None:
            self.server.stop()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                report = self.archive.refresh()
                if report.games or report.removed:
                    log.info("web archive: rebuilt %s%s", ", ".join(report.games) or "nothing",
                             f"; removed {', '.join(report.removed)}" if report.removed else "")
            except Exception:
                log.exception("web archive: the build failed; trying again in %.0f s", self.poll_seconds)
            self._stop.wait(self.poll_seconds)
