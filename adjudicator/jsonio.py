"""Positions and results <-> the JSON of shared/contracts/adjudicate.md.

Pure: documents are already-decoded ``dict``/``list`` values.  Input is checked
thoroughly (this is where ``judge adjudicate`` meets other people's tools) and
refused with a ``ContractError(message, detail)``; output is canonical: units as
``"F LON"``, powers and provinces sorted, coasts as ``SPA/NC``.

Position document (what ``position_to_json`` writes and ``position_from_json``
reads; ``judge adjudicate`` adds ``orders`` and ``rules`` to it)::

    {"map": "standard", "phase": "F1901R",
     "units":     {"ENGLAND": ["F LON", ...], ...},
     "centers":   {"ENGLAND": ["EDI", "LON", "LVP"], ...},
     "dislodged": {"FRANCE": [{"unit": "F BRE", "retreats": ["GAS", "PIC"],
                               "attacker_from": "ENG"}]}}

``centers`` may be left out except in adjustment phases; ``dislodged`` only
appears in retreat phases (``attacker_from`` is optional on input).
"""

from __future__ import annotations

from itertools import chain
from json.encoder import encode_basestring
from operator import attrgetter
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple

from adjudicator.mapdata import normalise_name
from adjudicator.memo import per_variant
from adjudicator.types import (
    NEUTRAL,
    Dislodged,
    Phase,
    PhaseKind,
    Position,
    Terrain,
    Unit,
    UnitKind,
    Variant,
)

if TYPE_CHECKING:  # the resolver's result types; only their attributes are used here
    from adjudicator.results import Adjudication, OrderResult

__all__ = [
    "INPUT_FIELDS",
    "ContractError",
    "position_from_json",
    "position_to_json",
    "order_texts_from_json",
    "rules_from_json",
    "result_to_json",
    "results_to_json",
    "results_to_text",
    "error_to_json",
]

INPUT_FIELDS = ("map", "phase", "units", "centers", "dislodged", "orders", "rules")
_UNIT_KINDS = {"A": UnitKind.ARMY, "ARMY": UnitKind.ARMY, "F": UnitKind.FLEET, "FLEET": UnitKind.FLEET}


