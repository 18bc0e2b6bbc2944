"""CREATE game password, and the status lines that set a game up (``STATUS_VERBS``: the
one list of them), in the CREATE mail or later after SIGNON master@game.

After ``CREATE`` the lines that are status lines belong to it; the first other line, or a
blank line after a status line, ends the block (``LIST`` or ``MAP game`` after it are then
the information commands).  The same lines sent later by the master after ``SIGNON master@game password``
are status edits: they arrive as standalone commands (``LIST`` with an address is a status
edit, ``LIST`` with a game name is the information command).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from difflib import get_close_matches
import re
from typing import ClassVar

from sqlalchemy import select

import maps
from adjudicator.api import check_rules
from adjudicator.mapdata import MapError
from judge.mailio.render import render
from judge.publish.broadcast import broadcast
from judge.commands.context import MailContext
from judge.commands.create_limit import creator_key
from judge.commands.daide_ports import MACHINES, daide_text, give_port, machine_game_refusal
from judge.mailio.inbound import CommandRefused
from judge.store.queries import as_utc, deadline_text, players, timing_of, variant_named
from judge.rules import ENGINE_RULES, known_rules, rule_info
from judge.lifecycle import ENDED, PREPARATION, before_start, in_play
from judge.store.models_game import MASTER, Game, Membership
from judge.store.passwords import hash_password
from judge.turns import format_timing, local_moment, parse_timing
from judge.turns.timing import TIMING_SYNTAX, TimingChanges, TimingError, canonical_zone, parse_timing_changes
from judge.commands.master import SetDeadline
from mailcmds.values import (
    DateSpec,
    ValueSyntaxError,
    parse_address,
    parse_date,
    parse_game,
    parse_rule_name,
    parse_zone,
)
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, CommandSyntaxError, ParseContext, Verb, expect_count, strip_comment
from judge.commands.handler import Handler, Needs


HELP_ORDER = 5  # where this module's rows stand in their HELP sections (judge.commands.registry)

# -- the command's words: values and parsing (pure) --------------------

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
    (judge.turns.timing); the handler applies ``changes`` to the game's timing."""

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

    opens_session: ClassVar[bool] = True
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
    Verb(("MAP",), "MAP name", "the map (variant) the game is played on; only before anybody has joined", _map,
         help=(("master", "  MAP name", "the map"),)),
    Verb(("RULE",), "RULE name [value] or RULE !name", "add a game rule (or remove one with !)", _rule,
         help=(("master", "  RULE name [value]", "add a rule; RULE !name removes one"),)),
    Verb(("TIMING",), TIMING_SYNTAX, "phase lengths, times of day, allowed days, grace, reminders, zone, absences",
         _timing,
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
    Verb(("DEADLINE",), "DEADLINE date [hh:mm]", "the first deadline", _deadline,
         help=(("master", "  DEADLINE date", "the first deadline"),)),
    Verb(("ZONE",), "ZONE Europe/Paris", "the game's time zone (default UTC)", _zone,
         help=(("master", "  ZONE Europe/London", "the game's time zone"),)),
    Verb(("PRIVATE",), "PRIVATE keyword", "make the game private: joining needs the keyword", _private,
         secret_args=(0,),
         help=(("master", "  PRIVATE keyword", "only players who know the keyword may join"),)),
    Verb(("DESC",), "DESC text", "a one-line description of the game", _desc,
         help=(("master", "  DESC text", "a one-line description"),)),
    Verb(("LIST",), "LIST list@example.org", "also send the game's broadcasts to this mailing list (LIST game is the information command)", _list_address,
         help=(("master", "  LIST list@example.org", "send broadcasts to this mailing list"),)),
    Verb(("WITNESS",), "WITNESS witness@example.org",
         "the third party that shuffles for blinded power assignment", _witness,
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
         f"({', '.join(' '.join(verb.words) for verb in STATUS_VERBS)})",
         "create a game and become its master", _create, secret_args=(1,), opens_session=True, body=True,
         help=(("master", "CREATE game password", "create a game; status lines may follow:"),)),
    # LIST and MAP alone are also information requests (info.py), which read both.
    *(verb for verb in STATUS_VERBS if verb.words not in (("LIST",), ("MAP",))),
)


