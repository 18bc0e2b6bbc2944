"""The multiplayer rating: openskill's Plackett-Luce model (Weng-Lin Bayesian approximation)
over each finished game's order of merit (docs/ratings.md says why this one).

A rating is a belief ``(mu, sigma)``; the number shown and compared (``RULE MIN_RATING``)
is the conservative ``mu - 3 sigma``, 0 for a newcomer.  Ranks, best first: the winner or
the powers in the draw, then the other survivors, then the eliminated, then those who
left.  A player with several seats in one game (a machine playing six powers) moves by
the average of what each seat alone would have given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping

from openskill.models import PlackettLuce

from judge.standing.facts import RESULT_RANK, FinishedGame, Pool, Seat

_MODEL = PlackettLuce()
SHOWN_SIGMAS = 3.0


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float
    sigma: float

    @property
    def shown(self) -> float:
        """The number players see and masters restrict by: mu - 3 sigma."""
        return self.mu - SHOWN_SIGMAS * self.sigma


NEWCOMER = Skill(_MODEL.mu, _MODEL.sigma)


@dataclass(frozen=True, slots=True)
class Change:
    """A player's rating after one game, in that game's pool."""

    player: str
    pool: Pool
    game: FinishedGame
    result: str
    skill: Skill


def rate_game(game: FinishedGame, prior: Mapping[str, Skill]) -> tuple[Change, ...]:
    """Each player's rating after ``game``, from ``prior`` (player -> skill in the game's
    pool; a player not in it is a newcomer).  Fewer than two players: nothing to learn."""
    seats = game.seats
    if len({seat.player for seat in seats}) < 2:
        return ()
    teams = [[_MODEL.create_rating([prior.get(s.player, NEWCOMER).mu, prior.get(s.player, NEWCOMER).sigma])]
             for s in seats]
    rated = _MODEL.rate(teams, ranks=[float(RESULT_RANK[s.result]) for s in seats])
    by_player: dict[str, list[tuple[Seat, float, float]]] = {}
    for seat, team in zip(seats, rated):
        by_player.setdefault(seat.player, []).append((seat, team[0].mu, team[0].sigma))
    changes = []
    for player, outcomes in sorted(by_player.items()):
        before = prior.get(player, NEWCOMER)
        mu = before.mu + sum(mu - before.mu for _, mu, _ in outcomes) / len(outcomes)
        sigma = min(sigma for _, _, sigma in outcomes)
        best = min(outcomes, key=lambda item: RESULT_RANK[item[0].result])[0]
        changes.append(Change(player, game.pool, game, best.result.value, Skill(mu, sigma)))
    return tuple(changes)


def rate_all(games: Iterable[FinishedGame]) -> Iterator[Change]:
    """Every rating change of ``games`` in the order given (the order they ended), each
    game's pool apart: the whole history from scratch."""
    current: dict[Pool, dict[str, Skill]] = {pool: {} for pool in Pool}
    for game in games:
        pool = current[game.pool]
        changes = rate_game(game, pool)
        for change in changes:
            pool[change.player] = change.skill
        yield from changes