class ContractError(ValueError):
    """Malformed input: ``message`` says what is wrong, ``detail`` quotes the offending part."""

    def __init__(self, message: str, detail: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


def error_to_json(error: ContractError) -> dict[str, Any]:
    """The contract's error object."""
    return {"error": error.message, "detail": error.detail}


# -- reading ----------------------------------------------------------------------------------


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ContractError(f"{where} must be a JSON object", value)
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ContractError(f"{where} must be a JSON list", value)
    return value


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ContractError(f"{where} must be a string", value)
    return value


def _power(variant: Variant | None, name: Any, where: str) -> str:
    power = _string(name, f"a power name in {where}").strip().upper()
    if variant is not None and power not in _power_names(variant):
        raise ContractError(
            f"unknown power {name!r} in {where}",
            {"power": name, "known": list(_power_names(variant))},
        )
    return power


def _power_names(variant: Variant) -> tuple[str, ...]:
    """The powers a position may name: the map's, and NEUTRAL on a map with neutral armies."""
    return tuple(p.name for p in variant.powers) + ((NEUTRAL,) if variant.neutral_armies else ())


def _location(variant: Variant | None, text: str, where: str) -> str:
    """A location written as the contract does (``SPA/NC``) or with a map alias."""
    province_text, slash, coast = text.strip().partition("/")
    if variant is None:
        return text.strip().upper()
    province = variant.aliases.get(normalise_name(province_text))
    if province is None:
        raise ContractError(f"unknown province {province_text.strip()!r} in {where}", text)
    if not slash:
        return province
    coast = coast.strip().upper()
    if coast not in variant.provinces[province].coasts:
        coasts = variant.provinces[province].coasts
        raise ContractError(
            f"bad coast in {text!r} ({where}): "
            + (f"{province} has coasts {', '.join(coasts)}" if coasts else f"{province} has no separate coasts"),
            text,
        )
    return f"{province}/{coast}"


def _unit(variant: Variant | None, value: Any, power: str, where: str) -> Unit:
    text = _string(value, f"a unit in {where}")
    kind_word, _, place = text.strip().partition(" ")
    kind = _UNIT_KINDS.get(kind_word.upper())
    if kind is None or not place.strip():
        raise ContractError(f"a unit is written like 'A PAR' or 'F STP/SC', not {text!r} ({where})", text)
    location = _location(variant, place, where)
    if variant is not None:
        province = variant.provinces[location.partition("/")[0]]
        if kind is UnitKind.ARMY and (province.terrain is Terrain.SEA or "/" in location):
            raise ContractError(f"an army cannot stand on {location} ({where})", text)
        if kind is UnitKind.FLEET and province.terrain is Terrain.LAND:
            raise ContractError(f"a fleet cannot stand on land ({location}, {where})", text)
        if kind is UnitKind.FLEET and province.coasts and "/" not in location:
            raise ContractError(
                f"a fleet in {location} must name its coast ({', '.join(f'{location}/{c}' for c in province.coasts)}) ({where})",
                text,
            )
    return Unit(location, kind, power)


def _phase(doc: Mapping[str, Any]) -> Phase:
    if "phase" not in doc:
        raise ContractError("missing field 'phase' (e.g. \"S1901M\")", None)
    text = _string(doc["phase"], "phase")
    try:
        return Phase.parse(text)
    except ValueError:
        raise ContractError(f"bad phase {text!r}: expected season S/F/W, year, M/R/A as in S1901M, F1901R, W1901A", text) from None


class _Names(NamedTuple):
    """A map's names as the contract writes them canonically, for the quick reading of a
    position (``_units``, ``_centers``): what the careful reading would make of each."""

    powers: Mapping[str, str]  # "FRANCE" -> "FRANCE"
    # "RUSSIA" -> {"F STP/SC": Unit("STP/SC", FLEET, "RUSSIA"), ...}: every unit that may stand
    # so, made once for each power of the map (units are values: equal to one made anew)
    units: Mapping[str, Mapping[str, Unit]]
    provinces: Mapping[str, str]  # location -> its province: "STP/SC" -> "STP"
    centers: frozenset[str]  # the supply centres' abbreviations


@per_variant
def _names(variant: Variant) -> _Names:
    """The canonical names of ``variant``, each read once by the careful reader (memoised
    per variant: derived from immutable data only)."""
    powers = _power_names(variant)
    units: dict[str, dict[str, Unit]] = {power: {} for power in powers}
    provinces: dict[str, str] = {}
    for province in variant.provinces.values():
        for place in (province.abbrev, *(f"{province.abbrev}/{coast}" for coast in province.coasts)):
            for kind in ("A", "F"):
                text = f"{kind} {place}"
                try:
                    unit = _unit(variant, text, "", "")
                except ContractError:
                    continue
                provinces[unit.location] = unit.province
                for power in powers:
                    units[power][text] = Unit(unit.location, unit.kind, power)
    return _Names({power: power for power in powers}, units, provinces, frozenset(variant.supply_centers))


def _units(variant: Variant | None, doc: Mapping[str, Any]) -> tuple[Unit, ...]:
    if "units" not in doc:
        raise ContractError("missing field 'units' (power -> list of units like \"F LON\")", None)
    if variant is not None:
        quick = _units_quickly(_names(variant), doc["units"])
        if quick is not None:
            return quick
    return _units_carefully(variant, doc)


def _units_quickly(names: _Names, listed: Any) -> tuple[Unit, ...] | None:
    """The units as ``_units_carefully`` reads them when every power and unit is written
    canonically and nothing is wrong; else ``None`` (the careful reading finds what)."""
    if type(listed) is not dict:
        return None
    units: list[Unit] = []
    known_units = names.units
    try:
        for name, written in listed.items():
            known = known_units.get(name)
            if known is None or type(written) is not list:
                return None
            units += map(known.__getitem__, written)  # KeyError for anything else, TypeError for a list
    except (KeyError, TypeError):
        return None
    if len(set(map(names.provinces.__getitem__, map(_by_location, units)))) != len(units):
        return None  # two units in a province: said carefully
    units.sort(key=_by_location)
    return tuple(units)


_by_location = attrgetter("location")


def _units_carefully(variant: Variant | None, doc: Mapping[str, Any]) -> tuple[Unit, ...]:
    units: list[Unit] = []
    seen: dict[str, Unit] = {}
    for name, listed in _object(doc["units"], "units").items():
        power = _power(variant, name, "units")
        for value in _list(listed, f"units of {power}"):
            unit = _unit(variant, value, power, f"units of {power}")
            if unit.province in seen:
                raise ContractError(f"two units in {unit.province}: {seen[unit.province]} and {unit}", value)
            seen[unit.province] = unit
            units.append(unit)
    return tuple(sorted(units))


def _centers(variant: Variant | None, doc: Mapping[str, Any], phase: Phase) -> Mapping[str, frozenset[str]]:
    if variant is not None and "centers" in doc:
        quick = _centers_quickly(_names(variant), doc["centers"])
        if quick is not None:
            return quick
    return _centers_carefully(variant, doc, phase)


def _centers_quickly(names: _Names, listed: Any) -> Mapping[str, frozenset[str]] | None:
    """The centres as ``_centers_carefully`` reads them when every power and centre is
    written canonically and no centre has two owners; else ``None``."""
    if type(listed) is not dict:
        return None
    centers: dict[str, frozenset[str]] = {}
    supply, known_powers = names.centers, names.powers
    count = 0
    try:
        for name, written in listed.items():
            power = known_powers.get(name)
            if power is None or type(written) is not list:
                return None
            owned = frozenset(written)  # TypeError for a list or an object: the careful way
            if not owned <= supply:
                return None
            centers[power] = owned
            count += len(owned)
    except TypeError:
        return None
    if count != len(frozenset().union(*centers.values())):
        return None  # a centre owned by two powers: said carefully
    return MappingProxyType(centers)  # as a Position keeps them: taken as they are


def _centers_carefully(variant: Variant | None, doc: Mapping[str, Any], phase: Phase) -> dict[str, frozenset[str]]:
    if "centers" not in doc:
        if phase.kind is PhaseKind.ADJUSTMENT:
            raise ContractError("missing field 'centers': adjustment phases need centre ownership", None)
        return {}
    owners: dict[str, str] = {}
    centers: dict[str, frozenset[str]] = {}
    supply = variant.supply_centers if variant is not None else None
    for name, listed in _object(doc["centers"], "centers").items():
        power = _power(variant, name, "centers")
        owned: set[str] = set()
        for value in _list(listed, f"centers of {power}"):
            center = _location(variant, _string(value, f"a centre of {power}"), f"centers of {power}")
            if supply is not None and center not in supply:
                raise ContractError(f"{center} is not a supply centre (centers of {power})", value)
            if center in owners and owners[center] != power:
                raise ContractError(f"{center} is owned by both {owners[center]} and {power}", value)
            owners[center] = power
            owned.add(center)
        centers[power] = frozenset(owned) | centers.get(power, frozenset())
    return centers


def _dislodged(variant: Variant | None, doc: Mapping[str, Any], phase: Phase, units: tuple[Unit, ...]) -> tuple[Dislodged, ...]:
    if "dislodged" not in doc or not doc["dislodged"]:
        return ()
    if phase.kind is not PhaseKind.RETREAT:
        raise ContractError(f"'dislodged' is given only for retreat phases, not {phase}", doc["dislodged"])
    result: list[Dislodged] = []
    seen: set[str] = set()
    for name, listed in _object(doc["dislodged"], "dislodged").items():
        power = _power(variant, name, "dislodged")
        for entry in _list(listed, f"dislodged units of {power}"):
            where = f"dislodged units of {power}"
            entry = _object(entry, f"an entry of {where} (like {{\"unit\": \"F BRE\", \"retreats\": [\"GAS\"]}})")
            unknown = set(entry) - {"unit", "retreats", "attacker_from"}
            if unknown:
                raise ContractError(f"unknown field(s) {sorted(unknown)} in {where} (known: unit, retreats, attacker_from)", entry)
            if "unit" not in entry:
                raise ContractError(f"missing 'unit' in {where}", entry)
            unit = _unit(variant, entry["unit"], power, where)
            if unit.province in seen:
                raise ContractError(f"two dislodged units in {unit.province}", entry)
            seen.add(unit.province)
            retreats = tuple(
                sorted(
                    _location(variant, _string(r, f"a retreat of {unit}"), f"retreats of {unit}")
                    for r in _list(entry.get("retreats", []), f"retreats of {unit}")
                )
            )
            attacker = entry.get("attacker_from")
            if attacker is not None:
                attacker = _location(variant, _string(attacker, f"attacker_from of {unit}"), f"attacker_from of {unit}")
            result.append(Dislodged(unit, attacker, retreats))
    return tuple(sorted(result, key=lambda d: d.unit.location))


def position_from_json(variant_or_doc: Variant | Mapping[str, Any], doc: Mapping[str, Any] | None = None) -> Position:
    """The ``Position`` described by a contract document; raises ``ContractError``.

    Call as ``position_from_json(variant, doc)``: names are checked against the map
    and may use its aliases.  ``position_from_json(doc)`` (no variant) only checks
    the document's shape and expects canonical names.  Other fields (``orders``,
    ``rules``, ``map``) are ignored here.
    """
    if isinstance(variant_or_doc, Variant):
        variant: Variant | None = variant_or_doc
        if doc is None:
            raise TypeError("position_from_json(variant, doc): the document is missing")
    else:
        variant, doc = None, variant_or_doc
    doc = _object(doc, "the input document")
    phase = _phase(doc)
    units = _units(variant, doc)
    return Position(phase, units, _centers(variant, doc, phase), _dislodged(variant, doc, phase, units))


def order_texts_from_json(variant: Variant, doc: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """``orders``: power -> the order lines as typed (parsed later, one by one)."""
    listed = doc.get("orders", {})
    if type(listed) is dict:  # the quick way, when every power is written canonically
        known_powers = _names(variant).powers
        quick = {known_powers.get(name): lines for name, lines in listed.items()}
        if None not in quick and _LISTS.issuperset(map(type, quick.values())) and _STRINGS.issuperset(
                map(type, chain.from_iterable(quick.values()))):  # C-level maps: every order a string
            return dict(zip(quick, map(tuple, quick.values())))  # type: ignore[arg-type]
    orders: dict[str, tuple[str, ...]] = {}
    for name, lines in _object(listed, "orders").items():
        power = _power(variant, name, "orders")
        texts = tuple(_string(line, f"an order of {power}") for line in _list(lines, f"orders of {power}"))
        orders[power] = orders.get(power, ()) + texts
    return orders


_LISTS = frozenset({list})
_STRINGS = frozenset({str})


def rules_from_json(doc: Mapping[str, Any], known: Iterable[str]) -> frozenset[str]:
    """``rules``: optional rule names, each one of ``known`` (case-insensitive)."""
    known_names = frozenset(known)
    rules: set[str] = set()
    for value in _list(doc.get("rules", []), "rules"):
        name = _string(value, "a rule name").strip().upper()
        if name not in known_names:
            raise ContractError(f"unknown rule {value!r}", {"rule": value, "known": sorted(known_names)})
        rules.add(name)
    return frozenset(rules)


# -- writing ---------------------------------------------------------------------------------


def _units_by_power(units: Iterable[Unit]) -> dict[str, list[str]]:
    by_power: dict[str, list[Unit]] = {}
    for unit in units:
        by_power.setdefault(unit.power, []).append(unit)
    return {power: [str(u) for u in sorted(listed, key=_by_location)] for power, listed in sorted(by_power.items())}


def _centers_by_power(centers: Mapping[str, frozenset[str]]) -> dict[str, list[str]]:
    return {power: sorted(owned) for power, owned in sorted(centers.items()) if owned}


def position_to_json(position: Position, map_name: str = "standard") -> dict[str, Any]:
    """The canonical document of a position (readable back by ``position_from_json``)."""
    doc: dict[str, Any] = {
        "map": map_name,
        "phase": str(position.phase),
        "units": _units_by_power(position.units),
        "centers": _centers_by_power(position.centers),
    }
    if position.dislodged:
        dislodged: dict[str, list[dict[str, Any]]] = {}
        for entry in sorted(position.dislodged, key=lambda d: (d.unit.power, d.unit.location)):
            item: dict[str, Any] = {"unit": str(entry.unit), "retreats": sorted(entry.retreats)}
            if entry.attacker_from is not None:
                item["attacker_from"] = entry.attacker_from
            dislodged.setdefault(entry.unit.power, []).append(item)
        doc["dislodged"] = dislodged
    return doc


def result_to_json(result: OrderResult) -> dict[str, Any]:
    item: dict[str, Any] = {"power": result.power, "order": result.order, "result": result.result}
    if result.reason is not None:
        item["reason"] = result.reason
    return item


def _in_order(adjudication: Adjudication, extra: Iterable[OrderResult]) -> list[OrderResult]:
    """The results, each of ``extra`` listed after its power's other results (the
    adjudication's own are grouped by power already)."""
    results = list(adjudication.results)
    extra = list(extra)
    if extra:
        results += extra
        powers = {r.power: i for i, r in reversed(list(enumerate(results)))}
        results = [results[i] for i in sorted(range(len(results)), key=lambda i: (powers[results[i].power], i))]
    return results


def results_to_json(phase: Phase, adjudication: Adjudication, extra: Iterable[OrderResult] = ()) -> dict[str, Any]:
    """The contract's output document for one adjudicated phase.

    ``extra`` are results decided before adjudication (orders that could not be
    parsed, reported as ``void``); they are listed with their power's results.
    """
    nxt = adjudication.position
    return {
        "phase": str(phase),
        "results": list(map(result_to_json, _in_order(adjudication, extra))),
        "units": _units_by_power(nxt.units),
        "dislodged": [
            {
                "power": d.unit.power,
                "unit": str(d.unit),
                "attacker_from": d.attacker_from,
                "retreats": sorted(d.retreats),
            }
            for d in sorted(adjudication.dislodged, key=lambda d: d.unit.location)
        ],
        "contested": sorted(adjudication.contested),
        "centers": _centers_by_power(nxt.centers),
        "next_phase": str(nxt.phase),
        "winner": adjudication.winner,
    }


def results_to_text(phase: Phase, adjudication: Adjudication, extra: Iterable[OrderResult] = ()) -> str:
    """``json.dumps(results_to_json(phase, adjudication, extra), ensure_ascii=False)``, the
    same text written straight from the values (``judge adjudicate --batch`` answers every
    line so: no documents built only to be encoded; C-level maps over the results and units,
    the fixed parts of each result written once per power and result code)."""
    q = _quote
    ordered = _in_order(adjudication, extra)
    results = ""
    if ordered:
        powers, orders, codes, reasons = zip(*ordered)
        tails = list(map(_RESULT_TAILS.__getitem__, codes))
        if reasons.count(None) != len(reasons):
            for i, reason in enumerate(reasons):
                if reason is not None:
                    tails[i] = f', "result": {q(codes[i])}, "reason": {q(reason)}}}'
        results = ", ".join(map("".join, zip(map(_RESULT_HEADS.__getitem__, powers), map(q, orders), tails)))
    nxt = adjudication.position
    return (
        f'{{"phase": {q(str(phase))}, "results": [{results}], "units": {{{_units_text(nxt.units)}}}, '
        f'"dislodged": [{_dislodged_text(adjudication.dislodged)}], "contested": {_strings(sorted(adjudication.contested))}, '
        f'"centers": {{{_centers_text(nxt.centers)}}}, "next_phase": {q(str(nxt.phase))}, "winner": {_nullable(adjudication.winner)}}}'
    )


def _units_text(units: Iterable[Unit]) -> str:
    """The ``units`` object's members: power -> unit texts, both sorted."""
    q = _quote
    by_power: dict[str, list[str]] = {}
    for unit in sorted(units, key=_by_location):
        by_power.setdefault(unit.power, []).append(q(f"{unit.kind._value_} {unit.location}"))
    return ", ".join([f"{q(power)}: [{', '.join(listed)}]" for power, listed in sorted(by_power.items())])


def _dislodged_text(dislodged: Iterable[Dislodged]) -> str:
    return ", ".join(
        f'{{"power": {_quote(d.unit.power)}, "unit": {_quote(str(d.unit))}, "attacker_from": {_nullable(d.attacker_from)}, '
        f'"retreats": {_strings(sorted(d.retreats))}}}'
        for d in sorted(dislodged, key=lambda d: d.unit.location)
    )


def _centers_text(centers: Mapping[str, frozenset[str]]) -> str:
    q = _quote
    return ", ".join([f"{q(power)}: [{', '.join(map(q, sorted(owned)))}]" for power, owned in sorted(centers.items()) if owned])


class _Written(dict):
    """``text -> what it is written as``, each worked out at its first use (``__missing__``)."""

    def __init__(self, write: Any) -> None:
        super().__init__()
        self.write = write

    def __missing__(self, key: str) -> str:
        self[key] = written = self.write(key)
        return written


_quote = encode_basestring  # a string as json.dumps(..., ensure_ascii=False) writes it

# The fixed parts of a result without reason, around its order: by power, by result code.
_RESULT_HEADS = _Written(lambda power: f'{{"power": {_quote(power)}, "order": ')
_RESULT_TAILS = _Written(lambda code: f', "result": {_quote(code)}}}')



def _strings(texts: Iterable[str]) -> str:
    return f"[{', '.join(map(_quote, texts))}]"


def _nullable(text: str | None) -> str:
    return "null" if text is None else _quote(text)
