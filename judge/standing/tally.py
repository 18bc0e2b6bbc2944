"""A player's record across games, summed from frozen facts (pure)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from judge.standing.dedication import dedication, on_time_ratio
from judge.standing.facts import Punctuality, Result, Seat


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """What a player did on this judge, computed from the stored games.

    ``games``: games played (a seat held at any time, running games included); ``finished``:
    those that ended in a solo, draw or concession; the results count those.  ``powers``:
    (power, games) most played first.  ``abandoned``: games left by RESIGN or the master's
    EJECT; ``civil_disorder``: games where the judge dismissed the player after the grace
    period.  ``ratings``: pool name -> shown rating (none before a rated game)."""

    player: str
    games: int = 0
    playing: int = 0
    finished: int = 0
    powers: tuple[tuple[str, int], ...] = ()
    solos: int = 0
    draws: int = 0
    draw_share: float = 0.0
    survivals: int = 0
    eliminations: int = 0
    abandoned: int = 0
    civil_disorder: int = 0
    punctuality: Punctuality = Punctuality()
    ratings: tuple[tuple[str, float], ...] = ()

    @property
    def dedication(self) -> int:
        return dedication(self.punctuality, self.abandoned + self.civil_disorder)

    @property
    def on_time_ratio(self) -> float | None:
        return on_time_ratio(self.punctuality)

    def lines(self) -> tuple[str, ...]:
        """The record as text, one fact a line (WHOIS and RATINGS show it)."""
        ratio = self.on_time_ratio
        powers = ", ".join(f"{power} {count}" for power, count in self.powers) or "none"
        p = self.punctuality
        rows = [
            f"Games: {self.games} played, {self.playing} running, {self.finished} finished",
            f"Powers: {powers}",
            f"Results: {self.solos} solo, {self.draws} draw (share {self.draw_share:.2f}), "
            f"{self.survivals} survived, {self.eliminations} eliminated",
            f"Left: {self.abandoned} abandoned, {self.civil_disorder} in civil disorder",
            f"Turns: {p.on_time} on time, {p.late} late, {p.missed} missed"
            + (f" (on time {ratio:.0%})" if ratio is not None else ""),
            f"Dedication: {self.dedication}",
        ]
        rows += [f"Rating ({pool}): {value:.1f}" for pool, value in self.ratings]
        return tuple(rows)


@dataclass(frozen=True, slots=True)
class Part:
    """One game of the player's: the power(s) held ("" while a running game keeps who plays
    what secret: RULE GUNBOAT), whether the game is running, and how the player's seat
    ended (None while it runs or when it ended unrated)."""

    game_id: int
    power: str
    running: bool
    left: str | None = None  # "abandoned" or "civil_disorder"
    seat: Seat | None = None


def tally(player: str, parts: Iterable[Part], punctuality: Punctuality,
          ratings: Iterable[tuple[str, float]] = ()) -> PlayerRecord:
    parts = list(parts)
    games = {part.game_id for part in parts}
    running = {part.game_id for part in parts if part.running}
    seats = {part.game_id: part.seat for part in parts if part.seat is not None}
    results = Counter(seat.result for seat in seats.values())
    powers = Counter(power for _, power in {(part.game_id, part.power) for part in parts} if power)
    left = Counter(part.left for part in parts if part.left)
    return PlayerRecord(
        player=player, games=len(games), playing=len(running), finished=len(seats),
        powers=tuple(sorted(powers.items(), key=lambda item: (-item[1], item[0]))),
        solos=results[Result.SOLO], draws=results[Result.DRAW],
        draw_share=sum(seat.draw_share for seat in seats.values()),
        survivals=results[Result.SURVIVED], eliminations=results[Result.ELIMINATED],
        abandoned=left["abandoned"], civil_disorder=left["civil_disorder"],
        punctuality=punctuality, ratings=tuple(ratings),
    )
