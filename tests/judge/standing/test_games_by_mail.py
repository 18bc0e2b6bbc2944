"""Records, dedication and ratings from games played by mail to a solo and a draw, the
rebuild, RATINGS, and the masters' minimum dedication and rating at JOIN."""

from __future__ import annotations

from sqlalchemy import select

from judge.standing.keeping import rebuild
from judge.standing.records import record_of
from judge.store.models_standing import RatingEntry, TurnRecord
from tests.judge.services.conftest import MASTER, create_game
from tests.judge.standing.pure_games import draw_of_all, solo_for_france, start


def entries(judge) -> list[tuple[str, str, str, float, bool]]:
    with judge.session() as session:
        rows = session.execute(select(RatingEntry).order_by(RatingEntry.seq, RatingEntry.player)).scalars()
        return [(r.game_name, r.player, r.result, round(r.rating, 6), r.latest) for r in rows]


def test_a_solo_and_a_draw_make_records_and_ratings(judge):
    seats = start(judge, "solo")
    solo_for_france(judge, "solo", seats)
    with judge.session() as session:
        verdicts = {(r.phase, r.power): r.verdict for r in session.execute(select(TurnRecord)).scalars()}
    assert verdicts[("S1901M", "TURKEY")] == "late" and verdicts[("S1901M", "FRANCE")] == "on_time"
    assert verdicts[("F1901M", "RUSSIA")] == "missed"
    assert ("F1901M", "AUSTRIA") not in verdicts  # no unit left: the phase did not wait for it
    assert ("W1901A", "ENGLAND") not in verdicts and verdicts[("W1901A", "FRANCE")] == "on_time"

    france, austria = seats["FRANCE"].address, seats["AUSTRIA"].address
    with judge.session() as session:
        won = record_of(session, [france.upper()])  # any spelling of the address
        lost = record_of(session, [austria])
        russia = record_of(session, [seats["RUSSIA"].address])
    assert (won.games, won.finished, won.solos, won.powers) == (1, 1, 1, (("FRANCE", 1),))
    assert won.punctuality.on_time == 5 and won.dedication == 5
    assert lost.eliminations == 1 and lost.punctuality.on_time == 1
    assert russia.punctuality.missed == 1 and russia.dedication == russia.punctuality.on_time - 5
    assert dict(won.ratings)["press"] > 0 > dict(lost.ratings)["press"]

    seats2 = start(judge, "drawn")
    draw_of_all(judge, "drawn", seats2)
    rated = entries(judge)
    assert {name for name, *_ in rated} == {"solo", "drawn"} and len(rated) == 14
    assert sum(1 for *_, latest in rated if latest) == 7  # the same seven players: one current entry each
    with judge.session() as session:
        drawn = record_of(session, [seats2["FRANCE"].address])
    assert drawn.draws == 1 and drawn.games == 2

    # The rebuild from the stored games gives exactly what the games' ends wrote.
    with judge.session() as session:
        done = rebuild(session)
    assert (done.games, done.entries) == (2, 14)
    assert entries(judge) == rated

    # RATINGS: the top list hides addresses; the sender's own history shows both games.
    reply = judge.send(france, "RATINGS PRESS 3\n").reply.body
    top = reply.split("Press games")[1].split("Your record")[0]
    assert "@example.net" in top and france not in top and len([l for l in top.splitlines() if ". " in l]) == 3
    assert "Dedication: " in reply and "solo " in reply and "drawn " in reply
    refused = judge.send(france, "RATINGS BLITZ\n").reply.body
    assert "RATINGS BLITZ" in refused and "PRESS or GUNBOAT" in refused

    # A master's minimum dedication and rating, checked at JOIN with the reason.
    create_game(judge, "RULE MIN_DEDICATION 3", name="steady")
    refused = judge.send(seats["RUSSIA"].address, "JOIN steady pw\n").reply.body
    assert "asks for a dedication of at least 3 (RULE MIN_DEDICATION); yours is -1 (4 turns on time, " \
           "0 late, 1 missed, 0 games left)" in refused
    assert "joined game 'steady'" in judge.send(france, "JOIN steady pw\n").reply.body
    create_game(judge, "RULE MIN_RATING 1", name="strong")
    assert "joined game 'strong'" in judge.send(france, "JOIN strong pw\n").reply.body
    refused = judge.send(austria, "JOIN strong pw\n").reply.body
    assert "press rating of at least 1 (RULE MIN_RATING); yours is -" in refused
    create_game(judge, "RULE MIN_RATING 1", "RULE GUNBOAT", name="blind")
    refused = judge.send(france, "JOIN blind pw\n").reply.body
    assert "gunboat rating of at least 1" in refused and "you have no rating yet" in refused
    assert "has a place" not in refused

    # The master rolls the solo back: it is no longer finished, so its ratings and the
    # punctuality of the phases undone go, and the later draw is rated again without it.
    reply = judge.send(MASTER, "SIGNON master@solo masterpw\nROLLBACK F1902M\n").reply.body
    assert "ERROR" not in reply, reply
    after = entries(judge)
    assert {name for name, *_ in after} == {"drawn"} and sum(1 for *_, latest in after if latest) == 7
    with judge.session() as session:
        assert record_of(session, [france]).solos == 0
        assert not session.execute(select(TurnRecord).where(TurnRecord.phase == "F1902M")).first()
