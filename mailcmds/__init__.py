"""mailcmds: an email -> the typed commands it carries (pure: standard library only, and
the pure TIMING grammar judge.turns.timing, shared with the commands).

    parse_mail(message, verbs) -> ParsedMail     # message: EmailMessage, policy=email.policy.default
    parse_text(text, verbs, attachments=()) -> ParsedMail

These are the grammar tools; the commands themselves (value class, parse function, HELP
rows, handler) are declared in the command modules of judge/commands, whose registry
builds the ``VerbTable`` given here (judge.commands.registry.parse_mail is the judge's).
The grammar is documented in mailcmds/grammar.md; mailcmds/help.txt is the page the
judge sends in reply to HELP (both generated from the verbs).
"""

from __future__ import annotations

from email.message import Message
from types import ModuleType
from typing import Iterable

from .extract import ExtractedMail, extract, extract_text
from .model import MASK, ArmoredBlock, Attachment, Command, LineError, ParsedMail, SourceLine
from .orders import OrderLines
from .parser import parse_extracted
from .registry import VerbTable
from .powers import PowerListError, resolve_power, resolve_powers
from .values import DateSpec


def parse_mail(message: Message, verbs: VerbTable) -> ParsedMail:
    """Every command in a mail, its errors and the lines not processed.  Never raises:
    a mail that cannot be read at all gives a ParsedMail with no commands."""
    try:
        extracted = extract(message)
    except Exception as problem:  # a last guard: malformed MIME must never stop the judge
        extracted = ExtractedMail("", "", None, "", (), (), (), "utf-8",
                                  (f"The mail could not be read ({type(problem).__name__}).",))
    return parse_extracted(extracted, verbs)


def parse_text(text: str, verbs: VerbTable, attachments: Iterable[Attachment] = ()) -> ParsedMail:
    """The same for a body given as text (tests, the web form, replays)."""
    return parse_extracted(extract_text(text, tuple(attachments)), verbs)


__all__ = sorted(
    name for name, value in globals().items()
    if not name.startswith("_") and not isinstance(value, ModuleType)
    and name not in ("annotations", "Iterable", "Message", "ModuleType")
)
