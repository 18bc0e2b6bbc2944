"""What every command handler works with: the mail being processed and who is signed on.

One ``MailContext`` lives for one mail, inside the worker's transaction.  Handlers read
and change the store through ``ctx.session``, record what they did with ``ctx.done`` and
refuse with ``raise CommandRefused(...)`` (the dispatcher rolls that command back and
quotes its line in the reply).  Mail for other people (press, broadcasts, start notices)
is added with ``ctx.send``; the one reply to the sender is built from the context at the
end (judge/commands/reply.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Iterable, Protocol

from sqlalchemy.orm import Session

from judge.config import JudgeSettings
from judge.mailio.inbound import CommandRefused, InboundMail
from judge.mailio.outgoing import OutgoingMail
from judge.store.models_game import MASTER, OBSERVER, PLAYER, Game, Membership
from mailcmds import Command, ParsedMail, SourceLine
from mailcmds.model import quote

if TYPE_CHECKING:
    from judge.publish.signing import FileAttachment


@dataclass(frozen=True)
class SignedOn:
    """Who the following lines of a mail speak for (set by SIGNON, JOIN, CREATE, ...).

    ``membership`` is the player's, observer's or master's row in ``game``.
    """

    game: Game
    membership: Membership
    line: int

    @property
    def role(self) -> str:
        return self.membership.role

    @property
    def is_master(self) -> bool:
        return self.membership.role == MASTER

    @property
    def is_player(self) -> bool:
        return self.membership.role == PLAYER

    @property
    def is_observer(self) -> bool:
        return self.membership.role == OBSERVER

    @property
    def power(self) -> str | None:
        return self.membership.power if self.is_player else None

    @property
    def label(self) -> str:
        """How this person is named to others: the power, MASTER, or the observer's name."""
        if self.is_master:
            return "MASTER"
        if self.is_player:
            return self.membership.power or "a player (power not yet assigned)"
        return self.membership.name or "an observer"


@dataclass(frozen=True)
class ReplyLine:
    """One entry of the reply: the (masked) line it is about and what came of it."""

    line_no: int
    text: str
    message: str
    ok: bool


class Ctx(Protocol):
    """What work on a game needs from its caller, in a mail or in a scheduler pass: a mail's
    ``MailContext`` or a pass's ``PassContext`` (commands/fair_players.py)."""

    session: Session
    now: datetime

    @property
    def judge(self) -> JudgeSettings: ...

    def send(self, mails: Iterable[OutgoingMail]) -> None: ...


@dataclass
class MailContext:
    """One mail's commands as they run (or one command from a seat at another door, see
    ``at_seat``): who is signed on, and what the reply and the other mail will say."""

    session: Session
    #: The mail being answered; None for a command that came through another door (DAIDE).
    inbound: InboundMail | None
    now: datetime
    parsed: ParsedMail
    signed_on: SignedOn | None = None
    # The session-opening line that was refused: commands after it are not done.
    failed_signon: SourceLine | None = None
    #: (game, who) of sign-ons refused in this mail: a second try is refused unread.
    refused_signons: set[tuple[str, str]] = field(default_factory=set)
    entries: list[ReplyLine] = field(default_factory=list)
    # Extra blocks of text for the reply (LIST, SUMMARY, HELP output, press copies).
    blocks: list[str] = field(default_factory=list)
    outgoing: list[OutgoingMail] = field(default_factory=list)
    # Files sent with the reply (MAP's pictures): the reply becomes text + attachments.
    attachments: list["FileAttachment"] = field(default_factory=list)
    # Every (game id, membership id) signed on in this mail, in order: the reply shows
    # each one's orders, state and deadline.
    sessions: list[tuple[int, int]] = field(default_factory=list)
    # RESIGN is applied last, and only when nothing in the mail went wrong.
    deferred: list[tuple[Command, "SignedOn | None"]] = field(default_factory=list)
    # Lines (by number) whose preference list the JOIN that filled the game recorded
    # before its assignment began, with their reply text (commands/fair_assign.py).
    fair_early_preferences: dict[int, str] = field(default_factory=dict)
    #: The judge's identity when no mail carries it (``at_seat``).
    door_judge: JudgeSettings | None = None

    @classmethod
    def at_seat(cls, session: Session, judge: JudgeSettings, now: datetime, signed_on: SignedOn) -> MailContext:
        """A context for commands from a seat at another door (a DAIDE connection): signed on
        as the seat's member, with no mail to answer; the dispatcher treats its commands
        exactly as a mail's."""
        address = signed_on.membership.address or ""
        return cls(session=session, inbound=None, now=now, signed_on=signed_on, door_judge=judge,
                   parsed=ParsedMail(sender=address, sender_name="", reply_to=None, subject="", commands=(),
                                     errors=(), unprocessed=()))

    @property
    def mail(self) -> InboundMail:
        """The mail being answered, for what only a mail has (its bytes, its sender's
        verification); a command from another door never reaches such code."""
        if self.inbound is None:
            raise CommandRefused("this command is taken only by mail")
        return self.inbound

    @property
    def judge(self) -> JudgeSettings:
        if self.inbound is not None:
            return self.inbound.judge
        assert self.door_judge is not None, "a context without a mail is made by at_seat"
        return self.door_judge

    @property
    def sender(self) -> str:
        """The address the mail came from (where its reply goes); a seat's own address."""
        if self.inbound is not None:
            return self.inbound.reply_address
        return self.parsed.sender

    @property
    def sender_name(self) -> str:
        return self.parsed.sender_name

    @property
    def has_errors(self) -> bool:
        return bool(self.parsed.errors) or any(not e.ok for e in self.entries)

    # -- recording -------------------------------------------------------------------
    def done(self, command: Command, message: str) -> None:
        self.entries.append(ReplyLine(command.source.number, quote(command.source.text), message, True))

    def failed(self, source: SourceLine, message: str) -> None:
        self.entries.append(ReplyLine(source.number, quote(source.text), message, False))

    def add_block(self, text: str) -> None:
        self.blocks.append(text.rstrip("\n") + "\n")

    def send(self, mails: Iterable[OutgoingMail]) -> None:
        self.outgoing.extend(mails)

    # -- who is signed on ----------------------------------------------------------------
    def sign_on(self, game: Game, membership: Membership, line: int) -> SignedOn:
        self.signed_on = SignedOn(game, membership, line)
        self.failed_signon = None
        key = (game.id, membership.id)
        if key not in self.sessions:
            self.sessions.append(key)
        return self.signed_on

    def require_signon(self) -> SignedOn:
        if self.signed_on is None:
            raise CommandRefused(
                "sign on first: SIGNON power@game password (or JOIN game password, CREATE game password)"
            )
        return self.signed_on

    def require_player(self) -> SignedOn:
        who = self.require_signon()
        if not who.is_player:
            raise CommandRefused(
                f"only a player can do this; you are signed on as {who.label} in game '{who.game.name}'"
            )
        return who

    def require_master(self) -> SignedOn:
        if self.signed_on is None:
            raise CommandRefused("this is the master's command: sign on as the master first, with "
                                 "SIGNON master@game password (or SIGNON Mgame password)")
        who = self.signed_on
        if not who.is_master:
            raise CommandRefused(
                f"only the master of game '{who.game.name}' can do this: SIGNON master@{who.game.name} password first"
            )
        return who
