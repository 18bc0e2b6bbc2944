"""Building the archive from the store: one game's files, the index, or everything.

``Archive.refresh`` is what runs after phases and list mail: it reads a small signature of
every game (its row's version, its phases, memberships and list mail) and rebuilds only
the games whose signature changed since the archive was last written (kept in the
archive's ``.built.json``, so a restarted judge, or another judge writing the same
archive, does not start again).  ``Archive.rebuild`` (``judge web build``) writes
everything again.  A game's files: ``games/<name>/index.html``, ``phase/<phase>.html``,
``img/<phase>-<digest>.svg`` (drawn once: the name changes with the record),
``list.html``, ``list.mbox``, ``feed.atom``; a game the archive does not show (private)
has no folder.
"""

from __future__ import annotations

import logging
import mailbox
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import maps
from adjudicator.jsonio import position_from_json
from judge.lifecycle import ENDED, before_start
from judge.store.engine import Store
from judge.store.models_game import Game, Membership, PhaseRecord
from judge.store.models_web import ListMail
from judge.web import pages
from judge.web.files import ArchiveFiles
from judge.web.static_files import STATIC_FILES
from judge.web.views import GameView, PhaseView, game_view, shown
from pictures import draw_svg
from pictures.scene import scene_after

log = logging.getLogger(__name__)

GAMES = "games"


@dataclass
class BuildReport:
    games: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    index: bool = False


def board_svg(game: GameView, phase: PhaseView) -> bytes:
    """The board after ``phase`` with its orders drawn, as the results mail shows it."""
    variant = maps.load(game.map_name)
    after = position_from_json(variant, phase.record.position_after)
    scene = scene_after(variant, phase.phase, after, [dict(r) for r in phase.record.results],
                        title=f"{game.name} {phase.phase}")
    return draw_svg(variant, maps.load_geometry(game.map_name), scene).encode("utf-8")


def list_entries(session: Session, game_id: int) -> list[tuple[pages.ListEntry, bytes]]:
    rows = session.scalars(select(ListMail).where(ListMail.game_id == game_id).order_by(ListMail.id)).all()
    return [(pages.ListEntry(row.id, row.kind, row.subject, row.sent_at, _text_of(row.raw)), row.raw) for row in rows]


def _text_of(raw: bytes) -> str:
    """The readable text of a list mail: its first text/plain part (inside the signature)."""
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    for part in message.walk():
        if part.get_content_type() == "text/plain" and not part.get_filename():
            try:
                return str(part.get_content())
            except (LookupError, ValueError):
                return ""
    return ""


def mbox_bytes(raws: list[bytes]) -> bytes:
    """The messages as one mbox file (written by Python's mailbox, as judge audit reads it)."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "list.mbox"
        box = mailbox.mbox(str(path))
        try:
            for raw in raws:
                box.add(raw)
            box.flush()
        finally:
            box.close()
        return path.read_bytes() if path.exists() else b""


def write_game(session: Session, files: ArchiveFiles, game: Game, domain: str) -> bool:
    """Write (or remove) one game's files; True when the game is shown."""
    folder = f"{GAMES}/{pages.file_name(game.name)}"
    view = game_view(session, game)
    if view is None:
        files.remove_tree(folder)
        return False
    entries = list_entries(session, game.id)
    shown_entries = [entry for entry, _ in entries]
    pictures = {pages.picture_name(phase) for phase in view.phases}
    for phase in view.phases:
        name = pages.picture_name(phase)
        if not files.exists(f"{folder}/{name}"):
            files.write(f"{folder}/{name}", board_svg(view, phase))
    for index, phase in enumerate(view.phases):
        files.write(f"{folder}/{pages.phase_page_name(phase)}", pages.phase_page(view, index))
    files.write(f"{folder}/list.mbox", mbox_bytes([raw for _, raw in entries]))
    files.write(f"{folder}/list.html", pages.list_page(view, shown_entries))
    files.write(f"{folder}/feed.atom", pages.atom_feed(view, shown_entries, domain))
    files.write(f"{folder}/index.html", pages.game_page(view, shown_entries))
    # What a rollback left behind, now that nothing links it.
    pages_now = {pages.phase_page_name(phase).removeprefix("phase/") for phase in view.phases}
    for name in files.listing(f"{folder}/phase"):
        if name not in pages_now:
            files.path(f"{folder}/phase/{name}").unlink(missing_ok=True)
    for name in files.listing(f"{folder}/img"):
        if f"img/{name}" not in pictures:
            files.path(f"{folder}/img/{name}").unlink(missing_ok=True)
    return True


def _group(game: Game) -> str:
    if game.status == ENDED:
        return "finished"
    return "forming" if before_start(game.status) else "running"


def write_index(session: Session, files: ArchiveFiles, now: datetime) -> None:
    rows = [pages.IndexRow(game.name, game.status, game.map_name, game.phase or "", game.deadline,
                           game.status == ENDED, _group(game))
            for game in session.scalars(select(Game).order_by(Game.name)) if shown(game)]
    files.write("index.html", pages.index_page(rows, now))


def write_static(files: ArchiveFiles) -> None:
    for name, data in STATIC_FILES.items():
        target = f"static/{name}"
        if not files.exists(target) or files.path(target).read_bytes() != data:
            files.write(target, data)


def signatures(session: Session) -> dict[str, list[Any]]:
    """game id -> what its pages are built from, in a few grouped reads of the whole store."""
    phases = dict(session.execute(select(PhaseRecord.game_id, func.count(PhaseRecord.id))
                                  .group_by(PhaseRecord.game_id)).all())
    mails = dict(session.execute(select(ListMail.game_id, func.max(ListMail.id))
                                 .group_by(ListMail.game_id)).all())
    members = {game_id: (count, newest) for game_id, count, newest in session.execute(
        select(Membership.game_id, func.count(Membership.id), func.max(Membership.id))
        .group_by(Membership.game_id))}
    return {str(game_id): [version, phases.get(game_id, 0), mails.get(game_id, 0), list(members.get(game_id, (0, 0)))]
            for game_id, version in session.execute(select(Game.id, Game.version))}


class Archive:
    """The web archive of one store, written under ``root``."""

    def __init__(self, store: Store, root: Path, domain: str) -> None:
        self.store = store
        self.files = ArchiveFiles(root)
        self.domain = domain

    def refresh(self, now: datetime | None = None) -> BuildReport:
        """Rebuild the games that changed since the archive was last written, and the index."""
        return self._build(now, everything=False)

    def rebuild(self, now: datetime | None = None) -> BuildReport:
        """Write every game's files and the index again (``judge web build``)."""
        return self._build(now, everything=True)

    def _build(self, now: datetime | None, *, everything: bool) -> BuildReport:
        now = now or datetime.now(timezone.utc)
        report = BuildReport()
        with self.files.locked():
            state = {} if everything else self.files.read_state()
            with self.store.sessions() as session, session.begin():
                current = signatures(session)
                changed = [game_id for game_id, sign in current.items() if state.get(game_id) != sign]
                gone = [game_id for game_id in state if game_id not in current]
                write_static(self.files)
                for game_id in sorted(changed, key=int):
                    game = session.get(Game, int(game_id))
                    if game is None:
                        continue
                    if write_game(session, self.files, game, self.domain):
                        report.games.append(game.name)
                    else:
                        report.removed.append(game.name)
                if changed or gone or everything or not self.files.exists("index.html"):
                    write_index(session, self.files, now)
                    report.index = True
            self.files.write_state(current)
        return report