def create(ctx: MailContext, command: Create) -> None:
    exists = ctx.session.execute(select(Game.id).where(Game.name == command.game)).first()
    if exists is not None:
        raise CommandRefused(f"a game named '{command.game}' already exists; choose another name")
    created_by = creator_key(ctx)
    password_hash = hash_password(command.password)
    game = Game(
        name=command.game, master_password_hash=password_hash, map_name="standard", rules=[], timing={},
        zone="UTC", private=False, description="", status=PREPARATION, created_at=ctx.now,
        created_by=created_by,
    )
    ctx.session.add(game)
    ctx.session.flush()
    master = Membership(game_id=game.id, role=MASTER, power=None, name=ctx.sender_name or None,
                        address=ctx.sender, password_hash=password_hash, joined_at=ctx.now)
    ctx.session.add(master)
    ctx.session.flush()
    ctx.sign_on(game, master, command.source.number)
    ctx.done(command, f"game '{game.name}' created with you as its master; players can JOIN once you send FORM")
    # The status lines that follow run next, as the new master's edits (dispatch.run_command).


def _set_up_game(ctx: MailContext) -> Game:
    """The master's game, whose set-up may change until it has ended."""
    game = ctx.require_master().game
    if game.status == ENDED:
        raise CommandRefused(f"game '{game.name}' has ended; its set-up cannot change")
    return game


def set_map(ctx: MailContext, command: MapStatus) -> None:
    game = ctx.require_master().game
    if not before_start(game.status) or players(ctx.session, game):
        raise CommandRefused("the map can change only before anybody has joined")
    try:
        variant_named(command.name)
    except (maps.UnknownMapError, MapError) as problem:
        raise CommandRefused(str(problem)) from None
    game.map_name = command.name
    ctx.done(command, f"map: {command.name} ({variant_named(command.name).headline})")


def set_rule(ctx: MailContext, command: RuleStatus) -> None:
    game = _set_up_game(ctx)
    info = rule_info(command.name)
    if info is None:
        names = ", ".join(rule.name for rule in known_rules())
        close = get_close_matches(command.name.upper(), [rule.name for rule in known_rules()], n=1, cutoff=0.75)
        guess = ""
        if close:
            meant = rule_info(close[0])
            guess = f"; did you mean {close[0]}? ({meant.meaning if meant else ''})"
        raise CommandRefused(f"unknown rule {command.name}{guess} (known rules: {names})")
    others = [r for r in (game.rules or []) if str(r).split()[0] != info.name]
    if command.remove:
        game.rules = others  # a port it held is freed by the DAIDE edge once its listener is closed
        ctx.done(command, f"rule {info.name} removed")
        return
    if info.takes_value and command.value is None:
        raise CommandRefused(f"RULE {info.name} needs a value: {info.meaning}")
    if not info.takes_value and command.value is not None:
        raise CommandRefused(f"RULE {info.name} takes no value ({info.meaning})")
    if info.takes_value and not str(command.value).isdigit():
        raise CommandRefused(f"RULE {info.name} needs a whole number, not '{command.value}'")
    if info.values and int(str(command.value)) not in info.values:
        raise CommandRefused(f"RULE {info.name} is one of {', '.join(map(str, info.values))}, not {command.value}")
    refusal = machine_game_refusal(ctx.session, game, ctx.sender) if info.name == MACHINES else None
    if refusal is not None:
        raise CommandRefused(refusal)
    entry = info.name if command.value is None else f"{info.name} {command.value}"
    engine = frozenset(r.split()[0] for r in [*others, entry] if r.split()[0] in ENGINE_RULES)
    try:
        check_rules(engine)
    except ValueError as problem:
        raise CommandRefused(f"{problem} (remove the other with RULE !name)") from None
    game.rules = sorted([*others, entry])
    ctx.done(command, f"rule {entry}: {info.meaning}")
    if info.name == MACHINES:
        give_port(ctx.session, game, now=ctx.now)
        ctx.done(command, f"machine players (DAIDE bots) connect to {daide_text(ctx.session, game)}")


