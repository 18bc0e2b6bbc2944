"""Scale-out on PostgreSQL (issue 16.3): two `judge serve` daemons under load, one SIGKILLed
with a mail in hand and never started again.  The survivor finishes everything alone, and
nothing is lost or doubled, counted row by row in the database and mail by mail at the relay:
every mail processed once (one reply row each), every outbox row delivered once (at most
one extra copy, the one a sender may have had in hand), every phase processed once.

test_two_judges.py restarts the killed daemon; here the survivor must take over by itself
the killed daemon's claimed mail (a row lock gone with its connection) and the outbox rows
it had leased (its process is gone: released by the survivor's lease keeper).
"""

from __future__ import annotations

import email
import re
import time
from collections import Counter
from email.policy import default as default_policy

import pytest
from sqlalchemy import func, select

from judge.store.models_game import Game, PhaseRecord
from judge.store.models_mail import InboundMessage, OutboxMessage, Shunt
from tests.fixtures.judge_process import JudgeProcess
from tests.integration.test_two_judges import Front, judges_on_one_database, orders_and_chatter, outbox_done, phases

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.gpg]

GAMES = ("k1", "k2")
#: The victim holds every mail this long before committing, so that when it is killed it
#: has one in hand (the log line "pausing" is printed when the pause begins).
VICTIM_PAUSE_SECONDS = 2.0  # long enough that a loaded machine kills it while it waits


@pytest.fixture
def survivor_and_victim(postgres_url, tmp_path, smtp_sink, judge_runner):
    with judges_on_one_database(postgres_url, tmp_path, smtp_sink, judge_runner, "kill") as (env, store):
        for name in ("survivor", "victim"):
            (tmp_path / name).mkdir()
        # The survivor's worker runs in two processes of its own (the scale-out layout 1x2).
        # The first start makes the judge's key pair: slow on a busy machine.
        survivor = judge_runner.start(tmp_path / "survivor", {**env, "JUDGE_WORKER_PROCESSES": "2"},
                                      wait=False).wait_ready(timeout=90)
        yield survivor, tmp_path / "victim", env, store


def test_a_killed_judge_loses_and_doubles_nothing(survivor_and_victim, judge_runner, smtp_sink):
    survivor, victim_dir, env, store = survivor_and_victim

    # Two games formed and started through the survivor alone.
    front = Front(smtp_sink, [survivor])
    players, power_of = front.form_games(GAMES)

    # The load: every player's orders and a signed broadcast from some, shuffled; each
    # game's phase is processed by whichever scheduler sees it ready first.
    load = orders_and_chatter(players, power_of, "S1901", broadcast_every=2)

    # The victim's worker a thread (the layout 1x1): it takes mail as soon as it listens,
    # where a worker process still starting would leave every mail to the survivor.
    victim = judge_runner.start(victim_dir, {**env, "JUDGE_WORKER_PROCESSES": "0", "JUDGE_WORKER_PAUSE_BEFORE_COMMIT_SECONDS":
                                             str(VICTIM_PAUSE_SECONDS)}, wait=False).wait_ready(timeout=60)
    front.daemons = [survivor, victim]
    cut = 2 * len(load) // 3
    for mail in load[:cut]:
        front.send(*mail)
    # Killed in the middle, with a mail in hand: its pause before commit has just begun.
    rest = list(load[cut:])
    in_hand = _pending_pause(victim, front, rest)
    victim.kill()
    for mail in rest:
        front.send(*mail)  # only the survivor takes mail now

    front.wait(lambda: phases(store) == {game: ["S1901M"] for game in GAMES}, "S1901M processed in both games")
    front.wait(front.all_answered, "every reply")
    front.wait(lambda: outbox_done(store), "the outbox drained by the survivor")

    with store.unit_of_work() as session:
        inbound = session.execute(select(InboundMessage.message_id, InboundMessage.status)).all()
        replies_per_mail = Counter(session.execute(
            select(OutboxMessage.inbound_id).where(OutboxMessage.kind == "reply")).scalars())
        outbox_ids = [_message_id(raw) for raw in session.execute(select(OutboxMessage.raw)).scalars()]
        records = Counter(session.execute(select(Game.name, PhaseRecord.phase)
                                          .join(PhaseRecord, PhaseRecord.game_id == Game.id)).all())
        shunts = session.scalar(select(func.count()).select_from(Shunt))
    # Every mail stored once and processed once: one reply row each, one reply at the relay.
    assert sorted(m for m, _ in inbound) == sorted(front.sent)
    assert {status for _, status in inbound} == {"processed"}
    assert set(replies_per_mail.values()) == {1} and len(replies_per_mail) == len(front.sent)
    replies = front.replies()
    assert {m: len(replies[m]) for m in front.sent} == {m: 1 for m in front.sent}
    assert shunts == 0
    # Every outbox row delivered, once; a copy more only for the one mail a sender had in hand.
    delivered = Counter(_message_id(m.raw) for m in smtp_sink.messages)
    assert set(delivered) == set(outbox_ids) and len(outbox_ids) == len(set(outbox_ids))
    assert sum(delivered.values()) - len(delivered) <= 1, delivered.most_common(3)
    # Every phase processed once: one record, one results mail per player.
    assert records == Counter({(game, "S1901M"): 1 for game in GAMES})
    results = Counter((str(m["Subject"]), str(m["To"])) for m in front.received() if "results" in str(m["Subject"]))
    for game in GAMES:
        assert {a: results[(f"{game} S1901M results", a)] for a in players[game]} == {a: 1 for a in players[game]}
    # The mail the victim held when it died was done by the survivor.
    assert victim.process.returncode == -9
    assert f"message #{in_hand} processed" in survivor.log


def _pending_pause(judge: JudgeProcess, front: Front, rest: list, timeout: float = 60.0) -> int:
    """The inbound id of a mail ``judge`` holds in its pause before commit (paused, not yet
    committed), sending it more of ``rest`` (taken from the list) while it holds none: on a
    loaded machine the victim may have finished its share before the first part was sent."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = judge.log
        paused = {int(n) for n in re.findall(r"message #(\d+) processed; pausing", log)}
        done = {int(n) for n in re.findall(r"message #(\d+) processed, \d+ mail", log)}
        if paused - done:
            return max(paused - done)
        if rest:
            front.send(*rest.pop(0))
        time.sleep(0.05)
    raise AssertionError(f"the victim paused on no mail within {timeout} s:\n{judge.log}")


def _message_id(raw: bytes) -> str:
    return str(email.message_from_bytes(raw, policy=default_policy)["Message-ID"]).strip("<> ")
