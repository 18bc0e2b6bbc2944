"""Plain values the turn templates show: a phase's results, centre counts, the end summary.

Built from what a PhaseRecord stores (the position before and after as the contract's JSON,
the result list), so the results mail, PREVIEW and HISTORY read the same.  Templates get
these frozen values and strings only; player addresses appear only in ``PlayerReveal``,
which is used once the game has ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from adjudicator.types import Phase, PhaseKind, Position, Season, Variant
from judge.phases.requirements import phase_requirements

__all__ = [
    "CentreRow",
    "DislodgedView",
    "PowerResults",
    "ResultLine",
    "ResultsView",
    "SummaryTable",
    "centre_rows",
    "phase_name",
    "results_view",
    "summary_table",
]

_SEASONS = {Season.SPRING: "Spring", Season.FALL: "Fall", Season.WINTER: "Winter"}
_KINDS = {PhaseKind.MOVEMENT: "movement", PhaseKind.RETREAT: "retreats", PhaseKind.ADJUSTMENT: "adjustments"}
# How each result code reads in a results mail; successes read as what happened.
_OUTCOME_WORDS = {
    "moves": "moves",
    "holds": "holds",
    "supports": "supports",
    "convoys": "convoys",
    "bounce": "BOUNCED",
    "cut": "support CUT",
    "dislodged": "DISLODGED",
    "no_convoy": "NO CONVOY",
    "void": "VOID",
    "retreats": "retreats",
    "disbanded": "DISBANDED",
    "builds": "builds",
    "removes": "removed",
    "waived": "build waived",
}


# What the engine did for a power without orders, by phase kind.
_DEFAULT_NOTES = {
    PhaseKind.MOVEMENT: "no orders received: civil disorder, units hold",
    PhaseKind.RETREAT: "no orders received: dislodged units disband",
    PhaseKind.ADJUSTMENT: "no orders received: builds waived, removals by the civil-disorder rule",
}


# What the bot did for a power in civil disorder (RULE CD_BOT), orders given or not.
_BOT_NOTE = "no orders received: civil disorder, played by the bot (RULE CD_BOT)"
_BOT_PARTIAL_NOTE = "orders incomplete: the bot ordered the rest (RULE CD_BOT)"


# The same for a power whose orders were incomplete.
_PARTIAL_NOTES = {
    PhaseKind.MOVEMENT: "orders incomplete: units without orders hold",
    PhaseKind.RETREAT: "orders incomplete: dislodged units without orders disband",
    PhaseKind.ADJUSTMENT: "orders incomplete: the missing builds are waived, removals by the civil-disorder rule",
}


def phase_name(phase: Phase | str) -> str:
    """``S1901M`` -> ``Spring 1901 movement``."""
    value = Phase.parse(phase) if isinstance(phase, str) else phase
    return f"{_SEASONS[value.season]} {value.year} {_KINDS[value.kind]}"


@dataclass(frozen=True)
class ResultLine:
    order: str
    outcome: str  # "moves", "BOUNCED", "VOID: no unit at PAR" ...


@dataclass(frozen=True)
class PowerResults:
    power: str
    lines: tuple[ResultLine, ...]
    note: str | None  # "no orders received: civil disorder"


@dataclass(frozen=True)
class DislodgedView:
    power: str
    unit: str
    attacker_from: str | None
    retreats: tuple[str, ...]  # empty: destroyed, no retreat possible


@dataclass(frozen=True)
class CentreRow:
    power: str
    count: int
    change: str  # "+1", "-2", "" when unchanged
    centres: tuple[str, ...]
    adjustment: str  # "builds 2", "removes 1", "" (adjustments due in the coming winter)


@dataclass(frozen=True)
class ResultsView:
    game: str
    variant: str  # the map's name: "standard", "hundred"
    phase: str
    phase_name: str
    powers: tuple[PowerResults, ...]
    dislodged: tuple[DislodgedView, ...]
    centres: tuple[CentreRow, ...]  # empty unless centres were counted (after a Fall)
    neutral: int  # unowned centres (shown with the centre table)
    eliminated: tuple[str, ...]
    next_phase: str | None
    next_phase_name: str | None
    deadline: str | None
    winner: str | None


def _outcome(item: Mapping[str, Any]) -> str:
    word = _OUTCOME_WORDS.get(str(item["result"]), str(item["result"]))
    reason = item.get("reason")
    return f"{word}: {reason}" if reason else word


def _survivors(doc: Mapping[str, Any]) -> set[str]:
    owners = {p for p, owned in (doc.get("centers") or {}).items() if owned}
    return owners | {p for p, units in (doc.get("units") or {}).items() if units}


def centre_rows(variant: Variant, before: Position | None, after: Position) -> tuple[CentreRow, ...]:
    """Every power with centres or units after ``after``'s count, with the change from
    ``before`` and the adjustment each must make when ``after`` is an adjustment phase."""
    due = phase_requirements(variant, after) if after.phase.kind is PhaseKind.ADJUSTMENT else {}
    rows = []
    for power in variant.powers:
        owned = tuple(sorted(after.centers.get(power.name, ())))
        units = sum(1 for u in after.units if u.power == power.name)
        if not owned and not units and (before is None or not before.centers.get(power.name)):
            continue
        change = ""
        if before is not None:
            delta = len(owned) - len(before.centers.get(power.name, ()))
            change = f"{delta:+d}" if delta else ""
        need = due.get(power.name)
        adjustment = ""
        if need is not None and need.builds:
            adjustment = f"builds {need.builds}"
        elif need is not None and need.removals:
            adjustment = f"removes {need.removals}"
        rows.append(CentreRow(power.name, len(owned), change, owned, adjustment))
    return tuple(rows)


def results_view(
    *,
    game: str,
    variant: Variant,
    before: Position,
    before_doc: Mapping[str, Any],
    results: Sequence[Mapping[str, Any]],
    after: Position,
    after_doc: Mapping[str, Any],
    defaulted: Iterable[str] = (),
    ordered: Iterable[str] = (),
    by_bot: Iterable[str] = (),
    deadline: str | None = None,
    winner: str | None = None,
    show_next: bool = True,
) -> ResultsView:
    """The results of ``before``'s phase (``results``: the contract's result items).

    ``defaulted``: powers whose missing orders were defaulted; ``ordered``: the powers that
    sent some orders (a defaulted one among them had incomplete orders, not none); ``by_bot``:
    defaulted powers the bot played (RULE CD_BOT).
    """
    by_bot = frozenset(by_bot)
    defaulted = frozenset(defaulted)
    ordered = frozenset(ordered)
    note_text = _DEFAULT_NOTES[before.phase.kind]
    by_power: dict[str, list[ResultLine]] = {}
    for item in results:
        by_power.setdefault(str(item["power"]), []).append(ResultLine(str(item["order"]), _outcome(item)))
    powers = []
    for power in variant.powers:
        lines = tuple(by_power.pop(power.name, ()))
        note = None
        if power.name in by_bot:
            note = _BOT_PARTIAL_NOTE if power.name in ordered else _BOT_NOTE
        elif power.name in defaulted:
            note = _PARTIAL_NOTES[before.phase.kind] if power.name in ordered else note_text
        if lines or note:
            powers.append(PowerResults(power.name, lines, note))
    for unknown, unknown_lines in sorted(by_power.items()):  # a power the map does not know: still shown
        powers.append(PowerResults(unknown, tuple(unknown_lines), None))

    retreat_options = {
        (d.unit.power, d.unit.location): d for d in after.dislodged
    } if after.phase.kind is PhaseKind.RETREAT else {}
    dislodged = []
    if before.phase.kind is PhaseKind.MOVEMENT:
        for item in results:
            if item["result"] != "dislodged":
                continue
            owner = str(item["power"])
            unit_text = " ".join(str(item["order"]).split()[:2])  # "A PAR - BUR" -> "A PAR"
            location = unit_text.split()[1] if len(unit_text.split()) > 1 else unit_text
            entry = retreat_options.get((owner, location))
            dislodged.append(DislodgedView(
                owner, unit_text, entry.attacker_from if entry else None,
                tuple(sorted(entry.retreats)) if entry else (),
            ))

    year_over = before.phase.closes_year(after.phase)
    centres = centre_rows(variant, before, after) if year_over else ()
    owned = {c for cs in after.centers.values() for c in cs}
    neutral = len(variant.supply_centers - owned) if centres else 0
    eliminated = tuple(sorted(_survivors(before_doc) - _survivors(after_doc)))
    return ResultsView(
        game=game,
        variant=variant.name,
        phase=str(before.phase),
        phase_name=phase_name(before.phase),
        powers=tuple(powers),
        dislodged=tuple(dislodged),
        centres=centres,
        neutral=neutral,
        eliminated=eliminated,
        next_phase=str(after.phase) if show_next else None,
        next_phase_name=phase_name(after.phase) if show_next else None,
        deadline=deadline,
        winner=winner,
    )


@dataclass(frozen=True)
class SummaryTable:
    """Supply centres by year: ``years`` are column labels, ``rows`` (power, counts)."""

    years: tuple[str, ...]
    rows: tuple[tuple[str, tuple[int, ...]], ...]


def summary_table(variant: Variant, start: Position, year_ends: Sequence[tuple[int, Position]]) -> SummaryTable:
    """Centre counts at the start and after each year's Fall (``year_ends``: (year, position))."""
    columns: list[tuple[str, Position]] = [("start", start)]
    seen: dict[int, Position] = {}
    for year, position in year_ends:
        seen[year] = position  # the last position counted for a year wins
    columns += [(str(year), seen[year]) for year in sorted(seen)]
    rows = tuple(
        (power.name, tuple(len(position.centers.get(power.name, ())) for _, position in columns))
        for power in variant.powers
    )
    return SummaryTable(tuple(label for label, _ in columns), rows)
