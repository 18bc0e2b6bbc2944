"""Information: LIST, LIST game, SUMMARY game, HISTORY game [phase], MAP game [phase], HELP.

Nothing here shows an address; in a gunboat game nothing says who plays what.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import ClassVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import maps
from adjudicator.mapdata import MapError
from adjudicator.jsonio import position_from_json
from adjudicator.api import initial_position
from adjudicator.types import Phase, Position, Variant
from judge.mailio.render import render
from judge.commands.context import MailContext
from judge.mailio.inbound import CommandRefused
from judge.commands.create import ListStatus, MapStatus, set_map
from judge.commands.reply_size import SMALLEST_PICTURE, admit_files, encoded_size
from judge.phases.pictures import position_picture, record_picture
from judge.store.queries import as_utc, find_game, position_of, variant_named, variant_of
from judge.phases.turn_views import ResultsView, results_view
from judge.lifecycle import status_text
from judge.phases.views import game_view
from judge.commands.daide_ports import daide_text
from judge.store.models_game import MEMBER_ACTIVE, PLAYER, Game, Membership, PhaseRecord
from judge.turns import format_deadline
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count
from mailcmds.values import is_phase, parse_address, parse_game, parse_phase
from judge.commands.handler import Handler


HELP_ORDER = 10  # where this module's rows stand in their HELP sections (judge.commands.registry)

# -- the command's words: values and parsing (pure) --------------------

@dataclass(frozen=True, slots=True)
class ListGames(Command):
    """``LIST`` (the games on this judge) or ``LIST game`` (one game's set-up and players);
    after SIGNON, ``LIST`` alone means the signed-on game."""

    answered_once: ClassVar[bool] = True
    game: str | None = None


@dataclass(frozen=True, slots=True)
class Summary(Command):
    """``SUMMARY [game]``: the game's current state (the signed-on game when omitted)."""

    answered_once: ClassVar[bool] = True
    game: str | None = None

    def names_signed_on_game(self) -> bool:
        return self.game is None


@dataclass(frozen=True, slots=True)
class History(Command):
    """``HISTORY [game] [phase]``: results of past phases (from ``phase`` on, if given)."""

    answered_once: ClassVar[bool] = True
    game: str | None = None
    phase: str | None = None

    def names_signed_on_game(self) -> bool:
        return self.game is None


@dataclass(frozen=True, slots=True)
class MapPicture(Command):
    """``MAP [game] [phase]``: the picture of the board after a past phase (the last one
    when no phase is given).  ``MAP name`` alone is also how a signed-on master sets the
    map of a game not yet started; the judge tells the two apart (a master signed on,
    a map of that name), so the word is kept as written in ``game``.  Answered once per
    mail like the other information requests: its pictures are the dearest answer (a
    master's ``MAP name`` twice sets the same map twice)."""

    answered_once: ClassVar[bool] = True
    game: str | None = None
    phase: str | None = None


@dataclass(frozen=True, slots=True)
class Help(Command):
    answered_once: ClassVar[bool] = True
    topic: str | None = None


#: Commands that only read: the same one twice in a mail (for the same signed-on game) is
#: answered once.
def _list(ctx: ParseContext, line: CommandLine) -> Command:
    args = expect_count(line, 0, 1, "nothing, a game name, or (masters) a mailing-list address")
    if not args:
        return ListGames(source=line.source)
    if "@" in args[0]:
        return ListStatus(parse_address(args[0]), source=line.source)
    return ListGames(parse_game(args[0]), source=line.source)


def _summary(ctx: ParseContext, line: CommandLine) -> Summary:
    args = expect_count(line, 0, 1, "a game name")
    return Summary(parse_game(args[0]) if args else None, source=line.source)


def _game_and_phase(line: CommandLine) -> tuple[str | None, str | None]:
    """``[game] [phase]``: either may be left out (a phase alone is told by its form)."""
    args = expect_count(line, 0, 2, "a game name")
    if len(args) == 2:
        return parse_game(args[0]), parse_phase(args[1])
    if len(args) == 1:
        return (None, parse_phase(args[0])) if is_phase(args[0]) else (parse_game(args[0]), None)
    return None, None


def _history(ctx: ParseContext, line: CommandLine) -> History:
    return History(*_game_and_phase(line), source=line.source)


def _map_picture(ctx: ParseContext, line: CommandLine) -> MapPicture:
    return MapPicture(*_game_and_phase(line), source=line.source)


def _help(ctx: ParseContext, line: CommandLine) -> Help:
    args = expect_count(line, 0, 1, "nothing or one topic")
    return Help(args[0].upper() if args else None, source=line.source)


VERBS = (
    Verb(("LIST",), "LIST or LIST game", "the games on this judge, or one game's set-up and players", _list,
         in_subject=True, help=(("start", "LIST", "the games on this judge"),
               ("start", "LIST game", "one game's set-up and players"),)),
    Verb(("SUMMARY",), "SUMMARY game", "a game's current state: phase, centres, players, whose orders are in "
                                       "(every power's for the master, your own for a player)", _summary,
         in_subject=True, help=(("start", "SUMMARY game", "a game's current state"),)),
    Verb(("HISTORY",), "HISTORY game [phase]", "the results of a game's past phases", _history,
         in_subject=True, help=(("start", "HISTORY game [phase]", "results of past phases"),)),
    Verb(("MAP",), "MAP [game] [phase]", "a picture of the board after a past phase (SVG and PNG); before the "
         "start, the board the game will start from; MAP and a map's name (no game of that name): that map's "
         "starting board", _map_picture,
         help=(("start", "MAP game [phase]", "a picture of the board after a past phase"),
               ("start", "MAP mapname", "a map's starting board (a preview)"),)),
    Verb(("HELP",), "HELP", "this list of commands", _help,
         in_subject=True, help=(("start", "HELP", "this page"),)),
)


def _game_rows(session: Session) -> list[dict[str, object]]:
    """One row per game for LIST: two column queries, whatever the number of games (loading
    every game object, position included, and counting players game by game took 16 s and
    over 100 MB for 10,000 games)."""
    seated = dict(session.execute(
        select(Membership.game_id, func.count())
        .where(Membership.role == PLAYER, Membership.status == MEMBER_ACTIVE)
        .group_by(Membership.game_id)
    ).all())
    games = session.execute(
        select(Game.id, Game.name, Game.status, Game.phase, Game.private, Game.description, Game.map_name)
        .order_by(Game.name)
    ).all()
    return [
        {"name": g.name, "status": g.status, "phase": g.phase, "private": bool(g.private),
         "description": g.description or "",
         "places": f"{seated.get(g.id, 0)}/{len(variant_named(g.map_name).powers)} players", "map": g.map_name}
        for g in games
    ]


def _named_or_signed_on(ctx: MailContext, name: str | None, verb: str) -> Game:
    if name is not None:
        return find_game(ctx.session, name)
    if ctx.signed_on is not None:
        return ctx.signed_on.game
    raise CommandRefused(f"{verb} needs a game: write {verb} game (LIST shows the games)")


def _viewer(ctx: MailContext, game: Game):
    return ctx.signed_on.membership if ctx.signed_on is not None and ctx.signed_on.game.id == game.id else None


def list_games(ctx: MailContext, command: ListGames) -> None:
    if command.game is None and ctx.signed_on is None:
        rows = _game_rows(ctx.session)
        ctx.add_block(render("list_games.j2", games=rows))
        ctx.done(command, f"{len(rows)} game{'s' if len(rows) != 1 else ''} listed below")
        return
    game = _named_or_signed_on(ctx, command.game, "LIST")
    ctx.add_block(render("game_info.j2", game=game_view(ctx.session, game, ctx.now, viewer=_viewer(ctx, game)),
                         full=False, daide=daide_text(ctx.session, game)))
    ctx.done(command, f"game '{game.name}' listed below")


def summary(ctx: MailContext, command: Summary) -> None:
    game = _named_or_signed_on(ctx, command.game, "SUMMARY")
    ctx.add_block(render("game_info.j2", game=game_view(ctx.session, game, ctx.now, viewer=_viewer(ctx, game)),
                         full=True, daide=daide_text(ctx.session, game)))
    ctx.done(command, f"summary of game '{game.name}' below ({status_text(game.status)})")


def _record_view(game: Game, row: PhaseRecord) -> ResultsView:
    """A processed phase in the words of its results mail (judge.phases.turn_views)."""
    variant = variant_of(game)
    before_doc, after_doc = dict(row.position_before or {}), dict(row.position_after or {})
    results = list(row.results or [])
    ordered = {power: len(lines) for power, lines in (row.orders or {}).items() if lines}
    resolved: dict[str, int] = {}
    for item in results:
        power = str(item.get("power"))
        resolved[power] = resolved.get(power, 0) + 1
    # The record keeps the orders sent: a power with fewer of them than results was defaulted.
    defaulted = sorted(power for power, count in resolved.items() if ordered.get(power, 0) < count)
    return results_view(game=game.name, variant=variant, before=position_from_json(variant, before_doc),
                        before_doc=before_doc, results=results, after=position_from_json(variant, after_doc),
                        after_doc=after_doc, defaulted=defaulted, ordered=frozenset(ordered), show_next=False)


def _phase_rank(text: str) -> Phase | None:
    try:
        return Phase.parse(text)
    except ValueError:
        return None


def history(ctx: MailContext, command: History) -> None:
    game = _named_or_signed_on(ctx, command.game, "HISTORY")
    rows = ctx.session.execute(
        select(PhaseRecord).where(PhaseRecord.game_id == game.id).order_by(PhaseRecord.id)
    ).scalars().all()
    since = _phase_rank(command.phase) if command.phase else None
    records = []
    for row in rows:
        rank = _phase_rank(row.phase)
        if since is not None and rank is not None and rank < since:
            continue
        records.append({"view": _record_view(game, row),
                        "when": format_deadline(as_utc(row.processed_at), game.zone)})
    ctx.add_block(render("history.j2", game=game.name, records=records))
    ctx.done(command, f"history of game '{game.name}' below ({len(records)} phase{'s' if len(records) != 1 else ''})")


#: Each picture is drawn in the mail's transaction (about 80 ms of CPU, less when it was drawn lately);
#: a mail full of MAP lines must not hold the store for seconds.
MAX_PICTURES_PER_MAIL = 3


def _sets_the_map(ctx: MailContext, command: MapPicture) -> bool:
    """``MAP name`` from a signed-on master, naming a map: the master's set-up command."""
    return (command.phase is None and command.game is not None and ctx.signed_on is not None
            and ctx.signed_on.is_master and command.game in maps.available())


def _variant_preview(ctx: MailContext, command: MapPicture) -> bool:
    """``MAP name`` naming a map and no game: a preview of the map's starting board."""
    if command.game is None or command.phase is not None or command.game not in maps.available():
        return False
    return ctx.session.execute(select(Game.id).where(Game.name == command.game.lower())).first() is None


def _to_draw(ctx: MailContext, command: MapPicture) -> tuple[str, str, Variant, PhaseRecord | Position]:
    """What MAP draws: (the files' name, the reply's words for it, the map, a phase record or
    a position).  A game not started yet shows its map's starting board."""
    if _variant_preview(ctx, command):
        variant = variant_named(str(command.game))
        return str(command.game), f"map '{command.game}' (its starting board)", variant, initial_position(variant)
    game = _named_or_signed_on(ctx, command.game, "MAP")
    variant = variant_named(game.map_name)
    query = select(PhaseRecord).where(PhaseRecord.game_id == game.id)
    if command.phase is not None:
        record = ctx.session.execute(query.where(PhaseRecord.phase == command.phase)).scalar_one_or_none()
        if record is None:
            played = ctx.session.execute(select(PhaseRecord.phase).where(PhaseRecord.game_id == game.id)
                                         .order_by(PhaseRecord.id)).scalars().all()
            raise CommandRefused(f"game '{game.name}' has no processed phase {command.phase} "
                                 f"(processed: {', '.join(played) if played else 'none yet'})")
        return game.name, f"game '{game.name}' after {record.phase}", variant, record
    record = ctx.session.execute(query.order_by(PhaseRecord.id.desc()).limit(1)).scalar_one_or_none()
    if record is not None:
        return game.name, f"game '{game.name}' after {record.phase}", variant, record
    if game.position is None:
        start = initial_position(variant)
        return (game.name, f"game '{game.name}' as it will start ({start.phase}, map '{game.map_name}'; "
                           "the game has not started yet)", variant, start)
    start = position_of(game)
    return game.name, f"game '{game.name}' at the start ({start.phase})", variant, start


def map_picture(ctx: MailContext, command: MapPicture) -> None:
    """The picture of a processed phase (the last one without a phase), from its record;
    the starting position while none is processed, also before the game starts; ``MAP
    name`` of a map (no game of that name) previews the map's starting board.  A picture
    already in the reply is not attached again; at most MAX_PICTURES_PER_MAIL are drawn for
    one mail."""
    if _sets_the_map(ctx, command):
        set_map(ctx, MapStatus(str(command.game), source=command.source))
        return
    name, shown, variant, drawn = _to_draw(ctx, command)
    phase = drawn.phase if isinstance(drawn, PhaseRecord) else str(drawn.phase)
    names = (f"{name}-{phase}.png", f"{name}-{phase}.svg")
    if not {item.filename for item in ctx.attachments} >= set(names):
        if len(ctx.attachments) >= 2 * MAX_PICTURES_PER_MAIL:  # two files a picture
            raise CommandRefused(f"at most {MAX_PICTURES_PER_MAIL} pictures in one reply: ask for this one in another mail")
        admit_files(len(ctx.mail.raw), ctx.attachments, SMALLEST_PICTURE)  # not drawn when it cannot fit
        files = (record_picture(name, variant, drawn) if isinstance(drawn, PhaseRecord)
                 else position_picture(name, variant, drawn))
        admit_files(len(ctx.mail.raw), ctx.attachments, encoded_size(files))
        ctx.attachments.extend(files)
    ctx.done(command, f"the map of {shown} is attached ({', '.join(names)})")


@lru_cache(maxsize=1)
def help_text() -> str:
    return resources.files("mailcmds").joinpath("help.txt").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def maps_text() -> str:
    """The maps (variants) a game may be played on, for HELP: the shipped map files."""
    lines = ["MAPS (CREATE game password, then MAP name)"]
    for name in maps.available():
        try:
            lines.append(f"  {name:<24} {variant_named(name).headline}")
        except (maps.UnknownMapError, MapError):
            continue  # a broken file is the operator's problem; MAP name says what is wrong
    return "\n".join(lines) + "\n"


def help_page(ctx: MailContext, command: Help) -> None:
    ctx.add_block(help_text() + "\n" + maps_text())
    ctx.done(command, "the list of commands is below")


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    ListGames: Handler(list_games),
    Summary: Handler(summary),
    History: Handler(history),
    MapPicture: Handler(map_picture),  # or, from a signed-on master naming a map, create.set_map
    Help: Handler(help_page),
}
