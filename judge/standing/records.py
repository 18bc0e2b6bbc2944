"""``record_of``: a player's record read from the store (WHOIS shows it)."""

from __future__ import annotations

from typing import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.lifecycle import in_play
from judge.rules import identities_secret
from judge.standing.reading import (LEFT, address_key, finished_games, latest_ratings, member_rows,
                                    punctuality_of, registered_names)
from judge.standing.tally import Part, PlayerRecord, tally
from judge.store.models_game import Game


def record_of(session: Session, addresses: Iterable[str]) -> PlayerRecord:
    """The record of the player who uses ``addresses`` (all of one player's linked
    addresses): every seat held at any of them, counted from the stored games.  A few
    indexed queries whatever the number of players."""
    addresses = tuple(addresses)
    names = sorted(set(registered_names(session, addresses).values()))
    keys = names + sorted({address_key(a) for a in addresses})
    members = member_rows(session, addresses)
    game_ids = sorted({m.game_id for m in members})
    rows = session.execute(select(Game.id, Game.status, Game.rules).where(Game.id.in_(game_ids))).all() if game_ids else []
    statuses = {game_id: status for game_id, status, _ in rows}
    # Who plays which power in a running gunboat game is secret: its power is not counted yet.
    secret = {game_id for game_id, status, rules in rows
              if in_play(status) and identities_secret(frozenset(str(rule).split()[0] for rule in rules or ()), False)}
    finished = {game.game_id: game for game in finished_games(session, game_ids)} if game_ids else {}
    parts = []
    for member in members:
        game = finished.get(member.game_id)
        seat = None
        if game is not None:
            seat = next((s for s in game.seats if s.power == member.power and s.player in keys), None)
        parts.append(Part(member.game_id, "" if member.game_id in secret else member.power,
                          in_play(statuses.get(member.game_id, "")),
                          LEFT.get(member.status), seat))
    ratings = sorted(latest_ratings(session, keys).items())
    return tally(keys[0] if keys else "", parts, punctuality_of(session, addresses), ratings)
