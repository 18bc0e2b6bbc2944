"""The RULEs a master may set, with what each means (shown when a name is not known).

Engine rules come from adjudicator.api.RULES; the others are the judge's.  A helper whose
feature reads a rule adds it with ``add_rule`` in its handler module.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.api import RULES as ENGINE_RULES


@dataclass(frozen=True)
class RuleInfo:
    name: str
    meaning: str
    takes_value: bool = False


_KNOWN: dict[str, RuleInfo] = {}


def add_rule(name: str, meaning: str, *, takes_value: bool = False) -> None:
    _KNOWN[name.upper()] = RuleInfo(name.upper(), meaning, takes_value)


def rule_info(name: str) -> RuleInfo | None:
    return _KNOWN.get(name.upper())


def known_rules() -> tuple[RuleInfo, ...]:
    return tuple(sorted(_KNOWN.values(), key=lambda rule: rule.name))


# What each engine rule does (docs/adjudication.md has the detail); at most one PARADOX_ rule.
ENGINE_MEANINGS: dict[str, str] = {
    "PARADOX_SZYKMAN": "convoy paradoxes (the default): the convoys caught in the paradox fail and their "
                       "armies stay, cutting nothing",
    "PARADOX_1982_DPJUDGE": "convoy paradoxes by the DPjudge's 1982 rule: a convoyed army never cuts a support "
                            "for or against the space of a fleet convoying it",
    "PARADOX_ALL_FAIL": "convoy paradoxes: every order caught in the paradox fails and the units involved hold",
    "NO_BELEAGUERED_CONVOY": "a beleaguered fleet (attacked by equal, greatest strengths that stand off) does "
                             "not convoy",
}

for _name in sorted(ENGINE_RULES):
    add_rule(_name, ENGINE_MEANINGS.get(_name, "adjudication rule of the engine (see docs/adjudication.md)"))

add_rule("POWER_CHOICE", "players may choose their power: JOIN power@game password")
add_rule("NO_PRESS", "no press between players (press to the master only)")
add_rule("PUBLIC_PRESS", "press only as broadcasts (or to the master)")
add_rule("GREY_PRESS", "grey (anonymous) press is allowed")
add_rule("GUNBOAT", "players' identities are secret and there is no press until the game ends")
add_rule("LATE_SEND", "late powers may send private press after the deadline")
add_rule("NO_LATE_RECEIVE", "no private press to late powers after the deadline")
add_rule("CIVIL_DISORDER", "process a late power's phase with civil-disorder defaults after grace")
add_rule("CIVIL_PREVIEW", "after grace, preview civil disorder to the master and wait for PROCESS!")
add_rule("GRACE_BUDGET", "each player may be late n times without penalty (RULE GRACE_BUDGET 2)", takes_value=True)
add_rule("ALWAYS_WAIT", "never process before the deadline")
add_rule("NO_MINOR_WAIT", "SET WAIT counts in movement phases only")
add_rule("NO_DIAS", "draw votes name the powers in the draw")
add_rule("MACHINES", "machine players (DAIDE bots) may take free seats: the game listens on a DAIDE port of its own "
                     "(told in the FORM reply and in LIST); no press between bots and humans")
