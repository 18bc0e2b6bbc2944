"""The optional adjudication rules a game may choose, by name (docs/adjudication.md).

Without any, the engine follows the DATC 2.4 preferences as the DPjudge plays them.  The
DATC 3.0 preferences (the 2023 rulebook) are three rules, one per DATC issue on which 3.0
changed its mind, and ``DATC_3`` names all three at once.
"""

from __future__ import annotations

from typing import Iterable

# Convoy paradoxes (DATC 4.A.2): at most one.
PARADOX_SZYKMAN = "PARADOX_SZYKMAN"  # default: the convoys of a paradox fail, their armies stay
PARADOX_1982_DPJUDGE = "PARADOX_1982_DPJUDGE"  # a convoyed army never cuts support for/against its fleets' spaces
PARADOX_ALL_FAIL = "PARADOX_ALL_FAIL"  # every order caught in a paradox fails (all hold)
NO_BELEAGUERED_CONVOY = "NO_BELEAGUERED_CONVOY"  # a beleaguered fleet cannot convoy
# DATC 3.0 (issue 4.A.3; 6.G.8, 6.G.11, 6.G.20): an army meant to go by convoy (VIA CONVOY, or
# a convoy order of its own power) goes by convoy or not at all, never falling back to land.
CONVOY_NO_FALLBACK = "CONVOY_NO_FALLBACK"
# DATC 3.0 (issue 4.E.1; 6.G.19): a convoy order from a fleet that no convoy route between the
# army and its destination needs is void, so it shows no intent to convoy.
CONVOY_NEEDED_ONLY = "CONVOY_NEEDED_ONLY"
# DATC 3.0 (issue 4.D.8; 6.J): civil-disorder removals by the 2023 rulebook.
CD_REMOVE_2023 = "CD_REMOVE_2023"
DATC_3 = "DATC_3"  # the three rules above

PARADOX_RULES = frozenset({PARADOX_SZYKMAN, PARADOX_1982_DPJUDGE, PARADOX_ALL_FAIL})
DATC_3_RULES = frozenset({CONVOY_NO_FALLBACK, CONVOY_NEEDED_ONLY, CD_REMOVE_2023})
RULES = frozenset(PARADOX_RULES | DATC_3_RULES | {NO_BELEAGUERED_CONVOY, DATC_3})


def check_rules(rules: Iterable[str]) -> frozenset[str]:
    """The rules in force for ``rules``: every name known, at most one paradox rule, a set
    (``DATC_3``) replaced by its members; else ``ValueError`` saying what is wrong."""
    chosen = frozenset(rules)
    unknown = sorted(chosen - RULES)
    if unknown:
        raise ValueError(f"unknown rule(s) {', '.join(unknown)} (known: {', '.join(sorted(RULES))})")
    paradox = chosen & PARADOX_RULES
    if len(paradox) > 1:
        raise ValueError(f"choose at most one convoy-paradox rule, not {', '.join(sorted(paradox))}")
    if DATC_3 in chosen:
        chosen = (chosen - {DATC_3}) | DATC_3_RULES
    return chosen
