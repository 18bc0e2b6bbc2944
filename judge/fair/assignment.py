"""Assigning powers from preference lists, one published lottery at a time.

The procedure of "Email Diplomacy without a GM" (reference 002):

1. Each player's *current choice* is the first group of its list that still holds an
   unassigned power.  A power named in exactly one current choice is unopposed and goes to
   that player at once (for a group, the first unopposed power in the order written).
   This repeats until every power still named is wanted by two or more players.
2. One contested power is then decided by a lottery whose odds are fixed before any number
   is drawn: the power named by the most players (ties: map order).  A player whose current
   group held k powers when it became current gets 1/k of a shot at each of them, and keeps
   that weight while the group lasts, even after some of its powers went to others
   ("player 3 should still only get 1/3 of a shot at England or Germany").  The weights
   are scaled to whole chances; the winning numbers are consecutive ranges from 0, in player
   order.  The power is then removed from every list and the next pass runs.
3. Players whose lists are empty ("no preference") or used up ("if not, doesn't care") take
   what is left once nobody wants anything more: one lottery per remaining power, in map
   order, with equal chances.  When more powers are left than such players, the extra
   chances belong to nobody, so every player is equally likely to get every power and the
   powers left unplayed are random too.

Reserve players (``%``) take no part; :func:`reserve_contest` picks one for a dropped power.

The state is a frozen value: :func:`next_contest` says which lottery to run,
:func:`apply_outcome` feeds its number back, so each contest can be one email lottery.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from typing import Sequence

from judge.fair.lottery import check_number
from judge.fair.preferences import PreferenceList


class AssignmentError(ValueError):
    """Input that the assignment cannot use; the message says what was wrong."""


@dataclass(frozen=True)
class Share:
    """One contender's part of a lottery: ``chances`` winning numbers, ``numbers`` which.

    ``player`` is ``None`` for the chances that leave the power unplayed (only when more
    powers than players are left)."""

    player: str | None
    chances: int
    numbers: range


@dataclass(frozen=True)
class Contest:
    """A lottery for one power, published before any number is drawn."""

    power: str
    shares: tuple[Share, ...]

    @property
    def outcomes(self) -> int:
        """N: the lottery draws a number from 0 to N-1."""
        return sum(share.chances for share in self.shares)

    @property
    def contenders(self) -> tuple[str | None, ...]:
        return tuple(share.player for share in self.shares)

    @property
    def decided_winner(self) -> str | None:
        """The player when a single contender makes a lottery needless, else ``None``."""
        if len(self.shares) == 1:
            return self.shares[0].player
        return None

    def winner(self, number: int) -> str | None:
        """Who wins when the lottery yields ``number``; ``None``: the power stays unplayed."""
        check_number(number, self.outcomes)
        for share in self.shares:
            if number in share.numbers:
                return share.player
        raise AssertionError("shares cover 0..N-1")  # pragma: no cover - by construction

    def winning_numbers(self, player: str | None) -> range:
        for share in self.shares:
            if share.player == player:
                return share.numbers
        raise AssignmentError(f"{player!r} is not a contender for {self.power}")


def contest_from_weights(power: str, denominators: Sequence[tuple[str | None, int]]) -> Contest:
    """Scale shots of ``1/k`` to whole chances (lowest terms) and give out consecutive ranges.

    >>> [(s.player, s.chances, s.numbers) for s in contest_from_weights("F", [("2", 1), ("3", 3), ("6", 1)]).shares]
    [('2', 3, range(0, 3)), ('3', 1, range(3, 4)), ('6', 3, range(4, 7))]
    """
    common = math.lcm(*(k for _, k in denominators))
    chances = [common // k for _, k in denominators]
    divisor = math.gcd(*chances)
    shares: list[Share] = []
    start = 0
    for (player, _), chance in zip(denominators, chances):
        count = chance // divisor
        shares.append(Share(player, count, range(start, start + count)))
        start += count
    return Contest(power, tuple(shares))


@dataclass(frozen=True)
class Decision:
    """How a power was settled: ``unopposed``, ``lottery`` (with its ``number``) or ``remaining``.

    ``player`` is ``None`` when a lottery left the power unplayed."""

    power: str
    player: str | None
    how: str
    number: int | None = None


@dataclass(frozen=True)
class _Weight:
    """The weight fixed for a player's current group: 1/``denominator`` per power."""

    player: str
    group_index: int
    denominator: int


