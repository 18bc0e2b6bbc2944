"""A master's restriction of who may join: RULE MIN_DEDICATION n and RULE MIN_RATING n,
checked at JOIN (and TAKEOVER) with the reason when refused."""

from __future__ import annotations

from typing import Iterable

from sqlalchemy.orm import Session

from judge.refusal import CommandRefused
from judge.standing.reading import player_keys, pool_of
from judge.standing.records import record_of

MIN_DEDICATION = "MIN_DEDICATION"
MIN_RATING = "MIN_RATING"


def minimum(rules: Iterable[object], name: str) -> int | None:
    """n of ``NAME n`` among a game's rules; None without the rule."""
    for rule in rules:
        words = str(rule).split()
        if len(words) == 2 and words[0].upper() == name and words[1].lstrip("-").isdigit():
            return int(words[1])
    return None


def check_standing(session: Session, game_name: str, rules: Iterable[object], address: str) -> None:
    """Refuse (CommandRefused, saying what is required and what the player has) when the
    game asks for a dedication or rating the player writing from ``address`` (with every
    address linked to them) does not reach.  A player with no rated game in the game's pool
    has no rating, so a minimum refuses them."""
    rules = tuple(rules)
    least_dedication, least_rating = minimum(rules, MIN_DEDICATION), minimum(rules, MIN_RATING)
    if least_dedication is None and least_rating is None:
        return
    record = record_of(session, player_keys(session, address)[0])
    if least_dedication is not None and record.dedication < least_dedication:
        raise CommandRefused(
            f"game '{game_name}' asks for a dedication of at least {least_dedication} (RULE {MIN_DEDICATION}); "
            f"yours is {record.dedication} ({record.punctuality.on_time} turns on time, {record.punctuality.late} "
            f"late, {record.punctuality.missed} missed, {record.abandoned + record.civil_disorder} games left)")
    if least_rating is not None:
        pool = pool_of(rules).value
        rating = dict(record.ratings).get(pool)
        if rating is None or rating < least_rating:
            have = "you have no rating yet" if rating is None else f"yours is {rating:.1f}"
            raise CommandRefused(
                f"game '{game_name}' asks for a {pool} rating of at least {least_rating} (RULE {MIN_RATING}); "
                f"{have} (RATINGS shows it)")
