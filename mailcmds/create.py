"""CREATE game password, and the status lines that set a game up.

After ``CREATE`` the lines that are status lines (MAP, RULE, TIMING, DEADLINE, ZONE,
PRIVATE, DESC, LIST, WITNESS) belong to it; the first other line, or a blank line after
a status line, ends the block (``LIST`` or ``MAP game`` after it are then the
information commands).  The
same lines sent later by the master after ``SIGNON master@game password`` are status
edits: they arrive as standalone commands (``LIST`` with an address is a status edit,
``LIST`` with a game name is the information command).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.turns.timing import TIMING_SYNTAX, TimingChanges, TimingError, parse_timing_changes

from .model import Command
from .syntax import CommandLine, CommandSyntaxError, ParseContext, Verb, expect_count, strip_comment
from .values import (
    DateSpec,
    ValueSyntaxError,
    parse_address,
    parse_date,
    parse_game,
    parse_rule_name,
    parse_zone,
)


@dataclass(frozen=True, slots=True)
class StatusLine(Command):
    """Base of the lines that describe a game's set-up."""


@dataclass(frozen=True, slots=True)
class MapStatus(StatusLine):
    name: str


@dataclass(frozen=True, slots=True)
class RuleStatus(StatusLine):
    """``RULE name [value]`` adds (or sets) a rule; ``RULE !name`` removes it."""

    name: str
    value: str | None = None
    remove: bool = False


@dataclass(frozen=True, slots=True)
class TimingStatus(StatusLine):
    """``TIMING clauses``: what the line sets, read with the judge's one TIMING grammar
    (judge.turns.timing); the services apply ``changes`` to the game's timing."""

    changes: TimingChanges

    @property
    def text(self) -> str:
        """The clauses as written (without the word TIMING)."""
        return self.changes.text


@dataclass(frozen=True, slots=True)
class DeadlineStatus(StatusLine):
    """The first deadline (or, later, the current one)."""

    when: DateSpec


@dataclass(frozen=True, slots=True)
class ZoneStatus(StatusLine):
    zone: str


@dataclass(frozen=True, slots=True)
class PrivateStatus(StatusLine):
    """``PRIVATE keyword``: players must give the keyword after their password to join."""

    password: str


@dataclass(frozen=True, slots=True)
class DescStatus(StatusLine):
    text: str


@dataclass(frozen=True, slots=True)
class ListStatus(StatusLine):
    """``LIST address``: send broadcasts to this external mailing list (e.g. Mailman)."""

    address: str


@dataclass(frozen=True, slots=True)
class WitnessStatus(StatusLine):
    """``WITNESS address``: the third party that shuffles in blinded power assignment."""

    address: str


@dataclass(frozen=True, slots=True)
class Create(Command):
    """``CREATE game password`` and the status lines that followed it."""

    game: str
    password: str
    status: tuple[StatusLine, ...] = ()


_MAP_RE = re.compile(r"[a-z][a-z0-9_\-]{0,39}")


def _map(ctx: ParseContext, line: CommandLine) -> MapStatus:
    args = expect_count(line, 1, 1, "a map name")
    name = args[0].lower()
    if not _MAP_RE.fullmatch(name):
        raise line.fail(f"'{args[0]}' is not a map name")
    return MapStatus(name, source=line.source)


def _rule(ctx: ParseContext, line: CommandLine) -> RuleStatus:
    args = expect_count(line, 1, 2, "a rule name (one rule per line)")
    word = args[0]
    remove = word.startswith("!")
    name = parse_rule_name(word[1:] if remove else word)
    if remove and len(args) > 1:
        raise line.fail(f"RULE !{name} removes the rule and takes no value")
    return RuleStatus(name, args[1] if len(args) > 1 else None, remove, source=line.source)


def _timing(ctx: ParseContext, line: CommandLine) -> TimingStatus:
    if not line.args:
        raise line.fail("TIMING needs at least one setting")
    try:
        changes = parse_timing_changes(" ".join(line.args))
        changes.apply()  # zone names, zero lengths: the master hears of them with the line
    except TimingError as problem:
        raise line.fail(str(problem)) from None
    return TimingStatus(changes, source=line.source)


def _deadline(ctx: ParseContext, line: CommandLine) -> DeadlineStatus:
    if not line.args:
        raise line.fail("DEADLINE needs a date")
    return DeadlineStatus(parse_date(line.args), source=line.source)


def _zone(ctx: ParseContext, line: CommandLine) -> ZoneStatus:
    args = expect_count(line, 1, 1, "a time zone")
    return ZoneStatus(parse_zone(args[0]), source=line.source)


def _private(ctx: ParseContext, line: CommandLine) -> PrivateStatus:
    args = expect_count(line, 1, 1, "the privacy keyword (one word)")
    return PrivateStatus(args[0], source=line.source)


def _desc(ctx: ParseContext, line: CommandLine) -> DescStatus:
    text = line.text.split(None, 1)[1] if len(line.words) > 1 else ""
    if not text:
        raise line.fail("DESC needs a description")
    return DescStatus(text, source=line.source)


def _list_address(ctx: ParseContext, line: CommandLine) -> ListStatus:
    args = expect_count(line, 1, 1, "the mailing list's address")
    return ListStatus(parse_address(args[0]), source=line.source)


def _witness(ctx: ParseContext, line: CommandLine) -> WitnessStatus:
    args = expect_count(line, 1, 1, "the witness's address")
    return WitnessStatus(parse_address(args[0]), source=line.source)


