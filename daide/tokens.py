"""DAIDE tokens: the 2-byte words of the protocol and their 3-letter names.

A token's high byte is its category (brackets, powers, unit types, orders, notes,
results, coasts, phases, commands, parameters, press, text, integers, provinces).
Powers and provinces depend on the map: ``TokenTable.for_variant`` numbers them the
way the DAIDE standard map does (powers alphabetically from 0x4100; provinces by
category, then alphabetically, with one running index), so the standard map keeps
its well-known values and any other variant gets a consistent table that the
server announces in its RM.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from adjudicator.types import Terrain, Variant

BRACKETS = 0x40
POWERS = 0x41
UNIT_TYPES = 0x42
ORDERS = 0x43
ORDER_NOTES = 0x44
RESULTS = 0x45
COASTS = 0x46
PHASES = 0x47
COMMANDS = 0x48
PARAMETERS = 0x49
PRESS = 0x4A
TEXT = 0x4B
PROVINCE_FIRST = 0x50  # 0x50..0x57: inland, sea, coastal, bicoastal; odd = supply centre
PROVINCE_LAST = 0x57

BRA, KET = 0x4000, 0x4001

# The map-independent tokens (the DAIDE message syntax document's table).
FIXED: Mapping[str, int] = MappingProxyType({
    "AMY": 0x4200, "FLT": 0x4201,
    "CTO": 0x4320, "CVY": 0x4321, "HLD": 0x4322, "MTO": 0x4323, "SUP": 0x4324, "VIA": 0x4325,
    "DSB": 0x4340, "RTO": 0x4341, "BLD": 0x4380, "REM": 0x4381, "WVE": 0x4382,
    "MBV": 0x4400, "BPR": 0x4401, "CST": 0x4402, "ESC": 0x4403, "FAR": 0x4404, "HSC": 0x4405,
    "NAS": 0x4406, "NMB": 0x4407, "NMR": 0x4408, "NRN": 0x4409, "NRS": 0x440A, "NSA": 0x440B,
    "NSC": 0x440C, "NSF": 0x440D, "NSP": 0x440E, "NST": 0x440F, "NSU": 0x4410, "NVR": 0x4411,
    "NYU": 0x4412, "YSC": 0x4413,
    "SUC": 0x4500, "BNC": 0x4501, "CUT": 0x4502, "DSR": 0x4503, "FLD": 0x4504, "NSO": 0x4505,
    "RET": 0x4506,
    "NCS": 0x4600, "NEC": 0x4602, "ECS": 0x4604, "SEC": 0x4606, "SCS": 0x4608, "SWC": 0x460A,
    "WCS": 0x460C, "NWC": 0x460E,
    "SPR": 0x4700, "SUM": 0x4701, "FAL": 0x4702, "AUT": 0x4703, "WIN": 0x4704,
    "CCD": 0x4800, "DRW": 0x4801, "FRM": 0x4802, "GOF": 0x4803, "HLO": 0x4804, "HST": 0x4805,
    "HUH": 0x4806, "IAM": 0x4807, "LOD": 0x4808, "MAP": 0x4809, "MDF": 0x480A, "MIS": 0x480B,
    "NME": 0x480C, "NOT": 0x480D, "NOW": 0x480E, "OBS": 0x480F, "OFF": 0x4810, "ORD": 0x4811,
    "OUT": 0x4812, "PRN": 0x4813, "REJ": 0x4814, "SCO": 0x4815, "SLO": 0x4816, "SND": 0x4817,
    "SUB": 0x4818, "SVE": 0x4819, "THX": 0x481A, "TME": 0x481B, "YES": 0x481C, "ADM": 0x481D,
    "SMR": 0x481E,
    "AOA": 0x4900, "BTL": 0x4901, "ERR": 0x4902, "LVL": 0x4903, "MRT": 0x4904, "MTL": 0x4905,
    "NPB": 0x4906, "NPR": 0x4907, "PDA": 0x4908, "PTL": 0x4909, "RTL": 0x490A, "UNO": 0x490B,
    "DSD": 0x490D,
    "ALY": 0x4A00, "AND": 0x4A01, "BWX": 0x4A02, "DMZ": 0x4A03, "ELS": 0x4A04, "EXP": 0x4A05,
    "FCT": 0x4A06, "FOR": 0x4A07, "FWD": 0x4A08, "HOW": 0x4A09, "IDK": 0x4A0A, "IFF": 0x4A0B,
    "INS": 0x4A0C, "IOU": 0x4A0D, "OCC": 0x4A0E, "ORR": 0x4A0F, "PCE": 0x4A10, "POB": 0x4A11,
    "PPT": 0x4A12, "PRP": 0x4A13, "QRY": 0x4A14, "SCD": 0x4A15, "SRY": 0x4A16, "SUG": 0x4A17,
    "THK": 0x4A18, "THN": 0x4A19, "TRY": 0x4A1A, "UOM": 0x4A1B, "VSS": 0x4A1C, "WHT": 0x4A1D,
    "WHY": 0x4A1E, "XDO": 0x4A1F, "XOY": 0x4A20, "YDO": 0x4A21, "CHO": 0x4A22, "BCC": 0x4A23,
    "UNT": 0x4A24, "NAR": 0x4A25,
})

# Our map's coast suffixes <-> DAIDE coast tokens.
COAST_TOKENS: Mapping[str, str] = MappingProxyType({
    "NC": "NCS", "NE": "NEC", "EC": "ECS", "SE": "SEC", "SC": "SCS", "SW": "SWC", "WC": "WCS", "NW": "NWC",
})
COAST_SUFFIXES: Mapping[str, str] = MappingProxyType({v: k for k, v in COAST_TOKENS.items()})

# Where our map files name a province differently from DAIDE's standard map (the
# DAIDE names avoid clashing with power tokens: ENG is England).
DAIDE_PROVINCE_NAMES: Mapping[str, str] = MappingProxyType({"ENG": "ECH", "BOT": "GOB", "LYO": "GOL"})


# The DAIDE standard map's powers and provinces by category: what an empty RM means.
_STANDARD_NAMES = {
    0x41: "AUS ENG FRA GER ITA RUS TUR",
    0x50: "BOH BUR GAL RUH SIL TYR UKR",
    0x51: "BUD MOS MUN PAR SER VIE WAR",
    0x52: "ADR AEG BAL BAR BLA EAS ECH GOB GOL HEL ION IRI MAO NAO NTH NWG SKA TYS WES",
    0x54: "ALB APU ARM CLY FIN GAS LVN NAF PIC PIE PRU SYR TUS WAL YOR",
    0x55: "ANK BEL BER BRE CON DEN EDI GRE HOL KIE LON LVP MAR NAP NWY POR ROM RUM SEV SMY SWE TRI TUN VEN",
    0x57: "BUL SPA STP",
}


def standard_entries() -> list[tuple[int, str]]:
    """(value, name) of the standard map's powers and provinces (one running index for provinces)."""
    entries = [(0x4100 | i, name) for i, name in enumerate(_STANDARD_NAMES[0x41].split())]
    index = 0
    for category in (0x50, 0x51, 0x52, 0x54, 0x55, 0x57):
        for name in _STANDARD_NAMES[category].split():
            entries.append(((category << 8) | index, name))
            index += 1
    return entries


