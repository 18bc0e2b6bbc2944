"""The RULEs a master may set, with what each means (shown when a name is not known).

Engine rules come from adjudicator.api.RULES; the others are the judge's, each declared
once in ``JUDGE_RULES`` below (a new rule is one line here plus the code that reads it).
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.api import RULES as ENGINE_RULES


@dataclass(frozen=True)
class RuleInfo:
    name: str
    meaning: str
    takes_value: bool = False
    values: tuple[int, ...] = ()  # the values it may take, when only some are meaningful


#: Rules under which who plays which power is secret until the game ends: the web archive,
#: WHOGAME and whatever else names a game's players read this one list.
SECRET_IDENTITY_RULES = ("GUNBOAT", "BLIND_ASSIGN")


def identities_secret(rule_names: frozenset[str], ended: bool) -> bool:
    """Whether a game with these rules (names only) keeps its players' identities secret now."""
    return not ended and any(rule in rule_names for rule in SECRET_IDENTITY_RULES)


# What each engine rule does (docs/adjudication.md has the detail); at most one PARADOX_ rule.
ENGINE_MEANINGS: dict[str, str] = {
    "PARADOX_SZYKMAN": "convoy paradoxes (the default): the convoys caught in the paradox fail and their "
                       "armies stay, cutting nothing",
    "PARADOX_1982_DPJUDGE": "convoy paradoxes by the DPjudge's 1982 rule: a convoyed army never cuts a support "
                            "for or against the space of a fleet convoying it",
    "PARADOX_ALL_FAIL": "convoy paradoxes: every order caught in the paradox fails and the units involved hold",
    "NO_BELEAGUERED_CONVOY": "a beleaguered fleet (attacked by equal, greatest strengths that stand off) does "
                             "not convoy",
    "DATC_3": "the DATC 3.0 preferences and the 2023 rulebook: CONVOY_NO_FALLBACK, CONVOY_NEEDED_ONLY and "
              "CD_REMOVE_2023 together (without them, DATC 2.4 as the DPjudge plays it)",
    "CONVOY_NO_FALLBACK": "an army meant to go by convoy (VIA CONVOY, or convoyed by its own fleet) goes by convoy "
                          "or not at all: no falling back on the land route (DATC 3.0 6.G.8)",
    "CONVOY_NEEDED_ONLY": "a convoy order from a fleet that no convoy route of the army needs is void and shows "
                          "no intent to convoy (DATC 3.0 6.G.19)",
    "CD_REMOVE_2023": "civil-disorder removals by the 2023 rulebook: units off supply centres first, the farthest "
                      "from an owned centre counting every province for any unit (DATC 3.0 6.J)",
}

#: The judge's own rules, by feature.
JUDGE_RULES: tuple[RuleInfo, ...] = (
    # joining, press, identities
    RuleInfo("POWER_CHOICE", "players may choose their power: JOIN power@game password"),
    RuleInfo("NO_PRESS", "no press between players (press to the master only)"),
    RuleInfo("PUBLIC_PRESS", "press only as broadcasts (or to the master)"),
    RuleInfo("GREY_PRESS", "grey (anonymous) press is allowed"),
    RuleInfo("GUNBOAT", "players' identities are secret and there is no press until the game ends"),
    RuleInfo("REGISTERED", "only registered players (REGISTER, with the address they write from confirmed) may join "
                           "or take over"),
    RuleInfo("MIN_DEDICATION", "only players whose dedication (README \"Dedication\") is at least n may join or "
                               "take over (RULE MIN_DEDICATION 10)", takes_value=True),
    RuleInfo("MIN_RATING", "only players whose rating in the game's pool (press or gunboat) is at least n may join "
                           "or take over (RULE MIN_RATING 5)", takes_value=True),
    RuleInfo("LATE_SEND", "late powers may send private press after the deadline"),
    RuleInfo("NO_LATE_RECEIVE", "no private press to late powers after the deadline"),
    # lateness and processing
    RuleInfo("CIVIL_DISORDER", "process a late power's phase with civil-disorder defaults after grace"),
    RuleInfo("CIVIL_PREVIEW", "after grace, preview civil disorder to the master and wait for PROCESS!"),
    RuleInfo("CD_BOT", "a power in civil disorder is played by the bot (bot/) instead of holding; the results "
                       "say so (with CIVIL_DISORDER or CIVIL_PREVIEW, or the master's PROCESS!)"),
    RuleInfo("GRACE_BUDGET", "each player may be late n times without penalty (RULE GRACE_BUDGET 2)", takes_value=True),
    RuleInfo("ALWAYS_WAIT", "never process before the deadline"),
    RuleInfo("NO_SETTLE", "no settle window: the phase is processed right after the mail with the last orders"),
    RuleInfo("NO_MINOR_WAIT", "SET WAIT counts in movement phases only"),
    RuleInfo("NO_DIAS", "draw votes name the powers in the draw"),
    # sealed orders (judge/commands/sealed.py, judge/phases/sealed_flow.py)
    RuleInfo("SEALED", "sealed orders: COMMIT a signed hash, all commitments published at once, then REVEAL"),
    RuleInfo("SEALED_SHA256", "sealed orders where COMMIT SHA256 (hash plus secret salt, no PGP) is also accepted; weaker"),
    # fair power assignment (judge/commands/fair_*.py)
    RuleInfo("PREFERENCES", "powers are assigned from SET PREFERENCE lists, contests decided by email lotteries"),
    RuleInfo("LOTTERY_SHA256", "lottery numbers may be committed with COMMIT SHA256 (no PGP key needed; weaker)"),
    RuleInfo("LOTTERY_ESCROW", "the last revealer of each lottery deposits a last-number escrow (ESCROW) with the commitment"),
    RuleInfo("BLIND_ASSIGN", "powers are assigned blindly by email with a witness (WITNESS address): each "
                             "player learns only its own power"),
    # machine players (judge/edge/daide, judge/edge/daide/machines.py)
    RuleInfo("MACHINES", "machine players (DAIDE bots) may take free seats: the game listens on a DAIDE port of its "
                         "own (told in the FORM reply and in LIST); press with them needs RULE PRESS_LEVEL"),
    RuleInfo("PRESS_LEVEL", "the DAIDE press level machine players and the judge's bot at a seat speak "
                            "(RULE PRESS_LEVEL 30): 10 peace and alliances, 20 order proposals and DMZs, 30 offers "
                            "in several parts; 0 (the default) no press with machines", takes_value=True, values=(0, 10, 20, 30)),
)

_KNOWN: dict[str, RuleInfo] = {
    **{name: RuleInfo(name, ENGINE_MEANINGS.get(name, "adjudication rule of the engine (see docs/adjudication.md)"))
       for name in sorted(ENGINE_RULES)},
    **{rule.name: rule for rule in JUDGE_RULES},
}


def rule_info(name: str) -> RuleInfo | None:
    return _KNOWN.get(name.upper())


def known_rules() -> tuple[RuleInfo, ...]:
    return tuple(sorted(_KNOWN.values(), key=lambda rule: rule.name))
