"""The index of games, in pages: ``index.html`` shows each group's first page (running,
forming, finished) and links the rest, ``index/<group>-<n>.html``.

A page is written again only when the rows it shows changed (each page's key, a digest of
its rows, is kept in the archive's ``.index.json``), so a new phase of one game rewrites
the one page that lists it, whatever the number of games; a new or removed game shifts
the pages after it in its group.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.lifecycle import ENDED, PREPARATION, before_start
from judge.store.models_game import Game
from judge.web import pages
from judge.web.files import ArchiveFiles

#: Games per index page: a page stays small to download and cheap to render.
PAGE_ROWS = 200
#: The groups in the order the index shows them, with their headings.
GROUPS = (("running", "Running"), ("forming", "Forming"), ("finished", "Finished"))
FOLDER = "index"
KEYS_NAME = ".index.json"


def group_of(status: str) -> str:
    if status == ENDED:
        return "finished"
    return "forming" if before_start(status) else "running"


def index_rows(session: Session) -> list[pages.IndexRow]:
    """Every game the archive shows, by name: the five columns alone (loading whole rows
    would read every game's position too)."""
    listed = session.execute(select(Game.name, Game.status, Game.map_name, Game.phase, Game.deadline)
                             .where(Game.private.is_(False), Game.status != PREPARATION).order_by(Game.name))
    return [pages.IndexRow(name, status, map_name, phase or "", deadline, status == ENDED, group_of(status))
            for name, status, map_name, phase, deadline in listed]


def page_path(group: str, number: int) -> str:
    return "index.html" if number == 1 else f"{FOLDER}/{group}-{number}.html"


def layout(rows: list[pages.IndexRow]) -> dict[str, pages.IndexPage]:
    """The pages of the index (path -> page) for ``rows``."""
    grouped = {group: [row for row in rows if row.group == group] for group, _ in GROUPS}
    counts = {group: max(1, -(-len(found) // PAGE_ROWS)) for group, found in grouped.items()}
    shown: dict[str, pages.IndexPage] = {}

    def section(group: str, heading: str, number: int) -> pages.IndexSection:
        found = grouped[group]
        links = tuple((n, page_path(group, n)) for n in range(1, counts[group] + 1))
        return pages.IndexSection(group, heading, len(found),
                                  tuple(found[(number - 1) * PAGE_ROWS:number * PAGE_ROWS]), number, links)

    shown["index.html"] = pages.IndexPage("", tuple(section(group, heading, 1) for group, heading in GROUPS))
    for group, heading in GROUPS:
        for number in range(2, counts[group] + 1):
            shown[page_path(group, number)] = pages.IndexPage("../", (section(group, heading, number),))
    return shown


def page_key(page: pages.IndexPage) -> str:
    return hashlib.sha256(repr(page).encode("utf-8")).hexdigest()


def write_index(session: Session, files: ArchiveFiles, now: datetime, *, everything: bool = False) -> list[str]:
    """Write the index pages whose rows changed (every page with ``everything``) and
    remove the pages no longer needed; the paths written."""
    written = {} if everything else files.read_state(KEYS_NAME)
    wanted = layout(index_rows(session))
    keys = {path: page_key(page) for path, page in wanted.items()}
    changed = [path for path, key in keys.items() if written.get(path) != key or not files.exists(path)]
    for path in changed:
        files.write(path, pages.index_page(wanted[path], now))
    for name in files.listing(FOLDER):
        if f"{FOLDER}/{name}" not in wanted:
            files.path(f"{FOLDER}/{name}").unlink(missing_ok=True)
    files.write_state(keys, KEYS_NAME)
    return changed
