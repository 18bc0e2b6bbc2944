"""Order lines and CLEAR: each line checked against the game's position by the engine,
stored canonical in the power's OrderSet for the current phase.

A mail's orders replace the power's orders for the units they name (an adjustment's
builds by the province built in; WAIVEs add up); other stored orders stay.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.adjustments import free_home_centres
from adjudicator.api import Board, IllegalOrder, OrderSyntaxError, parse_order, prepare
from adjudicator.types import PhaseKind
from judge.phases.requirements import phase_requirements
from judge.commands.context import MailContext, ReplyLine, SignedOn
from judge.mailio.inbound import CommandRefused
from judge.store.queries import as_utc, position_of, variant_of
from judge.phases.order_sets import merge_orders, order_key
from judge.phases.turnstate import after_orders, stored_order_set
from judge.lifecycle import in_play
from judge.store.models_game import Game, OrderSet
from judge.turns import may_submit_empty
from mailcmds import OrderLines
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, no_args
from judge.commands.handler import Handler, Needs


HELP_ORDER = 20  # where this module's rows stand in their HELP sections (judge.commands.registry)

# -- the command's words: values and parsing (pure) --------------------

@dataclass(frozen=True, slots=True)
class Clear(Command):
    """``CLEAR``: drop every order the power has entered for this phase."""


def _clear(ctx: ParseContext, line: CommandLine) -> Clear:
    no_args(line)
    return Clear(source=line.source)


VERBS = (
    Verb(("CLEAR",), "CLEAR", "clear all your orders for the current phase", _clear,
         help=(("play", "CLEAR", "clear all your orders for this phase"),)),
)


def _order_set(ctx: MailContext, game: Game, power: str, row: OrderSet | None = None) -> OrderSet:
    """The power's order set for the current phase (``row``, when the caller has read it),
    added to the session when none is stored."""
    row = row if row is not None else stored_order_set(ctx.session, game, power)
    if row is None:
        row = OrderSet(game_id=game.id, phase=game.phase, power=power, orders=[], submitted_at=ctx.now)
        ctx.session.add(row)
    return row


def _playing(ctx: MailContext) -> tuple[SignedOn, Game, str]:
    who = ctx.require_player()
    game = who.game
    if not in_play(game.status) or game.position is None or who.power is None:
        raise CommandRefused(f"game '{game.name}' is not running ({game.status}): orders are taken once it has started")
    from judge.commands.sealed import plain_orders_refusal  # RULE SEALED: orders only by COMMIT/REVEAL

    sealed = plain_orders_refusal(game)
    if sealed is not None:
        raise CommandRefused(sealed)
    return who, game, who.power


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def _hint(board: Board, power: str) -> str:
    """What the power can write here, with examples made of its own units and centres."""
    need = phase_requirements(board.variant, board.position).get(power)
    position = board.position
    kind = position.phase.kind
    if need is None:
        return f"{power} has nothing to order in {position.phase}"
    units = ", ".join(str(u) for u in need.units)
    first = str(need.units[0]) if need.units else None
    if kind is PhaseKind.MOVEMENT:
        example = f"e.g. {first} H, or {first} - and a province next to it; " if first else ""
        return f"write one order per unit, {example}your units: {units}"
    if kind is PhaseKind.RETREAT:
        example = f"e.g. {first} R and a province, or {first} D; " if first else ""
        return f"retreat or disband each dislodged unit, {example}to order: {units}"
    if need.removals:
        return f"remove {_plural(need.removals, 'unit')}, e.g. {first} D; your units: {units}"
    sites = free_home_centres(board.tables, position, power)
    example = f"e.g. A {sites[0]} B, " if sites else ""
    where = f" ({', '.join(sites)})" if sites else ""
    return f"build up to {_plural(need.builds, 'unit')} in your free home centres{where}, {example}or WAIVE"


def _adjustment_limit(board: Board, power: str, orders: list[str]) -> str | None:
    """Why ``orders`` are more than the power may give in an adjustment phase, or None."""
    need = phase_requirements(board.variant, board.position).get(power)
    position = board.position
    if need is None or need.phase_kind is not PhaseKind.ADJUSTMENT:
        return None
    allowed = need.builds or need.removals
    if len(orders) > allowed:
        noun = "build" if need.builds else "removal"
        what = f"{allowed} {noun}{'s' if allowed != 1 else ''}" + (" (a WAIVE counts as one)" if need.builds else "")
        return (f"{power} may give {what} in {position.phase}; with this line it would be {len(orders)}, so this "
                "line was not accepted (the orders before it stand; CLEAR first to replace them)")
    return None


def order_lines(ctx: MailContext, command: OrderLines) -> None:
    who, game, power = _playing(ctx)
    board = prepare(variant_of(game), position_of(game))  # one board for every line of the mail
    stored_row = stored_order_set(ctx.session, game, power)
    stored = list(stored_row.orders or []) if stored_row is not None else []
    good: list[str] = []
    entry_of: dict[str, int] = {}  # province -> index in ctx.entries of its accepted line
    for line in command.lines:
        try:
            order = parse_order(board, power, line.text)
        except (OrderSyntaxError, IllegalOrder) as problem:
            ctx.failed(line, f"{problem.reason}; {_hint(board, power)}")
            continue
        canonical = order.canonical()
        too_many = _adjustment_limit(board, power, merge_orders(stored, [*good, canonical]))
        if too_many is not None:  # each line stands or falls alone: the builds before it are kept
            ctx.failed(line, too_many)
            continue
        good.append(canonical)
        key = order_key(canonical)
        if key is not None and key in entry_of:  # the same unit twice: the later line wins
            earlier = ctx.entries[entry_of[key]]
            ctx.entries[entry_of[key]] = ReplyLine(earlier.line_no, earlier.text,
                                                   f"{earlier.message}, replaced by line {line.number}", True)
        if key is not None:
            entry_of[key] = len(ctx.entries)
        ctx.entries.append(ReplyLine(line.number, line.text, f"accepted: {canonical}", True))
    if not good:
        return
    row = _order_set(ctx, game, power, stored_row)
    row.orders = merge_orders(list(row.orders or []), good)
    row.submitted_at = ctx.now
    after_orders(ctx.session, game, ctx.now)  # DELAY and due time: the scheduler's one rule


def clear(ctx: MailContext, command: Clear) -> None:
    who, game, power = _playing(ctx)
    if game.deadline is not None and not may_submit_empty(ctx.now, as_utc(game.deadline)):
        raise CommandRefused("the deadline has passed: an empty order list cannot be submitted now "
                             "(send new orders for the units instead)")
    row = _order_set(ctx, game, power)
    row.orders = []
    row.submitted_at = ctx.now
    after_orders(ctx.session, game, ctx.now)
    ctx.done(command, f"all orders of {power} for {game.phase} cleared")


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    OrderLines: Handler(order_lines, Needs.SIGNON),
    Clear: Handler(clear, Needs.SIGNON),
}
