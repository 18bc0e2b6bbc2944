"""Replaying a real game that godip keeps (``maps.godip_facts --game``) through our engine:
each recorded phase's position and orders, adjudicated, must give the next recorded
position (units, dislodged units, centre ownership)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from adjudicator import api
from adjudicator.progress import neutral_rebuilds
from adjudicator.tables import tables_for
from adjudicator.types import Phase, PhaseKind, Position, Unit, UnitKind, Variant


def power_key(name: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", name.upper())


@dataclass(frozen=True)
class Mismatch:
    phase: str
    what: str
    ours: frozenset[str]
    recorded: frozenset[str]

    def __str__(self) -> str:
        return (f"{self.phase} {self.what}: ours only {sorted(self.ours - self.recorded)}, "
                f"recorded only {sorted(self.recorded - self.ours)}")


class Replay:
    def __init__(self, variant: Variant, renames: dict[str, str], powers: dict[str, str]) -> None:
        self.variant = variant
        self.tables = tables_for(variant)
        self.renames = renames
        self.powers = powers

    def location(self, text: str) -> str:
        province, slash, coast = text.upper().partition("/")
        return self.renames.get(province, province) + slash + coast

    def power(self, nation: str) -> str:
        key = power_key(nation)
        return self.powers.get(key, key)

    def units(self, record: dict[str, Any], part: str = "units") -> list[Unit]:
        return [Unit(self.place(u.split()[0], u.split()[1]), UnitKind(u.split()[0]), self.power(nation))
                for nation, listed in record[part].items() for u in listed]

    def place(self, kind: str, where: str) -> str:
        """Our location of a unit: an army stands on the province (the records put one on a coast)."""
        location = self.location(where)
        return location.split("/")[0] if kind[0] == "A" else location

    def centres(self, record: dict[str, Any]) -> dict[str, frozenset[str]]:
        return {self.power(n): frozenset(map(self.location, cs)) for n, cs in record["centres"].items() if n != "Neutral"}

    def orders(self, position: Position, lines: list[str]) -> dict[str, list[str]]:
        """The record's orders in our notation, by power (the power of the unit, or of the centre built in)."""
        standing = {u.province: u for u in position.units}
        standing.update({d.unit.province: d.unit for d in position.dislodged})
        owner = {c: p for p, cs in position.centers.items() for c in cs}
        out: dict[str, list[str]] = {}

        def unit(word: str) -> Unit:
            return standing[self.location(word).split("/")[0]]

        for line in lines:
            words = line.split()
            if words[0] == "build":
                kind = words[-2][0]
                where = self.place(kind, words[-1])
                out.setdefault(owner.get(where.split("/")[0], ""), []).append(f"BUILD {kind} {where}")
                continue
            if words[0] == "remove":
                gone = unit(words[1])
                out.setdefault(gone.power, []).append(f"REMOVE {gone}")
                continue
            if any(self.location(w).split("/")[0] not in standing for w in self.named_units(words)):
                continue  # an order for, or in aid of, a unit that is not there (godip's random games): void
            mover = unit(words[0])
            rest = words[1:]
            if rest == ["hold"]:
                text = f"{mover} H"
            elif rest == ["disband"]:
                text = f"{mover} D"
            elif rest[0] == "move":
                text = f"{mover} - {self.location(rest[1])}" + (" VIA CONVOY" if rest[2:] == ["via", "convoy"] else "")
            elif rest[0] == "support":
                helped = unit(rest[1])
                text = f"{mover} S {helped}" + (f" - {self.location(rest[3])}" if len(rest) > 2 else "")
            elif rest[0] == "convoy":
                text = f"{mover} C {unit(rest[1])} - {self.location(rest[3])}"
            else:
                raise ValueError(f"unknown order {line!r}")
            out.setdefault(mover.power, []).append(text)
        return out

    def settled(self, record: dict[str, Any]) -> tuple[tuple[Unit, ...], list[str]]:
        """The recorded units and orders, less the units dislodged in the phase before: the
        records (converted from vDiplomacy) list such a unit beside the one that took its
        province, unflagged, and remove it with a ``remove`` order."""
        units: dict[str, Unit] = {}
        doubled: set[str] = set()
        for unit in self.units(record):
            if unit.province in units:
                doubled.add(unit.province)
            units[unit.province] = unit
        lines = [line for line in record["orders"]
                 if not (line.startswith("remove ") and self.location(line.split()[1]).split("/")[0] in doubled)]
        return tuple(sorted(units.values())), lines

    @staticmethod
    def named_units(words: list[str]) -> list[str]:
        """The places of the units an order names: its own, and the one it supports or convoys."""
        return [words[0], words[2]] if words[1] in ("support", "convoy") else [words[0]]

    def play(self, position: Position, lines: list[str]) -> Any:
        board = api.prepare(self.variant, position)
        given = {power: api.read_orders(board, power, texts) for power, texts in self.orders(position, lines).items()
                 if power}
        return api.adjudicate(board, given)

    def compare(self, phase: str, position: Position, record: dict[str, Any], by_rule: set[str]) -> list[Mismatch]:
        """Units and centre ownership, ours against the record's; a province the record lists
        twice (a dislodged unit beside its attacker) matches either; for the powers in
        ``by_rule`` only the number of units counts."""
        listed: dict[str, set[str]] = {}
        for unit in self.units(record):
            listed.setdefault(unit.province, set()).add(f"{unit.power} {unit}")
        ours = {u.province: f"{u.power} {u}" for u in position.units}
        theirs = {}
        for province, names in listed.items():
            theirs[province] = ours[province] if ours.get(province) in names else min(names)
        counted = {p: sum(1 for u in position.units if u.power == p) for p in by_rule}
        recorded = {p: sum(1 for name in theirs.values() if name.split()[0] == p) for p in by_rule}
        keep = lambda names: {n for n in names if n.split()[0] not in by_rule}  # noqa: E731
        found = []
        if keep(ours.values()) != keep(theirs.values()) or counted != recorded:
            found.append(Mismatch(phase, "units", frozenset(keep(ours.values())), frozenset(keep(theirs.values()))))
        mine = {f"{p} {c}" for p, cs in position.centers.items() for c in cs}
        published = {f"{p} {c}" for p, cs in self.centres(record).items() for c in cs}
        if mine != published:
            found.append(Mismatch(phase, "centres", frozenset(mine), frozenset(published)))
        return found

    def run(self, phases: list[dict[str, Any]]) -> tuple[int, list[Mismatch]]:
        """Every movement and adjustment phase replayed from its recorded position (a retreat
        phase follows on from ours): the number of phases compared and what differed."""
        compared, mismatches = 0, []
        for index, record in enumerate(phases[:-1]):
            phase = Phase.parse(record["phase"])
            if phase.kind is PhaseKind.RETREAT:
                continue
            units, lines = self.settled(record)
            if phase.kind is PhaseKind.ADJUSTMENT:  # ours come back at the Fall's end, godip's in the Winter
                occupant = {u.province: u.power for u in units}
                units = tuple(sorted([*units, *neutral_rebuilds(self.tables, occupant, self.centres(record))]))
            start = Position(phase, units, self.centres(record))
            outcome = self.play(start, lines)
            following = phases[index + 1]
            dislodged = outcome.position.dislodged if outcome.position.phase.kind is PhaseKind.RETREAT else ()
            if Phase.parse(following["phase"]).kind is PhaseKind.RETREAT:
                if outcome.position.phase.kind is PhaseKind.RETREAT:
                    outcome = self.play(outcome.position, following["orders"])
                if index + 2 >= len(phases):
                    break
                following = phases[index + 2]
                dislodged = ()
            if Phase.parse(following["phase"]).kind is PhaseKind.ADJUSTMENT:
                rebuilt = neutral_rebuilds(self.tables, {u.province: u.power for u in self.units(following)},
                                           self.centres(following))
                following = {**following, "units": {**following["units"], "Neutral": [
                    *following["units"].get("Neutral", []), *(f"A {u.location.lower()}" for u in rebuilt)]}}
            compared += 1
            by_rule = self.removed_by_rule(start, lines) if phase.kind is PhaseKind.ADJUSTMENT else set()
            mismatches += self.compare(record["phase"], outcome.position, following, by_rule)
        return compared, mismatches

    def removed_by_rule(self, start: Position, lines: list[str]) -> set[str]:
        """The powers that had more units to remove than the record's orders remove: the
        judge chose the rest (civil disorder), and the rules for that choice differ (DATC 6.J)."""
        ordered: dict[str, int] = {}
        for power, texts in self.orders(start, lines).items():
            ordered[power] = sum(text.startswith("REMOVE") for text in texts)
        holders: dict[str, int] = {}
        for unit in start.units:
            holders[unit.power] = holders.get(unit.power, 0) + 1
        return {power for power, count in holders.items()
                if count - len(start.centers.get(power, ())) > ordered.get(power, 0)}
