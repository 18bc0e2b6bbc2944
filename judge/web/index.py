"""The index of games, in pages: ``index.html`` shows each group's first page (running,
forming, finished) and links the rest, ``index/<group>-<n>.html``.

A page is written again only when the rows it shows changed (each page's key, a digest of
its rows, is kept in the archive's ``.index.json``), so a new phase of one game rewrites
the one page that lists it, whatever the number of games; a new or removed game shifts
the pages after it in its group.
"""

from __future__ import annotations

from datetime import datetime
from typing import Collection

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.lifecycle import ENDED, PREPARATION, before_start
from judge.store.models_game import Game
from judge.web import pages
from judge.web.files import ArchiveFiles
from judge.web.paging import page_count, page_key, page_rows, remove_others, write_changed
#: The groups in the order the index shows them, with their headings.
GROUPS = (("running", "Running"), ("forming", "Forming"), ("finished", "Finished"))
FOLDER = "index"
KEYS_NAME = ".index.json"


def group_of(status: str) -> str:
    if status == ENDED:
        return "finished"
    return "forming" if before_start(status) else "running"


def _shown_rows(session: Session, games: Collection[int] | None) -> dict[str, list[str]]:
    """game id -> its row as stored (name, status, map, phase, deadline in ISO form), for
    ``games`` (every game when None) that the index shows; the columns alone (loading whole
    rows would read every game's position too)."""
    query = (select(Game.id, Game.name, Game.status, Game.map_name, Game.phase, Game.deadline)
             .where(Game.private.is_(False), Game.status != PREPARATION))
    ids = None if games is None else sorted(games)
    found: dict[str, list[str]] = {}
    for start in range(0, 1 if ids is None else len(ids), 500):
        chunk = query if ids is None else query.where(Game.id.in_(ids[start:start + 500]))
        for game_id, name, status, map_name, phase, deadline in session.execute(chunk):
            found[str(game_id)] = [name, status, map_name, phase or "", pages.iso(deadline)]
    return found


def _row(stored: list[str]) -> pages.IndexRow:
    name, status, map_name, phase, deadline = stored
    return pages.IndexRow(name, status, map_name, phase, datetime.fromisoformat(deadline) if deadline else None,
                          status == ENDED, group_of(status))


def page_path(group: str, number: int) -> str:
    return "index.html" if number == 1 else f"{FOLDER}/{group}-{number}.html"


def layout(rows: list[list[str]]) -> dict[str, tuple[str, tuple[tuple[str, str, int, list[list[str]], int], ...]]]:
    """The pages of the index for ``rows`` (stored rows in name order): path -> (the path
    back to the root, its sections: group, heading, the group's count, the page's rows,
    the group's pages)."""
    grouped: dict[str, list[list[str]]] = {group: [] for group, _ in GROUPS}
    for row in rows:
        grouped[group_of(row[1])].append(row)
    counts = {group: page_count(len(found)) for group, found in grouped.items()}

    def section(group: str, heading: str, number: int) -> tuple[str, str, int, list[list[str]], int]:
        found = grouped[group]
        return group, heading, len(found), list(page_rows(found, number)), counts[group]

    shown = {"index.html": ("", tuple(section(group, heading, 1) for group, heading in GROUPS))}
    for group, heading in GROUPS:
        for number in range(2, counts[group] + 1):
            shown[page_path(group, number)] = ("../", (section(group, heading, number),))
    return shown


def _page(path: str, base: str, sections: tuple[tuple[str, str, int, list[list[str]], int], ...]) -> pages.IndexPage:
    def number(group: str) -> int:
        return 1 if path == "index.html" else int(path.rsplit("-", 1)[1].removesuffix(".html"))

    return pages.IndexPage(base, tuple(
        pages.IndexSection(group, heading, count, tuple(_row(row) for row in rows), number(group),
                           tuple((n, page_path(group, n)) for n in range(1, pages_in_group + 1)))
        for group, heading, count, rows, pages_in_group in sections))


def _same_place(old: list[str] | None, new: list[str] | None) -> bool:
    """Whether a game's change leaves every other row where it was (same name and group,
    or listed neither before nor after)."""
    if old is None or new is None:
        return old is new
    return old[0] == new[0] and group_of(old[1]) == group_of(new[1])


def write_index(session: Session, files: ArchiveFiles, now: datetime, games: Collection[int] | None,
                key: str | None = None) -> list[str]:
    """Bring the index up to date after ``games`` changed or went (None: every game read
    again and every page written); the paths written.  The rows of the other games come
    from the summary the last writer kept (``.index.json``), so the store is read for the
    changed games alone, and only the pages whose rows changed are rendered.  ``key``: the
    judge key's fingerprint, named on every page."""
    state = {} if games is None else files.read_state(KEYS_NAME)
    if "rows" not in state:  # no summary yet (a new archive, or one written before it was kept)
        games = None
    rows: dict[str, list[str]] = dict(state.get("rows", {}))
    before = {str(game_id): rows.pop(str(game_id), None) for game_id in games or ()}
    rows.update(_shown_rows(session, games))
    written: dict[str, str] = state.get("pages", {})
    wanted = layout(sorted(rows.values()))
    # When no game came, went or changed group, only the pages listing a changed game can differ.
    same_places = games is not None and set(wanted) == set(written) and all(
        _same_place(old, rows.get(game_id)) for game_id, old in before.items())
    names = {rows[game_id][0] for game_id in before if game_id in rows}
    keys = dict(written) if same_places else {}
    for path, (base, sections) in wanted.items():
        if not same_places or any(row[0] in names for section in sections for row in section[3]):
            keys[path] = page_key(key, base, sections)
    changed = write_changed(files, keys, written, lambda path: pages.index_page(_page(path, *wanted[path]), now, key))
    remove_others(files, FOLDER, wanted)
    files.write_state({"rows": rows, "pages": keys}, KEYS_NAME)
    return changed