STATUS_VERBS = (
    Verb(("MAP",), "MAP name", "the map (variant) the game is played on; only before anybody has joined", _map, master=True,
         help=(("master", "  MAP name", "the map"),)),
    Verb(("RULE",), "RULE name [value] or RULE !name", "add a game rule (or remove one with !)", _rule, master=True,
         help=(("master", "  RULE name [value]", "add a rule; RULE !name removes one"),)),
    Verb(("TIMING",), TIMING_SYNTAX, "phase lengths, times of day, allowed days, grace, reminders, zone, absences",
         _timing, master=True,
         help=(("master", "  TIMING MOVE 3D RETREAT 1D ADJUST 1D AT 20:00 DAYS -MTWTF- GRACE 2D WARN 24H,4H", ""),
               ("master", "", "phase lengths, time of day, days, grace, reminders;"),
               ("master", "", "also NEXT 1D (every phase without its own length),"),
               ("master", "", "AT 08:00,20:00 (several times), CLOCK 1200 (njudge),"),
               ("master", "", "ZONE Europe/Paris, ABSENCE 14D (most absence allowed),"),
               ("master", "", "REVEAL 1D (the reveal window of a sealed game),"),
               ("master", "", "GRACE NONE, WARN 0; DAYS: seven letters Sunday first,"),
               ("master", "", "MTWTF Monday first, MON-FRI; a lower-case letter: no"),
               ("master", "", "movement deadline that day. An edit changes only what"),
               ("master", "", "it names."),)),
    Verb(("DEADLINE",), "DEADLINE date [hh:mm]", "the first deadline", _deadline, master=True,
         help=(("master", "  DEADLINE date", "the first deadline"),)),
    Verb(("ZONE",), "ZONE Europe/Paris", "the game's time zone (default UTC)", _zone, master=True,
         help=(("master", "  ZONE Europe/London", "the game's time zone"),)),
    Verb(("PRIVATE",), "PRIVATE keyword", "make the game private: joining needs the keyword", _private,
         secret_args=(0,), master=True,
         help=(("master", "  PRIVATE keyword", "only players who know the keyword may join"),)),
    Verb(("DESC",), "DESC text", "a one-line description of the game", _desc, master=True,
         help=(("master", "  DESC text", "a one-line description"),)),
    Verb(("LIST",), "LIST list@example.org", "also send the game's broadcasts to this mailing list (LIST game is the information command)", _list_address,
         master=True,
         help=(("master", "  LIST list@example.org", "send broadcasts to this mailing list"),)),
    Verb(("WITNESS",), "WITNESS witness@example.org",
         "the third party that shuffles for blinded power assignment", _witness, master=True,
         help=(("master", "  WITNESS address", "the third party for blinded power assignment"),)),
)
_STATUS_TABLE = {verb.words[0]: verb for verb in STATUS_VERBS}


def read_status_lines(ctx: ParseContext) -> list[StatusLine]:
    """Consume the status lines that follow, with comment lines between them, up to the
    first other line or a blank line after a status line (blank lines before the first
    are skipped)."""
    found: list[StatusLine] = []
    read_one = False
    while (raw := ctx.peek()) is not None:
        text = strip_comment(raw.text)
        words = tuple(text.split())
        if not raw.text.strip() and read_one:
            break
        if not words:
            ctx.advance()
            continue
        verb = _STATUS_TABLE.get(words[0].upper())
        if verb is None:
            break
        ctx.advance()
        read_one = True
        line = CommandLine(raw.number, text, words, verb, 1)
        try:
            found.append(verb.parse(ctx, line))  # type: ignore[arg-type]
        except CommandSyntaxError as problem:
            ctx.error(line.number, line.masked_text, str(problem))
        except ValueSyntaxError as problem:
            ctx.error(line.number, line.masked_text, f"{problem}; write {verb.syntax}")
    return found


def _skip_status_lines(ctx: ParseContext) -> None:
    """After a CREATE that failed, its status lines are set aside, not applied elsewhere."""
    read_one = False
    while (raw := ctx.peek()) is not None:
        words = strip_comment(raw.text).split()
        if (words and words[0].upper() not in _STATUS_TABLE) or (not raw.text.strip() and read_one):
            break
        read_one = read_one or bool(words)
        ctx.set_aside([ctx.advance()])


def _create(ctx: ParseContext, line: CommandLine) -> Create:
    try:
        args = line.args
        if len(args) == 3:
            raise line.fail(f"give the map on its own line after CREATE: MAP {args[2].lower()}")
        args = expect_count(line, 2, 2, "a game name and the master's password")
        game = parse_game(args[0])
    except ValueError:
        _skip_status_lines(ctx)
        raise
    return Create(game, args[1], tuple(read_status_lines(ctx)), source=line.source)


VERBS = (
    Verb(("CREATE",), "CREATE game password, then status lines "
         "(MAP, RULE, TIMING, DEADLINE, ZONE, PRIVATE, DESC, LIST, WITNESS)",
         "create a game and become its master", _create, secret_args=(1,), opens_session=True, body=True,
         master=True,
         help=(("master", "CREATE game password", "create a game; status lines may follow:"),)),
    # LIST and MAP alone are also information requests (mailcmds/info.py), which read both.
    *(verb for verb in STATUS_VERBS if verb.words not in (("LIST",), ("MAP",))),
)
