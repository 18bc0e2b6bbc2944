"""Records, dedication and ratings from games played by mail to a solo and a draw, the
rebuild, RATINGS, and the masters' minimum dedication and rating at JOIN; then the same
database under `judge ratings rebuild` and `judge serve`, RATINGS asked over real SMTP.

One test, so the games are played once (the suite's time)."""

from __future__ import annotations

import email
import smtplib
import time
from email.message import EmailMessage
from email.policy import default as default_policy

import pytest
from sqlalchemy import select, update

from judge.cli import main
from judge.standing.keeping import rebuild
from judge.standing.records import record_of
from judge.store.models_registry import RegisteredAddress, RegisteredPlayer
from judge.store.models_mail import SENT, OutboxMessage
from judge.store.models_standing import RatingEntry, TurnRecord
from tests.judge.commands.conftest import MASTER, create_game
from tests.judge.commands.harness import JUDGE
from tests.judge.storage import make_mail
from tests.judge.standing.pure_games import draw_of_all, solo_for_france, start


def entries(judge) -> list[tuple[str, str, str, float, bool]]:
    with judge.session() as session:
        rows = session.execute(select(RatingEntry).order_by(RatingEntry.seq, RatingEntry.player)).scalars()
        return [(r.game_name, r.player, r.result, round(r.rating, 6), r.latest) for r in rows]


pytestmark = pytest.mark.slow  # a `judge serve` daemon, like the other whole-game SMTP tests


def reply_in(sink, address: str, subject: str, timeout: float = 60.0) -> EmailMessage:
    """The message to ``address`` with ``subject`` once the daemon has relayed it (the
    games' own mail, queued by the harness, goes out first)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for sunk in list(sink.messages):
            message = email.message_from_bytes(sunk.raw, policy=default_policy)
            if address in sunk.rcpt_tos and message["Subject"] == subject:
                return message
        time.sleep(0.1)
    subjects = sorted({(tuple(m.rcpt_tos), email.message_from_bytes(m.raw, policy=default_policy)["Subject"]) for m in sink.messages})
    raise AssertionError(f"no {subject!r} to {address} among {len(sink.messages)} relayed mails: {subjects[-20:]} {[m.raw[-600:] for m in sink.messages if address in m.rcpt_tos][-2:]}")


def test_a_solo_and_a_draw_make_records_and_ratings(judge, tmp_path, judge_runner, smtp_sink, monkeypatch, capsys):
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

    # France registers as Napoleon and links a second address (rows as the registry's
    # confirmed REGISTER leaves them): the record and history follow the player, and the
    # rebuild keys the ratings by the name.
    with judge.session() as session:
        napoleon = RegisteredPlayer(name="Napoleon", name_key="napoleon", registered_at=judge.now)
        session.add(napoleon)
        session.flush()
        for address in (france, "nap@other.example"):
            session.add(RegisteredAddress(player_id=napoleon.id, address=address, linked_at=judge.now))
    reply = judge.send("nap@other.example", "RATINGS\n").reply.body
    assert "Your record (Napoleon):" in reply and "1 solo, 1 draw" in reply and "solo " in reply
    with judge.session() as session:
        rebuild(session)
    assert {player for _, player, *_ in entries(judge)} >= {"Napoleon"} and france not in str(entries(judge))
    assert "Napoleon" in judge.send(austria, "RATINGS PRESS 7\n").reply.body

    # The same database: `judge ratings rebuild` as an operator runs it, then `judge serve`
    # answering RATINGS over SMTP.
    monkeypatch.setenv("JUDGE_JUDGE_DATA_DIR", str(tmp_path))
    assert main(["ratings", "rebuild"]) == 0
    assert "judge ratings rebuild: 2 games rated, 14 entries for 7 players and pools" in capsys.readouterr().out
    env = {"JUDGE_OUTBOUND_RELAY_HOST": smtp_sink.host, "JUDGE_OUTBOUND_RELAY_PORT": str(smtp_sink.port),
           "JUDGE_OUTBOUND_POLL_SECONDS": "0.1", "JUDGE_WORKER_POLL_SECONDS": "0.1",
           "JUDGE_JUDGE_ADDRESS": JUDGE.address}
    with judge.session() as session:  # the games' own mail was delivered by the harness's reading
        session.execute(update(OutboxMessage).values(status=SENT, sent_at=judge.now))
    daemon = judge_runner.start(tmp_path, env)
    asker = next(seat.address for seat in seats2.values() if seat.address != france)  # not Napoleon
    raw = make_mail(subject="ratings please", body="RATINGS\n", sender=asker, to=JUDGE.address)
    with smtplib.SMTP("127.0.0.1", daemon.smtp_port, timeout=10) as client:
        client.sendmail(asker, [JUDGE.address], raw)
    message = reply_in(smtp_sink, asker, "Re: ratings please")
    body = message.get_body(("plain",)).get_content()
    assert message["Subject"] == "Re: ratings please"
    assert "Press games: the top 20" in body and "Gunboat games" in body and "no rated game yet" in body
    assert f"Your record ({asker})" in body and "1 draw (share 0.14)" in body and "drawn " in body
    assert daemon.terminate() == 0

    # The master rolls the solo back (after the daemon: it would play the game on): it is no
    # longer finished, so its ratings and the punctuality of the phases undone go, and the
    # later draw is rated again without it.
    reply = judge.send(MASTER, "SIGNON master@solo masterpw\nROLLBACK F1902M\n").reply.body
    assert "ERROR" not in reply, reply
    after = entries(judge)
    assert {name for name, *_ in after} == {"drawn"} and sum(1 for *_, latest in after if latest) == 7
    with judge.session() as session:
        assert record_of(session, [france]).solos == 0
        assert not session.execute(select(TurnRecord).where(TurnRecord.phase == "F1902M")).first()
