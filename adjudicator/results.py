"""What adjudication hands back: per-order results, the outcome of a phase, requirements."""

from __future__ import annotations

from typing import NamedTuple, Protocol

from adjudicator.board import Board
from adjudicator.orders import Order
from adjudicator.types import Dislodged, PhaseKind, Position, Unit
from adjudicator.values import value

# The result codes of shared/contracts/adjudicate.md.
MOVES = "moves"
HOLDS = "holds"
SUPPORTS = "supports"
CONVOYS = "convoys"
BOUNCE = "bounce"
CUT = "cut"
DISLODGED = "dislodged"
NO_CONVOY = "no_convoy"
VOID = "void"
RETREATS = "retreats"
DISBANDED = "disbanded"
BUILDS = "builds"
REMOVES = "removes"
WAIVED = "waived"

RESULT_CODES = frozenset(
    {MOVES, HOLDS, SUPPORTS, CONVOYS, BOUNCE, CUT, DISLODGED, NO_CONVOY, VOID, RETREATS, DISBANDED, BUILDS, REMOVES, WAIVED}
)


class OrderResult(NamedTuple):
    """One line of a phase's results: ``order`` is canonical text.  (An immutable named
    tuple rather than a dataclass: a movement phase makes dozens, and this is cheaper.)"""

    power: str
    order: str
    result: str
    reason: str | None = None


@value()
class Adjudication:
    """The outcome of one phase.

    ``position`` is the next position (phases that need no orders skipped, centres
    updated after Fall).  ``dislodged`` lists every unit dislodged this phase, also
    those destroyed for want of a retreat (their ``retreats`` is empty).
    ``contested`` lists provinces left empty by a standoff.
    """

    results: tuple[OrderResult, ...]
    position: Position
    dislodged: tuple[Dislodged, ...] = ()
    contested: tuple[str, ...] = ()
    winner: str | None = None


@value()
class Requirement:
    """What one power must order in a position.

    Movement: ``units`` to order.  Retreat: the dislodged ``units`` to retreat or
    disband.  Adjustment: ``builds`` allowed (already limited by free home
    centres) or ``removals`` required.
    """

    power: str
    phase_kind: PhaseKind
    units: tuple[Unit, ...] = ()
    builds: int = 0
    removals: int = 0


class OrderNote(Protocol):
    """What the resolver needs first of a legal movement order, noted by the parser
    (``resolve.Note``, or the ``forms.Form`` of a canonical line, which starts alike)."""

    @property
    def province(self) -> str: ...  # the ordered unit's province
    @property
    def shape(self) -> int: ...  # the order's kind code (HOLD, MOVE, ...)
    @property
    def target(self) -> str: ...  # its target province (``resolve.order_shape``)


class IllegalLine(NamedTuple):
    """A line understood as an order that may not be given (``api.read_orders``)."""

    place: int  # how many of the good orders came before it: where it stands among them
    order: Order
    reason: str


class ParsedOrders(NamedTuple):
    """The outcome of parsing a power's order lines: good orders and (line, reason) errors.

    ``api.parse_orders(board, power, lines)`` also records ``power``, the ``board`` the
    orders were checked against and the canonical text of each order, so that
    ``api.adjudicate(board, {power: parsed})`` need not check them again.  (A named tuple,
    like ``OrderResult``: one is made per power and phase, and this is the cheaper value.)
    ``api.read_orders`` keeps the illegal orders apart, in ``illegal``, and leaves
    ``errors`` to the lines not understood.
    """

    orders: tuple[Order, ...]
    errors: tuple[tuple[str, str], ...]
    power: str = ""
    board: Board | None = None
    canonical: tuple[str, ...] = ()  # canonical text of each of ``orders`` (when made by parse_orders)
    # per order, when made by parse_orders in a movement phase, its note for the resolver
    # (adjudicator.resolve.Note, or the forms.Form that starts with the same fields)
    notes: tuple[OrderNote, ...] = ()
    illegal: tuple[IllegalLine, ...] = ()  # only from read_orders: adjudicate reports them void

    def __repr__(self) -> str:  # the board and the notes would drown the orders
        return f"ParsedOrders(orders={self.orders!r}, errors={self.errors!r}, power={self.power!r})"
