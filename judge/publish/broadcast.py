"""A game's mailing list: one function fans a broadcast out to everyone in the game.

``broadcast`` is used for game starts, press broadcasts, master notices and (by the turns
scheduler) results.  Without an external list, every active player, the master and every
observer get their own copy, with ``List-Id`` and ``List-Unsubscribe`` headers so mail
clients file and offer to leave it; nobody sees another member's address.  With ``LIST
address`` set by the master, one copy goes to that list (e.g. an existing Mailman list),
which adds its own list headers.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Collection, Sequence
from urllib.parse import quote as url_quote

from sqlalchemy.orm import Session

from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail, message_bytes
from judge.store.queries import addresses, members
from judge.store.models_game import Game, Membership
from judge.store.models_web import ListMail
from judge.store.schedule import NOW

if TYPE_CHECKING:
    from email.message import EmailMessage

    from judge.publish.signing import FileAttachment


def list_id(game: Game, judge: JudgeSettings) -> str:
    return f"{game.name}.{judge.domain}"


def list_headers(game: Game, judge: JudgeSettings) -> tuple[tuple[str, str], ...]:
    """List-Id (RFC 2919), List-Unsubscribe and List-Post (RFC 2369) for one game's
    broadcasts, written as plain ``<mailto:...>`` values (judge/mailio/outgoing.py never encodes them).

    This List-Unsubscribe (a mail with the commands to fill in) is the game's; as each
    copy leaves, the sender replaces it with that recipient's own one-click links
    (judge.mailauth.unsubscribe).  Posting to the game is mail to the judge (SIGNON,
    then PRESS or BROADCAST).
    """
    body = url_quote(f"SIGNON you@{game.name} password\nRESIGN\n", safe="")
    subject = url_quote(f"leave {game.name}", safe="")
    return (
        ("List-Id", f"Diplomacy game {game.name} <{list_id(game, judge)}>"),
        ("List-Unsubscribe", f"<mailto:{judge.address}?subject={subject}&body={body}>"),
        ("List-Post", f"<mailto:{judge.address}>"),
    )


def list_members(session: Session, game: Game) -> list[Membership]:
    """Who is on the game's list: active players, the master, observers."""
    return members(session, game)


def broadcast(session: Session, game: Game, judge: JudgeSettings, *, subject: str, body: str,
              kind: str, exclude: Collection[str] = (),
              attachments: Sequence["FileAttachment"] = ()) -> list[OutgoingMail]:
    """The mail that sends ``body`` to the game's list.

    ``exclude``: addresses that already got their own version (the sender of a press
    broadcast, players told their power personally); ignored for an external list,
    which cannot leave anyone out.  ``attachments``: files sent with it (commitments,
    the phase record).  Every broadcast is signed by the judge (PGP/MIME) and its
    footer names the judge's key fingerprint (judge/publish/signing.py); the one
    signed body is shared by every copy.
    """
    from judge.publish.signing import broadcast_mime

    body, mime = broadcast_mime(judge, body, attachments)
    _keep_for_archive(session, game, judge, subject=subject, body=body, kind=kind, mime=mime)
    if game.list_address:
        return [OutgoingMail(recipients=(game.list_address,), subject=subject, body=body, kind=kind,
                             game_id=game.id, mime=mime)]
    skipped = {address.lower() for address in exclude}
    headers = list_headers(game, judge)
    return [
        OutgoingMail(recipients=(address,), subject=subject, body=body, kind=kind, game_id=game.id,
                     headers=headers, mime=mime)
        for address in addresses(list_members(session, game))
        if address not in skipped
    ]


def _keep_for_archive(session: Session, game: Game, judge: JudgeSettings, *, subject: str, body: str,
                      kind: str, mime: "EmailMessage | None") -> None:
    """One copy of the broadcast as the list saw it, for the game's web archive (judge/web):
    addressed to the judge, never to a member, its signed body byte for byte."""
    now: datetime = session.info.get(NOW) or datetime.now(timezone.utc)
    copy = OutgoingMail(recipients=(judge.address,), subject=subject, body=body, kind=kind, game_id=game.id,
                        headers=list_headers(game, judge), mime=mime)
    session.add(ListMail(game_id=game.id, kind=kind, subject=subject, raw=message_bytes(copy, judge, now),
                         sent_at=now))


def to_member(game: Game, judge: JudgeSettings, member: Membership, *, subject: str, body: str,
              kind: str) -> OutgoingMail:
    """A mail for one member of a game (press, the power they play), with the list headers."""
    return OutgoingMail(recipients=(member.address,), subject=subject, body=body, kind=kind,
                        game_id=game.id, headers=list_headers(game, judge))
