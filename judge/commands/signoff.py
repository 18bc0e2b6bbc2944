"""SIGNOFF: the end of a mail's commands; nothing after it is read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from judge.commands.context import MailContext
from judge.commands.handler import Handler
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, no_args

HELP_ORDER = 90  # the last row of PLAYING


@dataclass(frozen=True, slots=True)
class Signoff(Command):
    """``SIGNOFF``: nothing after it is read."""

    ends_reading: ClassVar[bool] = True


def _signoff(ctx: ParseContext, line: CommandLine) -> Signoff:
    no_args(line)
    return Signoff(source=line.source)


def signoff(ctx: MailContext, command: Signoff) -> None:
    ctx.done(command, "end of commands")


VERBS = (
    Verb(("SIGNOFF",), "SIGNOFF", "end of the commands: nothing after it is read", _signoff,
         help=(("play", "SIGNOFF", "end of commands; nothing after it is read"),)),
)

HANDLERS = {Signoff: Handler(signoff)}
