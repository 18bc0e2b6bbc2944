"""mailcmds: an email -> the typed commands it carries (pure: standard library only, and
the pure TIMING grammar judge.turns.timing, shared with the services).

    parse_mail(message) -> ParsedMail     # message: EmailMessage, policy=email.policy.default
    parse_text(text, attachments=()) -> ParsedMail

The grammar is documented in mailcmds/grammar.md; mailcmds/help.txt is the page the
judge sends in reply to HELP.  Command classes live in one module per family and are
re-exported here.
"""

from __future__ import annotations

from email.message import Message
from types import ModuleType
from typing import Iterable

from .create import (
    Create,
    DeadlineStatus,
    DescStatus,
    ListStatus,
    MapStatus,
    PrivateStatus,
    RuleStatus,
    StatusLine,
    TimingStatus,
    WitnessStatus,
    ZoneStatus,
)
from .draw import SetConcede, SetDraw, SetNoConcede, SetNoDraw
from .extract import ExtractedMail, extract, extract_text
from .fair import (
    BlindCollected,
    BlindConfirm,
    BlindEchoes,
    BlindedMessage,
    BlindFactor,
    BlindFormat,
    BlindList,
    BlindReceipt,
    BlindShuffle,
    EscrowDeposit,
    EscrowPeel,
    RevealNumber,
    SetPreference,
    ShuffledList,
)
from .info import GetKey, Help, History, ListGames, MapPicture, Summary
from .join import Join, Observe, Resign, Takeover, Unsubscribe
from .master import Dummy, Eject, Form, Pause, Preview, Process, Resume, Revive, Rollback, SeatBot, SetDeadline, Terminate
from .model import MASK, ArmoredBlock, Attachment, Command, LineError, ParsedMail, SourceLine
from .orders import Clear, OrderLines
from .parser import parse_extracted
from .powers import PowerListError, resolve_power, resolve_powers
from .press import Press
from .sealed import Commit, CommitSha256, Reveal, SetKey
from .settings import SetAbsence, SetAddress, SetPassword, SetWait, SetZone
from .signon import Signoff, Signon
from .values import DateSpec


def parse_mail(message: Message) -> ParsedMail:
    """Every command in a mail, its errors and the lines not processed.  Never raises:
    a mail that cannot be read at all gives a ParsedMail with no commands."""
    try:
        extracted = extract(message)
    except Exception as problem:  # a last guard: malformed MIME must never stop the judge
        extracted = ExtractedMail("", "", None, "", (), (), (), "utf-8",
                                  (f"The mail could not be read ({type(problem).__name__}).",))
    return parse_extracted(extracted)


def parse_text(text: str, attachments: Iterable[Attachment] = ()) -> ParsedMail:
    """The same for a body given as text (tests, the web form, replays)."""
    return parse_extracted(extract_text(text, tuple(attachments)))


__all__ = sorted(
    name for name, value in globals().items()
    if not name.startswith("_") and not isinstance(value, ModuleType)
    and name not in ("annotations", "Iterable", "Message", "ModuleType")
)
