"""Typed orders.  Each order knows its canonical text (shared/contracts/adjudicate.md).

Orders are produced by ``adjudicator.notation`` from what players type; the
engine never sees raw strings.  ``unit`` is the ordered unit as it stands in the
position (type and coast as on the board, whatever the player wrote).

Orders are named tuples (immutable, fields read by name): a movement phase builds
dozens of them, and a tuple is the cheapest frozen value to build.  Unlike plain
tuples, two orders are equal only if they are of the same kind (``Hold(u)`` is not
``Disband(u)``), which ``distinct`` sees to.
"""

from __future__ import annotations

from typing import NamedTuple, TypeVar, Union, get_args

from adjudicator.types import Unit, UnitKind

T = TypeVar("T")


def distinct(cls: type[T]) -> type[T]:
    """Equality for a named-tuple order: same kind of order and same fields (a plain tuple
    compares fields only)."""

    def __eq__(self: tuple, other: object) -> bool:  # noqa: N807
        return type(self) is type(other) and tuple.__eq__(self, other)

    def __ne__(self: tuple, other: object) -> bool:  # noqa: N807
        return not __eq__(self, other)

    cls.__eq__ = __eq__  # type: ignore[method-assign,assignment]
    cls.__ne__ = __ne__  # type: ignore[method-assign,assignment]
    cls.__hash__ = tuple.__hash__  # type: ignore[method-assign,assignment]
    return cls


@distinct
class Hold(NamedTuple):
    unit: Unit

    def canonical(self) -> str:
        return f"{self.unit} H"


@distinct
class Move(NamedTuple):
    unit: Unit
    destination: str  # location; with a coast for fleets moving to split-coast provinces
    via_convoy: bool = False  # the player asked for a convoy ("via convoy" or a route)
    route: tuple[str, ...] = ()  # sea provinces named in a written-out convoy route

    def canonical(self) -> str:
        text = f"{self.unit} - {self.destination}"
        return text + " VIA CONVOY" if self.via_convoy else text


@distinct
class SupportHold(NamedTuple):
    unit: Unit
    supported: Unit  # the supported unit as it stands on the board

    def canonical(self) -> str:
        return f"{self.unit} S {self.supported.kind.value} {self.supported.province}"


@distinct
class SupportMove(NamedTuple):
    unit: Unit
    supported: Unit  # the supported unit as it stands on the board
    supported_to: str  # province it moves to; a fleet's coast when written (DATC 6.B.9: the wrong coast does not match)

    def canonical(self) -> str:
        return f"{self.unit} S {self.supported.kind.value} {self.supported.province} - {self.supported_to}"


@distinct
class Convoy(NamedTuple):
    unit: Unit
    army_from: str
    army_to: str

    def canonical(self) -> str:
        return f"{self.unit} C A {self.army_from} - {self.army_to}"


@distinct
class Retreat(NamedTuple):
    unit: Unit
    destination: str

    def canonical(self) -> str:
        return f"{self.unit} R {self.destination}"


@distinct
class Disband(NamedTuple):
    unit: Unit

    def canonical(self) -> str:
        return f"{self.unit} D"


@distinct
class Build(NamedTuple):
    power: str
    kind: UnitKind
    location: str

    def canonical(self) -> str:
        return f"{self.kind._value_} {self.location} B"  # _value_: a plain attribute, quicker than .value


@distinct
class Remove(NamedTuple):
    unit: Unit

    def canonical(self) -> str:
        return f"{self.unit} D"


@distinct
class Waive(NamedTuple):
    power: str

    def canonical(self) -> str:
        return "WAIVE"


MovementOrder = Union[Hold, Move, SupportHold, SupportMove, Convoy]
RetreatOrder = Union[Retreat, Disband]
AdjustmentOrder = Union[Build, Remove, Waive]
Order = Union[MovementOrder, RetreatOrder, AdjustmentOrder]

#: The order classes of each phase kind, for ``isinstance`` and membership checks: made from
#: the unions above, so a new order kind is added to its phase's union alone.
MOVEMENT_ORDERS: tuple[type, ...] = get_args(MovementOrder)
RETREAT_ORDERS: tuple[type, ...] = get_args(RetreatOrder)
ADJUSTMENT_ORDERS: tuple[type, ...] = get_args(AdjustmentOrder)