class UnrepresentableVariant(ValueError):
    """A variant whose power or province names cannot be given distinct 3-letter tokens."""


def is_integer(token: int) -> bool:
    return token < 0x4000


def integer_value(token: int) -> int:
    """14-bit two's complement: 0x0000..0x1FFF positive, 0x2000..0x3FFF negative."""
    return token - 0x4000 if token & 0x2000 else token


def integer_token(number: int) -> int:
    if not -8192 <= number <= 8191:
        raise ValueError(f"{number} does not fit a DAIDE integer (-8192..8191)")
    return number & 0x3FFF


def is_text(token: int) -> bool:
    return token >> 8 == TEXT


def is_province(token: int) -> bool:
    return PROVINCE_FIRST <= token >> 8 <= PROVINCE_LAST


@dataclass(frozen=True)
class TokenTable:
    """Names <-> values for one map: the fixed tokens plus its powers and provinces.

    ``power_names`` maps our power name (``ENGLAND``) to its token name (``ENG``);
    ``province_names`` our province abbreviation (``ENG``) to its token name (``ECH``).
    """

    by_name: Mapping[str, int]
    by_value: Mapping[int, str]
    power_names: Mapping[str, str] = field(default_factory=dict)
    province_names: Mapping[str, str] = field(default_factory=dict)

    @property
    def power_of_token(self) -> Mapping[str, str]:
        return {v: k for k, v in self.power_names.items()}

    @property
    def province_of_token(self) -> Mapping[str, str]:
        return {v: k for k, v in self.province_names.items()}

    def map_tokens(self) -> list[tuple[int, str]]:
        """The power and province tokens, as an RM lists them."""
        names = set(self.power_names.values()) | set(self.province_names.values())
        return sorted((self.by_name[name], name) for name in names)

    def representation(self) -> list[tuple[int, str]]:
        """What the RM carries: nothing for the standard map's tokens (every client knows
        them; the AiClient bots misread the names of a full RM), else every map token."""
        tokens = self.map_tokens()
        return [] if tokens == sorted(standard_entries()) else tokens

    @classmethod
    def standard(cls) -> "TokenTable":
        """The table an empty RM stands for (names are the DAIDE names on both sides)."""
        return cls.from_representation(standard_entries())

    @classmethod
    def for_variant(cls, variant: Variant) -> "TokenTable":
        """The table of ``variant``: powers first (the first three letters of the name),
        then provinces (the map's abbreviation, or the DAIDE standard name), each kept when
        it is three letters and free; a name that clashes (with a token, a power, another
        province) gets the first free three letters drawn from its own name."""
        used = set(FIXED)
        power_names = {p.name: _claim(p.name[:3], p.name, used) for p in variant.powers}
        province_names = {a: _claim(DAIDE_PROVINCE_NAMES.get(a, a), f"{a}{variant.provinces[a].name}", used)
                          for a in sorted(variant.provinces)}
        by_name = dict(FIXED)
        for index, token in enumerate(sorted(power_names.values())):
            by_name[token] = (POWERS << 8) | index
        keyed = sorted((_province_category(variant, ours), token) for ours, token in province_names.items())
        if len(keyed) > 256:
            raise UnrepresentableVariant(f"variant {variant.name!r} has {len(keyed)} provinces; DAIDE numbers 256")
        for index, (category, token) in enumerate(keyed):
            by_name[token] = (category << 8) | index
        by_value = {v: k for k, v in by_name.items()}
        by_value[BRA], by_value[KET] = "(", ")"
        return cls(MappingProxyType(by_name), MappingProxyType(by_value),
                   MappingProxyType(power_names), MappingProxyType(province_names))

    @classmethod
    def from_representation(cls, entries: list[tuple[int, str]]) -> "TokenTable":
        """A table from an RM's (value, name) entries, as a client reads it."""
        by_name = dict(FIXED)
        for value, name in entries:
            by_name[name] = value
        by_value = {v: k for k, v in by_name.items()}
        by_value[BRA], by_value[KET] = "(", ")"
        powers = {n: n for v, n in entries if v >> 8 == POWERS}
        provinces = {n: n for v, n in entries if is_province(v)}
        return cls(MappingProxyType(by_name), MappingProxyType(by_value), MappingProxyType(powers), MappingProxyType(provinces))


def _claim(wanted: str, source: str, used: set[str]) -> str:
    """``wanted`` when it is three capital letters and free, else the first free name made of
    the first letter of ``source`` and two later letters of it, else of any two letters."""
    wanted = wanted.upper()
    if len(wanted) == 3 and wanted.isalpha() and wanted.isascii() and wanted not in used:
        used.add(wanted)
        return wanted
    letters = [c for c in source.upper() if "A" <= c <= "Z"] or ["X"]
    head = letters[0]
    rest = letters[1:]
    candidates = (head + a + b for i, a in enumerate(rest) for b in rest[i + 1:])
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    fallback = (h + a + b for h in [head] + list(alphabet) for a in alphabet for b in alphabet)
    for name in (*candidates, *fallback):
        if name not in used:
            used.add(name)
            return name
    raise UnrepresentableVariant(f"no free three-letter DAIDE name for {source!r}")


def _province_category(variant: Variant, abbrev: str) -> int:
    province = variant.provinces[abbrev]
    if province.coasts:
        base = 0x56
    elif province.terrain is Terrain.SEA:
        base = 0x52
    elif province.terrain is Terrain.LAND:
        base = 0x50
    else:
        base = 0x54
    return base | (1 if province.supply_center else 0)