@dataclass(frozen=True)
class AssignmentState:
    """Where an assignment stands; build it with :func:`start_assignment`."""

    powers: tuple[str, ...]
    players: tuple[str, ...]
    preferences: tuple[PreferenceList, ...]
    reserves: tuple[tuple[str, PreferenceList], ...]
    decisions: tuple[Decision, ...] = ()
    weights: tuple[_Weight, ...] = ()

    @property
    def assignment(self) -> dict[str, str]:
        """player -> power, for the powers given so far."""
        return {d.player: d.power for d in self.decisions if d.player is not None}

    @property
    def available_powers(self) -> tuple[str, ...]:
        settled = {d.power for d in self.decisions}
        return tuple(power for power in self.powers if power not in settled)

    @property
    def unassigned_players(self) -> tuple[str, ...]:
        placed = {d.player for d in self.decisions}
        return tuple(player for player in self.players if player not in placed)

    @property
    def unplayed_powers(self) -> tuple[str, ...]:
        """Powers no player got (known only once finished)."""
        unplayed = [d.power for d in self.decisions if d.player is None]
        if self.finished:
            unplayed += list(self.available_powers)
        return tuple(power for power in self.powers if power in unplayed)

    @property
    def finished(self) -> bool:
        return next_contest(self) is None

    def preference_of(self, player: str) -> PreferenceList:
        return self.preferences[self.players.index(player)]

    def current_choice(self, player: str) -> tuple[int, tuple[str, ...]] | None:
        """(group index, its powers still available) of the player's best remaining group."""
        available = set(self.available_powers)
        for index, group in enumerate(self.preference_of(player).groups):
            left = tuple(power for power in group if power in available)
            if left:
                return index, left
        return None

    def denominator(self, player: str) -> int:
        """k of the player's current group: its shot at each power there is 1/k."""
        for weight in self.weights:
            if weight.player == player:
                return weight.denominator
        raise AssignmentError(f"player {player!r} has no current choice")


def start_assignment(powers: Sequence[str], entries: Sequence[tuple[str, PreferenceList]]) -> AssignmentState:
    """Begin assigning ``powers`` (map order) to the players of ``entries`` (player order).

    Reserve lists are set aside; unopposed first choices are given at once."""
    power_tuple = tuple(powers)
    if len(set(power_tuple)) != len(power_tuple):
        raise AssignmentError(f"powers named twice in {list(power_tuple)!r}")
    names = [player for player, _ in entries]
    if len(set(names)) != len(names):
        raise AssignmentError(f"players named twice in {names!r}")
    for player, preference in entries:
        unknown = [power for power in preference.powers() if power not in power_tuple]
        if unknown:
            raise AssignmentError(
                f"player {player!r} lists {unknown!r}, not among the powers {list(power_tuple)!r}"
            )
    playing = [(player, pref) for player, pref in entries if not pref.reserve]
    state = AssignmentState(
        powers=power_tuple,
        players=tuple(player for player, _ in playing),
        preferences=tuple(pref for _, pref in playing),
        reserves=tuple((player, pref) for player, pref in entries if pref.reserve),
    )
    return _settle(state)


def next_contest(state: AssignmentState) -> Contest | None:
    """The lottery to run next, or ``None`` when the assignment is finished."""
    contest = _pending_contest(state)
    if contest is None or contest.decided_winner is not None:
        return None  # a lone contender is settled by _settle, never left pending
    return contest