def set_timing(ctx: MailContext, command: TimingStatus) -> None:
    game = _set_up_game(ctx)
    try:
        timing = command.changes.apply(timing_of(game))
    except TimingError as problem:
        raise CommandRefused(str(problem)) from None
    game.timing = {"text": format_timing(timing)}
    game.zone = timing.zone
    early = timing.early_warnings()
    ctx.done(command, f"timing: {format_timing(timing)} (from the next deadline the judge sets)"
                      + _zone_note(ctx, game, timing.zone) + (f"; note: {early}" if early else ""))


def _zone_note(ctx: MailContext, game: Game, zone: str) -> str:
    """Says in which zone the times of day are read when the master sees deadlines in another
    (SET ZONE is the master's own display zone; ZONE sets the game's)."""
    own = ctx.signed_on.membership.zone if ctx.signed_on is not None else None
    if not own or own == zone:
        return ""
    return (f"; times of day are read in the game's zone, {zone}, not in {own}, the zone you see "
            f"deadlines in (SET ZONE); write ZONE {own} to make it the game's zone")


def set_game_zone(ctx: MailContext, command: ZoneStatus) -> None:
    game = _set_up_game(ctx)
    try:
        zone = canonical_zone(command.zone)
        timing = parse_timing(f"ZONE {zone}", base=timing_of(game))
    except TimingError as problem:
        raise CommandRefused(str(problem)) from None
    game.zone = zone
    game.timing = {"text": format_timing(timing)}
    ctx.done(command, f"the game's time zone is {zone}")


def set_private(ctx: MailContext, command: PrivateStatus) -> None:
    game = _set_up_game(ctx)
    game.private = True
    game.privacy_hash = hash_password(command.password)
    ctx.done(command, "the game is private: players add your keyword after their password to join")


def set_description(ctx: MailContext, command: DescStatus) -> None:
    game = ctx.require_master().game
    game.description = command.text[:2000]
    ctx.done(command, "description set")


def set_list(ctx: MailContext, command: ListStatus) -> None:
    game = ctx.require_master().game
    game.list_address = command.address
    ctx.done(command, f"broadcasts of game '{game.name}' now go to the list {command.address}")


def moment_of(game: Game, when: DateSpec, now: datetime) -> datetime:
    """A date the master wrote, read in the game's zone (default time: the game's AT, else
    the current deadline's time of day, else midnight)."""
    timing = timing_of(game)
    default = timing.at[0] if timing.at else None
    if default is None and game.deadline is not None:
        default = as_utc(game.deadline).astimezone(timing.tz).time().replace(second=0, microsecond=0)
    try:
        if default is None:
            return local_moment(when.year, when.month, when.day, when.at, timing, now)
        return local_moment(when.year, when.month, when.day, when.at, timing, now, default_at=default)
    except ValueError as problem:
        raise CommandRefused(str(problem)) from None


def set_deadline(ctx: MailContext, command: DeadlineStatus | SetDeadline) -> None:
    game = _set_up_game(ctx)
    moment = moment_of(game, command.when, ctx.now)
    if moment <= ctx.now:
        raise CommandRefused(f"{command.when} ({moment:%Y-%m-%d %H:%M} UTC) has already passed; give a later date")
    game.deadline = moment
    shown = deadline_text(game, ctx.require_master().membership, ctx.now)
    if before_start(game.status):
        ctx.done(command, f"the first deadline will be {shown} (if the game has started by then)")
        return
    ctx.done(command, f"deadline set to {shown}")
    if in_play(game.status):
        body = render("deadline_changed.j2", game=game.name, phase=game.phase,
                      deadline=deadline_text(game, None, ctx.now))
        ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: deadline changed", body=body,
                           kind="deadline_changed", exclude=[ctx.sender]))


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    Create: Handler(create),
    MapStatus: Handler(set_map, Needs.MASTER),
    RuleStatus: Handler(set_rule, Needs.MASTER),
    TimingStatus: Handler(set_timing, Needs.MASTER),
    DeadlineStatus: Handler(set_deadline, Needs.MASTER),
    ZoneStatus: Handler(set_game_zone, Needs.MASTER),
    PrivateStatus: Handler(set_private, Needs.MASTER),
    DescStatus: Handler(set_description, Needs.MASTER),
    ListStatus: Handler(set_list, Needs.MASTER),
    SetDeadline: Handler(set_deadline, Needs.MASTER),
}
