"""Reader for the jDip-format DATC test file (shared/datc/datc_v2.4_06.txt).

The file is a sequence of ``CASE <id> ... END`` blocks with sections
(PRESTATE_SETPHASE, PRESTATE, PRESTATE_DISLODGED, PRESTATE_RESULTS,
PRESTATE_SUPPLYCENTER_OWNERS, ORDERS, POSTSTATE, POSTSTATE_DISLODGED,
POSTSTATE_SAME).  Entries are ``Power: text`` lines; ``#`` starts a comment.
This module only splits text; turning it into positions is the test's job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_SECTIONS = {
    "PRESTATE",
    "PRESTATE_DISLODGED",
    "PRESTATE_RESULTS",
    "PRESTATE_SUPPLYCENTER_OWNERS",
    "ORDERS",
    "POSTSTATE",
    "POSTSTATE_DISLODGED",
}
_ENTRY = re.compile(r"^(?:(SUCCESS|FAILURE)\s*:\s*)?([A-Za-z]+)\s*:?\s+(.*\S)\s*$")


@dataclass
class DatcCase:
    case_id: str
    title: str
    line: int
    phase: str = "Spring 1901, Movement"
    sections: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # name -> (flag, power, text)
    poststate_same: bool = False

    def entries(self, section: str) -> list[tuple[str, str]]:
        return [(power, text) for _, power, text in self.sections.get(section, [])]

    def results(self) -> list[tuple[bool, str, str]]:
        return [(flag == "SUCCESS", power, text) for flag, power, text in self.sections.get("PRESTATE_RESULTS", [])]

    def has(self, section: str) -> bool:
        return section in self.sections


class DatcFormatError(ValueError):
    pass


def read_cases(path: Path) -> list[DatcCase]:
    """All cases of the file, ids made unique (a repeated id gets ``#2``, ``#3``...)."""
    cases: list[DatcCase] = []
    seen: dict[str, int] = {}
    current: DatcCase | None = None
    section: str | None = None
    for number, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        text = raw.split("#", 1)[0].rstrip()
        if not text.strip():
            continue
        indented = text[0] in " \t"
        stripped = text.strip()
        keyword = stripped.split(None, 1)[0]
        if not indented and keyword == "CASE":
            rest = stripped[4:].strip()
            case_id = rest.split(None, 1)[0].rstrip(".")
            seen[case_id] = seen.get(case_id, 0) + 1
            if seen[case_id] > 1:
                case_id = f"{case_id}#{seen[case_id]}"
            current = DatcCase(case_id, rest, number)
            section = None
            continue
        if current is None:
            continue  # VARIANT_ALL and the header
        if not indented and keyword == "END":
            cases.append(current)
            current, section = None, None
            continue
        if not indented and keyword == "PRESTATE_SETPHASE":
            current.phase = stripped[len(keyword) :].strip()
            continue
        if not indented and keyword == "POSTSTATE_SAME":
            current.poststate_same = True
            continue
        if not indented and keyword in _SECTIONS:
            section = keyword
            current.sections.setdefault(section, [])
            continue
        if section is None:
            raise DatcFormatError(f"line {number}: {raw!r} outside any section")
        match = _ENTRY.match(stripped)
        if match is None:
            raise DatcFormatError(f"line {number}: cannot read entry {raw!r}")
        flag, power, body = match.groups()
        current.sections[section].append((flag or "", power, body))
    return cases
