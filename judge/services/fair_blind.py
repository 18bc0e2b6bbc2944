"""RULE BLIND_ASSIGN (reference 001): the GM side of the blinded assignment by email."""

from __future__ import annotations

from judge.services.fair_players import Ctx


def blind_due_work(ctx: Ctx) -> None:
    """Tell the master about a witness that has been silent too long."""
