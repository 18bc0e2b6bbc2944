"""Bounces: a mail to one of the judge's VERP return paths (judge.mailauth.verp) is tied
to the outgoing mail and address its token names, checked by its keyed hash (a forged
or altered token, or one naming an address that mail never went to, does nothing).  Its
delivery status report (RFC 3464) is read by flufl.bounce, GNU Mailman's parser: a
temporary failure (4.x.x, "delayed") is kept but not counted; a permanent one, or a
bounce whose report it cannot read, counts.  After ``bounce_limit`` bounces within
``bounce_window_days`` the address is unreachable: the master of each game it plays in
is told, and no mail goes to it (judge/edge/smtp_out.py) until mail comes from it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.util import identity_key

from judge.config import MailSettings
from judge.mailio.inbound import InboundMail
from judge.mailauth.keystore import token_key_in
from judge.mailauth.verp import ReturnPaths
from judge.mailio.outgoing import OutgoingMail
from judge.store.models_game import MASTER, MEMBER_ACTIVE, Game, Membership
from judge.store.models_mail import OutboxMessage
from judge.store.models_mailauth import MailBounce, UnreachableAddress


@dataclass(frozen=True)
class BouncePolicy:
    limit: int = 3
    window: timedelta = timedelta(days=14)


_policy = BouncePolicy()


def configure_bounces(mail: MailSettings) -> None:
    """The daemon's ``[mail] bounce_limit`` and ``bounce_window_days`` (as configure_ports)."""
    global _policy
    _policy = BouncePolicy(mail.bounce_limit, timedelta(days=mail.bounce_window_days))


def is_bounce_for_us(inbound: InboundMail) -> bool:
    """Mail to one of our return paths (whatever its envelope sender)."""
    return ReturnPaths(b"", inbound.judge.address).token_in(_recipients(inbound)) is not None


def _recipients(inbound: InboundMail) -> list[str]:
    """Where the mail was sent: the envelope (SMTP), else what the last relay recorded."""
    found = list(inbound.rcpt_to)
    for name in ("Delivered-To", "X-Original-To", "To"):
        try:
            found += [str(v) for v in inbound.message.get_all(name, [])]
        except Exception:  # a header too malformed to read names nobody
            continue
    return found


def _from_a_mail_system(inbound: InboundMail) -> bool:
    """A bounce, not a person's or a robot's answer sent to the return path (an
    out-of-office reply goes there too, and says nothing of the address): a null envelope
    sender, a delivery report, or MAILER-DAEMON / postmaster writing."""
    message = inbound.message
    try:
        return_path = str(message.get("Return-Path", "") or "").strip()
        report = message.get_content_type() == "multipart/report"
        sender = str(message.get("From", "") or "").lower()
    except Exception:  # unreadable headers: judge by the envelope alone
        return_path, report, sender = "", False, ""
    return (inbound.mail_from == "" or return_path == "<>" or report
            or "mailer-daemon@" in sender or "postmaster@" in sender)


def handle_bounce(session: Session, inbound: InboundMail, now: datetime) -> list[OutgoingMail]:
    """Record the bounce ``inbound`` is; the notices to masters when its address became
    unreachable.  Nothing for a forged or unknown token, nor for mail that is no bounce."""
    if not _from_a_mail_system(inbound):
        return []
    key = token_key_in(session)
    token = ReturnPaths(key or b"", inbound.judge.address).token_in(_recipients(inbound))
    if key is None or token is None:
        return []
    row = session.get(OutboxMessage, token.number)
    address = next((r for r in (row.recipients if row else []) if token.names(key, r)), None)
    if row is None or address is None:
        return []  # not a mail we sent to that address: a forgery, or a guess
    address = address.lower()
    permanent = _permanent(inbound)
    session.add(MailBounce(address=address, outbox_id=row.id, inbound_id=inbound.inbound_id,
                           permanent=permanent, bounced_at=now))
    session.flush()
    if not permanent or session.get(UnreachableAddress, address) is not None:
        return []
    count = session.scalar(select(func.count()).select_from(MailBounce).where(
        MailBounce.address == address, MailBounce.permanent.is_(True), MailBounce.bounced_at > now - _policy.window))
    if (count or 0) < _policy.limit:
        return []
    session.add(UnreachableAddress(address=address, since=now, bounces=count or 0))
    return _tell_masters(session, address, count or 0, inbound)


def _permanent(inbound: InboundMail) -> bool:
    """A permanent failure: the report says so, or there is no report it can read."""
    import flufl.bounce

    try:
        temporary, permanent = flufl.bounce.all_failures(inbound.message)  # in that order
    except Exception:  # a report the parser chokes on is still a bounce
        return True
    return bool(permanent) or not temporary


def _tell_masters(session: Session, address: str, count: int, inbound: InboundMail) -> list[OutgoingMail]:
    members = session.execute(select(Membership, Game).join(Game, Membership.game_id == Game.id).where(
        func.lower(Membership.address) == address, Membership.status == MEMBER_ACTIVE)).all()
    notices = []
    days = _policy.window.days
    for member, game in members:
        master = session.execute(select(Membership.address).where(
            Membership.game_id == game.id, Membership.role == MASTER, Membership.status == MEMBER_ACTIVE)).scalar()
        if master is None or master.lower() == address:
            continue
        who = member.power or member.name or "a player"
        notices.append(OutgoingMail(
            recipients=(master,), kind="master_notice", game_id=game.id,
            subject=f"{game.name}: mail to {who} bounces",
            body=(f"Mail to the player of {who} in game '{game.name}' bounced {count} times in {days} days.\n"
                  "The judge writes no more to that address until mail comes from it again; the player\n"
                  "may change it with SET ADDRESS.  You may want to find them another way, or\n"
                  "replace them (EJECT, then a TAKEOVER).\n")))
    return notices


# Built once, run on the session's connection: every mail a player sends runs it, and an
# ORM delete (with its session synchronisation) cost several times the statement.
_CLEAR_UNREACHABLE = delete(UnreachableAddress).where(UnreachableAddress.address == bindparam("address"))


def clear_unreachable(session: Session, address: str) -> None:
    """Mail came from ``address``: write to it again."""
    if not address:
        return
    address = address.lower()
    if session.connection().execute(_CLEAR_UNREACHABLE, {"address": address}).rowcount:
        # As the ORM's delete would: a row this session holds is gone (a batch's next bounce
        # for the address must find it unmarked).
        held = session.identity_map.get(identity_key(UnreachableAddress, address))
        if held is not None:
            session.expunge(held)


def unreachable_among(session: Session, addresses: list[str]) -> set[str]:
    wanted = {a.lower() for a in addresses}
    if not wanted:
        return set()
    return set(session.execute(select(UnreachableAddress.address).where(
        UnreachableAddress.address.in_(wanted))).scalars())
