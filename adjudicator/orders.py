"""Typed orders.  Each order knows its canonical text (shared/contracts/adjudicate.md).

Orders are produced by ``adjudicator.notation`` from what players type; the
engine never sees raw strings.  ``unit`` is the ordered unit as it stands in the
position (type and coast as on the board, whatever the player wrote).
"""

from __future__ import annotations

from typing import Union

from adjudicator.types import Unit, UnitKind
from adjudicator.values import value


@value()
class Hold:
    unit: Unit

    def canonical(self) -> str:
        return f"{self.unit} H"


@value()
class Move:
    unit: Unit
    destination: str  # location; with a coast for fleets moving to split-coast provinces
    via_convoy: bool = False  # the player asked for a convoy ("via convoy" or a route)
    route: tuple[str, ...] = ()  # sea provinces named in a written-out convoy route

    def canonical(self) -> str:
        text = f"{self.unit} - {self.destination}"
        return text + " VIA CONVOY" if self.via_convoy else text


@value()
class SupportHold:
    unit: Unit
    supported: Unit  # the supported unit as it stands on the board

    def canonical(self) -> str:
        return f"{self.unit} S {self.supported.kind.value} {self.supported.province}"


@value()
class SupportMove:
    unit: Unit
    supported: Unit  # the supported unit as it stands on the board
    supported_to: str  # province it moves to; a fleet's coast when written (DATC 6.B.9: the wrong coast does not match)

    def canonical(self) -> str:
        return f"{self.unit} S {self.supported.kind.value} {self.supported.province} - {self.supported_to}"


@value()
class Convoy:
    unit: Unit
    army_from: str
    army_to: str

    def canonical(self) -> str:
        return f"{self.unit} C A {self.army_from} - {self.army_to}"


@value()
class Retreat:
    unit: Unit
    destination: str

    def canonical(self) -> str:
        return f"{self.unit} R {self.destination}"


@value()
class Disband:
    unit: Unit

    def canonical(self) -> str:
        return f"{self.unit} D"


@value()
class Build:
    power: str
    kind: UnitKind
    location: str

    def canonical(self) -> str:
        return f"{self.kind.value} {self.location} B"


@value()
class Remove:
    unit: Unit

    def canonical(self) -> str:
        return f"{self.unit} D"


@value()
class Waive:
    power: str

    def canonical(self) -> str:
        return "WAIVE"


MovementOrder = Union[Hold, Move, SupportHold, SupportMove, Convoy]
RetreatOrder = Union[Retreat, Disband]
AdjustmentOrder = Union[Build, Remove, Waive]
Order = Union[MovementOrder, RetreatOrder, AdjustmentOrder]
