"""Building the archive from the store: one game's files, the index, or everything.

``Archive.refresh`` is what runs after phases and list mail: it reads a small signature of
every game (its row's version, its phases, memberships and list mail) and rebuilds only
the games whose signature changed since the archive was last written (kept in the
archive's ``.built.json``, so a restarted judge, or another judge writing the same
archive, does not start again).  ``Archive.rebuild`` (``judge web build``) writes
everything again.  A game's files: ``games/<name>/index.html``, ``phase/<phase>.html``,
``img/<phase>-<digest>.svg`` (drawn once: the name changes with the record),
``list.html``, ``list.mbox``, ``feed.atom``; a game the archive does not show (private)
has no folder.  The registered players' pages and the ratings page: judge/web/players.py.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from functools import lru_cache
from datetime import datetime, timezone
from email import message_from_bytes, policy
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from adjudicator.jsonio import position_from_json
from judge.store.engine import Store
from judge.store.models_game import Game, Membership, PhaseRecord
from judge.store.models_hosts import JudgeKeyRecord
from judge.store.models_web import ListMail
from judge.web import pages
from judge.web.files import ArchiveFiles
from judge.web.index import write_index
from judge.web.players import write_players
from judge.web.static_files import STATIC_FILES
from judge.web.views import GameView, PhaseView, game_view, variant
from pictures import draw_svg
from pictures.scene import scene_after

log = logging.getLogger(__name__)

GAMES = "games"
#: The judge's public key in the archive's root (README "Web archive").
KEY_FILE = "judge-key.asc"
#: In a game's folder: the keys of its phase pages as last written.
PAGE_KEYS = ".pages.json"
_FROM_LINE = re.compile(rb"^From ", re.MULTILINE)


@dataclass
class BuildReport:
    games: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    index: list[str] = field(default_factory=list)  # the index pages written
    players: list[str] = field(default_factory=list)  # the player and ratings pages written


def board_svg(game: GameView, phase: PhaseView) -> bytes:
    """The board after ``phase`` with its orders drawn, as the results mail shows it."""
    board = variant(game.map_name)
    after = position_from_json(board, phase.record.position_after)
    scene = scene_after(board, phase.phase, after, [dict(r) for r in phase.record.results],
                        title=f"{game.name} {phase.phase}")
    return draw_svg(board, pages.geometry(game.map_name), scene).encode("utf-8")


def list_entries(session: Session, game_id: int) -> list[tuple[pages.ListEntry, bytes]]:
    rows = session.scalars(select(ListMail).where(ListMail.game_id == game_id).order_by(ListMail.id)).all()
    return [(pages.ListEntry(row.id, row.kind, row.subject, row.sent_at, _text_of(row.raw)), row.raw) for row in rows]


@lru_cache(maxsize=4096)  # a list mail never changes: each is read once per process
def _text_of(raw: bytes) -> str:
    """The readable text of a list mail: its first text/plain part (inside the signature)."""
    message = message_from_bytes(raw, policy=policy.compat32)  # headers unparsed: 10 times faster
    for part in message.walk():
        if part.get_content_type() == "text/plain" and not part.get_filename():
            payload = part.get_payload(decode=True)
            if not isinstance(payload, bytes):
                return ""
            try:
                return payload.decode(part.get_content_charset() or "utf-8", "replace")
            except LookupError:
                return payload.decode("utf-8", "replace")
    return ""


def mbox_bytes(mails: list[tuple[datetime, bytes]]) -> bytes:
    """The messages as one mbox file, as Python's mailbox writes one (and judge audit
    reads it): a ``From`` line with the date, the message with line starts of ``From ``
    quoted (a signed part never has one: judge/crypto/pgpmime.py encodes it), a blank line."""
    out = []
    for sent_at, raw in mails:
        body = _FROM_LINE.sub(b">From ", raw.replace(b"\r\n", b"\n"))
        stamp = time.asctime(sent_at.astimezone(timezone.utc).timetuple()).encode()
        out += [b"From MAILER-DAEMON ", stamp, b"\n", body, b"" if body.endswith(b"\n") else b"\n", b"\n"]
    return b"".join(out)


def write_game(session: Session, files: ArchiveFiles, game: Game, domain: str, key: str | None = None,
               *, everything: bool = False) -> bool:
    """Write (or remove) one game's files; whether the archive shows the game.

    The keys of its phase pages as last written (phase -> digest and neighbours) are kept
    in the game's folder (``.pages.json``); a page whose key is unchanged and whose file
    exists is not written again (unless ``everything``), so a new phase costs its own page
    and its predecessor's (which gains a next link).  ``key``: the judge key's
    fingerprint, shown on the game page (None: none recorded)."""
    folder = f"{GAMES}/{pages.file_name(game.name)}"
    view = game_view(session, game)
    if view is None:
        files.remove_tree(folder)
        return False
    written = {} if everything else files.read_state(f"{folder}/{PAGE_KEYS}")
    entries = list_entries(session, game.id)
    shown_entries = [entry for entry, _ in entries]
    pictures = {pages.picture_name(phase) for phase in view.phases}
    for phase in view.phases:
        name = pages.picture_name(phase)
        if not files.exists(f"{folder}/{name}"):
            files.write(f"{folder}/{name}", board_svg(view, phase))
    keys: dict[str, str] = {}
    for index, phase in enumerate(view.phases):
        neighbours = [p.phase for p in view.phases[max(0, index - 1):index + 2]]
        keys[phase.phase] = " ".join([phase.digest, phase.processed_at.isoformat(), *neighbours])
        page = f"{folder}/{pages.phase_page_name(phase)}"
        if written.get(phase.phase) != keys[phase.phase] or not files.exists(page):
            files.write(page, pages.phase_page(view, index))
    files.write(f"{folder}/list.mbox", mbox_bytes([(entry.sent_at, raw) for entry, raw in entries]))
    files.write(f"{folder}/list.html", pages.list_page(view, shown_entries))
    files.write(f"{folder}/feed.atom", pages.atom_feed(view, shown_entries, domain))
    files.write(f"{folder}/index.html", pages.game_page(view, shown_entries, key))
    # What a rollback left behind, now that nothing links it.
    pages_now = {pages.phase_page_name(phase).removeprefix("phase/") for phase in view.phases}
    for name in files.listing(f"{folder}/phase"):
        if name not in pages_now:
            files.path(f"{folder}/phase/{name}").unlink(missing_ok=True)
    for name in files.listing(f"{folder}/img"):
        if f"img/{name}" not in pictures:
            files.path(f"{folder}/img/{name}").unlink(missing_ok=True)
    files.write_state(keys, f"{folder}/{PAGE_KEYS}")
    return True


def write_static(files: ArchiveFiles) -> None:
    for name, data in STATIC_FILES.items():
        target = f"static/{name}"
        if not files.exists(target) or files.path(target).read_bytes() != data:
            files.write(target, data)


@dataclass(frozen=True)
class JudgeKey:
    fingerprint: str
    public_key: str  # ASCII-armoured


def judge_key(session: Session) -> JudgeKey | None:
    """The judge's key as the database records it (judge/daemon/keyrecord.py writes the one
    row), or None before the first ``judge serve``."""
    row = session.execute(select(JudgeKeyRecord.fingerprint, JudgeKeyRecord.public_key)
                          .order_by(JudgeKeyRecord.id).limit(1)).first()
    return None if row is None else JudgeKey(row.fingerprint, row.public_key)


def write_judge_key(files: ArchiveFiles, key: JudgeKey | None) -> bool:
    """Publish the judge's public key as ``judge-key.asc`` (what ``judge audit
    --judge-key`` takes); whether it changed, so every page naming its fingerprint is
    written again.  Without a recorded key (no ``judge serve`` has run on the database yet)
    nothing is published and the pages name no key."""
    if key is None:
        return False
    if files.exists(KEY_FILE) and files.path(KEY_FILE).read_text("ascii", "replace") == key.public_key:
        return False
    files.write(KEY_FILE, key.public_key)
    return True


def signatures(session: Session) -> dict[str, str]:
    """game id -> what its pages are built from (the row's version, its phases, newest list
    mail, members and newest member), in a few grouped reads of the whole store."""
    connection = session.connection()  # plain rows: no ORM work per game
    phases = dict(connection.execute(select(PhaseRecord.game_id, func.count(PhaseRecord.id))
                                     .group_by(PhaseRecord.game_id)).all())
    mails = dict(connection.execute(select(ListMail.game_id, func.max(ListMail.id))
                                    .group_by(ListMail.game_id)).all())
    members = {game_id: f"{count}.{newest}" for game_id, count, newest in connection.execute(
        select(Membership.game_id, func.count(Membership.id), func.max(Membership.id))
        .group_by(Membership.game_id))}
    return {str(game_id): f"{version}.{phases.get(game_id, 0)}.{mails.get(game_id, 0)}.{members.get(game_id, '0.0')}"
            for game_id, version in connection.execute(select(Game.id, Game.version))}


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
            with self.store.sessions() as session, session.begin():
                key = judge_key(session)
                fingerprint = key.fingerprint if key is not None else None
                everything = write_judge_key(self.files, key) or everything
                state = {} if everything else self.files.read_state()  # game id -> signature
                current = signatures(session)
                changed = [game_id for game_id, sign in current.items() if state.get(game_id) != sign]
                gone = [game_id for game_id in state if game_id not in current]
                write_static(self.files)
                report.players, relinked = write_players(session, self.files, fingerprint, everything=everything)
                changed = sorted(set(changed) | {str(game_id) for game_id in relinked if str(game_id) in current})
                new_state = {game_id: state[game_id] for game_id in current if game_id in state}
                for game_id in sorted(changed, key=int):
                    game = session.get(Game, int(game_id))
                    if game is None:
                        continue
                    shown = write_game(session, self.files, game, self.domain, fingerprint, everything=everything)
                    (report.games if shown else report.removed).append(game.name)
                    new_state[game_id] = current[game_id]
                if changed or gone or everything:
                    report.index = write_index(session, self.files, now,
                                               None if everything else {int(i) for i in changed + gone},
                                               fingerprint)
            self.files.write_state(new_state)
        return report