def apply_outcome(state: AssignmentState, contest: Contest, number: int) -> AssignmentState:
    """Give ``contest.power`` to the holder of ``number`` and run the next pass."""
    pending = next_contest(state)
    if pending is None:
        raise AssignmentError("the assignment is finished; no lottery is pending")
    if contest != pending:
        raise AssignmentError(f"the lottery for {contest.power} is not the one pending (that is {pending.power})")
    winner = contest.winner(number)
    decided = replace(state, decisions=state.decisions + (Decision(contest.power, winner, "lottery", number),))
    return _settle(decided)


def replay(powers: Sequence[str], entries: Sequence[tuple[str, PreferenceList]], numbers: Sequence[int]) -> AssignmentState:
    """Recompute an assignment from the lists and the lottery results, in order (for audits)."""
    state = start_assignment(powers, entries)
    for position, number in enumerate(numbers, start=1):
        contest = next_contest(state)
        if contest is None:
            raise AssignmentError(f"{len(numbers)} lottery results given, but only {position - 1} lotteries were run")
        state = apply_outcome(state, contest, number)
    return state


def reserve_contest(reserves: Sequence[tuple[str, PreferenceList]], power: str) -> Contest | None:
    """Which reserve fills the dropped ``power``: those who listed it, with equal chances;
    failing them, reserves without preference.  ``None`` when nobody fits; a contest with a
    single share (``decided_winner``) needs no lottery."""
    fitting = [player for player, pref in reserves if power in pref.powers()]
    if not fitting:
        fitting = [player for player, pref in reserves if not pref.has_preference]
    if not fitting:
        return None
    return contest_from_weights(power, [(player, 1) for player in fitting])


# --- the automatic steps between lotteries -------------------------------------------------


def _with_fixed_weights(state: AssignmentState) -> AssignmentState:
    """Fix 1/k for every group that has just become a player's current choice."""
    previous = {weight.player: weight for weight in state.weights}
    weights: list[_Weight] = []
    for player in state.unassigned_players:
        choice = state.current_choice(player)
        if choice is None:
            continue
        index, left = choice
        kept = previous.get(player)
        weights.append(kept if kept is not None and kept.group_index == index else _Weight(player, index, len(left)))
    return replace(state, weights=tuple(weights))


def _wanted(state: AssignmentState) -> dict[str, tuple[str, ...]]:
    """player -> powers of its current choice, for players who still want something."""
    wanted: dict[str, tuple[str, ...]] = {}
    for player in state.unassigned_players:
        choice = state.current_choice(player)
        if choice is not None:
            wanted[player] = choice[1]
    return wanted


def _unopposed(state: AssignmentState) -> Decision | None:
    wanted = _wanted(state)
    namers = Counter(power for powers in wanted.values() for power in powers)
    for player, powers in wanted.items():
        for power in powers:
            if namers[power] == 1:
                return Decision(power, player, "unopposed")
    return None


def _pending_contest(state: AssignmentState) -> Contest | None:
    available = state.available_powers
    players = state.unassigned_players
    if not available or not players:
        return None
    wanted = _wanted(state)
    if wanted:
        namers = Counter(power for powers in wanted.values() for power in powers)
        power = min(namers, key=lambda p: (-namers[p], state.powers.index(p)))
        contenders = [player for player in players if power in wanted.get(player, ())]
        return contest_from_weights(power, [(player, state.denominator(player)) for player in contenders])
    # nobody wants anything listed: the don't-care players share what is left, uniformly
    power = available[0]
    entries: list[tuple[str | None, int]] = [(player, 1) for player in players]
    contest = contest_from_weights(power, entries)
    spare = len(available) - len(players)
    if spare > 0:
        shares = contest.shares + (Share(None, spare, range(len(players), len(players) + spare)),)
        contest = Contest(power, shares)
    return contest


def _settle(state: AssignmentState) -> AssignmentState:
    """Apply every step that needs no lottery: unopposed choices and lone contenders."""
    while True:
        state = _with_fixed_weights(state)
        decision = _unopposed(state)
        if decision is None:
            contest = _pending_contest(state)
            if contest is None or contest.decided_winner is None:
                return state
            decision = Decision(contest.power, contest.decided_winner, "remaining")
        state = replace(state, decisions=state.decisions + (decision,))
