"""Who is who during a fair assignment: players named P1, P2, ... (join order, a number kept
for good: judge.store.queries.numbered_players) before they have powers, their registered keys, and the judge's keyring for checking them.

``SIGNON P3@game password`` signs player 3 on while the powers are not yet assigned
(judge/commands/signon.py asks :func:`player_by_number`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterable, Sequence

from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import flag_modified

from judge.config import JudgeSettings
from judge.crypto.gpg import Keyring
from judge.mailio.outgoing import OutgoingMail
from judge.store.queries import numbered_players as joined_in_order
from judge.commands.keys import effective_key
from judge.publish.signing import home_of
from judge.store.models_fair import FairAssignment
from judge.store.models_game import Game, Membership
from judge.store.models_sealed import PlayerKey

_NUMBERED = re.compile(r"^P(?:LAYER)?(\d{1,2})$")


@dataclass
class PassContext:
    """The context of work done outside a mail (deadlines found by the scheduler pass)."""

    session: Session
    now: datetime
    judge: JudgeSettings
    outgoing: list[OutgoingMail] = field(default_factory=list)

    def send(self, mails: Iterable[OutgoingMail]) -> None:
        self.outgoing.extend(mails)


def claim_game(session: Session, game: Game) -> None:
    """Hold ``game`` for a mail that changes its fair assignment, as a scheduler pass claims a
    game: write the game row now, through its optimistic version check (Game.version).

    A pass that closed the same lottery (deadline) since the mail read the game has bumped
    the version, so the flush raises ``StaleDataError``: the worker runs the mail again on
    the new state (judge.store.conflicts), and the lottery is never decided twice.  A pass
    that comes after sees the new version and leaves the game to its next run.  (An ORM
    write, not a bare UPDATE: a refused command's savepoint rollback then expires the game
    and the session's version stays true.)
    """
    flag_modified(game, "status")
    session.flush()


def _labelled(session: Session, game: Game) -> list[tuple[str, Membership]] | None:
    assignment = session.get(FairAssignment, game.id)
    if assignment is None or not assignment.players:
        return None
    rows = []
    for label, member_id in assignment.players:
        member = session.get(Membership, member_id)
        if member is not None:
            rows.append((str(label), member))
    return rows


def numbered_players(session: Session, game: Game) -> list[tuple[str, Membership]]:
    """(label, membership) in player order: the assignment's order once it has begun."""
    labelled = _labelled(session, game)
    if labelled is not None:
        return [(label, member) for label, member in labelled if label.startswith("P")]
    return joined_in_order(session, game)


def numbered_reserves(session: Session, game: Game) -> list[tuple[str, Membership]]:
    """(label R1, R2, ..., membership) of the reserves, once the assignment has begun."""
    return [(label, member) for label, member in _labelled(session, game) or () if label.startswith("R")]


def player_by_number(session: Session, game: Game, token: str) -> Membership | None:
    """The player ``P3`` / ``PLAYER3`` names, while that player has no power yet."""
    match = _NUMBERED.match(token.upper())
    if match is None:
        return None
    wanted = f"P{int(match[1])}"
    for label, member in numbered_players(session, game):
        if label == wanted and member.power is None:
            return member
    return None


def label_for(session: Session, game: Game, member: Membership) -> str | None:
    for label, row in [*numbered_players(session, game), *numbered_reserves(session, game)]:
        if row.id == member.id:
            return label
    return None


def registered_key(session: Session, member: Membership) -> PlayerKey | None:
    """The key that signs for the member (its game key, else its address's key)."""
    return effective_key(session, member)


def judge_keyring(session: Session, judge: JudgeSettings, members: Sequence[Membership]) -> Keyring:
    """The judge's keyring (its GnuPG home) holding the members' registered keys."""
    ring = Keyring(home_of(judge))
    armored = [key.armored for key in (registered_key(session, m) for m in members) if key is not None]
    if armored:
        ring.import_key_bundle("".join(armored))
    return ring
