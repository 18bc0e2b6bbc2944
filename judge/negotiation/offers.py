"""What the judge's bot offers a power it is at peace with, read off the board alone: the
common threat to ally against and the contested border to demilitarise.  Pure and
deterministic (ties go by name), so a negotiator replays for its seed.

* A power *borders* another when one of its units can reach a province where the other
  has a unit or owns a centre.
* The common threat of us and a partner: among the powers that are neither of us nor a
  friend of ours (peace or alliance), the one that borders both of us with the most
  centres; when none borders both, the leader (strictly the most centres on the board)
  if it borders one of us; else none.
* The contested border with a partner: the provinces that are no supply centre, hold no
  unit, are not demilitarised already, and that a unit of ours and a unit of the partner's
  can both reach -- where the two would bounce or fight.  At most ``MOST_DMZ`` of them,
  by name.  A centre is left out: an empty one is a prize, and neither side would give up
  its own.
"""

from __future__ import annotations

from typing import Collection

from adjudicator.api import Board

MOST_DMZ = 3  # provinces in one DMZ proposal: a short list a human reads at a glance


def reached(board: Board, power: str) -> frozenset[str]:
    """The provinces ``power``'s units can move to."""
    reach = board.tables.reach
    found: set[str] = set()
    for unit in board.position.units:
        if unit.power == power:
            found |= reach[unit.kind].get(unit.location, frozenset())
    return frozenset(found)


def borders(board: Board, power: str, other: str) -> bool:
    """A unit of ``power`` can reach a unit or a centre of ``other``."""
    position = board.position
    held = {u.province for u in position.units if u.power == other} | set(position.centers.get(other, ()))
    return bool(reached(board, power) & held)


def common_threat(board: Board, us: str, partner: str, friends: Collection[str]) -> str | None:
    """The power to propose an alliance against with ``partner`` (see the module's policy)."""
    position = board.position
    centres = {power: len(owned) for power, owned in position.centers.items()}
    standing = {u.power for u in position.units} | {p for p, n in centres.items() if n}
    candidates = sorted(standing - {us, partner} - set(friends))
    both = [p for p in candidates if borders(board, p, us) and borders(board, p, partner)]
    if both:
        return min(both, key=lambda p: (-centres.get(p, 0), p))
    ranked = sorted(centres.items(), key=lambda item: (-item[1], item[0]))
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    leader = ranked[0][0]
    if leader in candidates and (borders(board, leader, us) or borders(board, leader, partner)):
        return leader
    return None


def contested(board: Board, us: str, partner: str, excluded: Collection[str] = ()) -> tuple[str, ...]:
    """The provinces to propose as a DMZ to ``partner`` (see the module's policy), none of
    ``excluded`` (already demilitarised, or refused by this partner before)."""
    occupied = {u.province for u in board.position.units}
    shared = reached(board, us) & reached(board, partner)
    open_ = shared - board.tables.supply_centers - occupied - set(excluded)
    return tuple(sorted(open_))[:MOST_DMZ]


__all__ = ["MOST_DMZ", "borders", "common_threat", "contested", "reached"]
