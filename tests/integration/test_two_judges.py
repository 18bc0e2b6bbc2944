"""Two `judge serve` daemons on one PostgreSQL database, as README's "Several judges on one
database" describes: one address, one GnuPG home, one relay; mail goes to either daemon
(an MX with two hosts), one daemon is SIGKILLed in the middle of the load and started
again.  Every mail is answered once, every phase processed once, nothing shunted, and
every broadcast signed with the one judge key (issue 18).
"""

from __future__ import annotations

import email
import random
import re
import smtplib
import time
from collections import Counter, defaultdict
from contextlib import contextmanager
from email.utils import make_msgid

import pytest
from sqlalchemy import func, select

from adjudicator.api import initial_position
from judge.store.queries import variant_named
from judge.store.engine import Store
from judge.store.models_game import Game, PhaseRecord
from judge.store.models_mail import InboundMessage, OutboxMessage, Shunt
from tests.fixtures.gpg import remove_home, short_home
from tests.fixtures.judge_process import JudgeProcess, run_judge
from tests.judge.storage import make_mail

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.gpg]

JUDGE = "judge@example.org"
GAMES = ("g1", "g2", "g3")
MASTER = "gm@example.net"


class Front:
    """The mail exchanger in front of the judges: each mail to a random live daemon, to
    the other when that one does not take it (as an MX with two hosts retries)."""

    def __init__(self, sink, daemons: list[JudgeProcess]) -> None:
        self.sink, self.daemons = sink, daemons
        self.sent: dict[str, tuple[str, str]] = {}  # Message-ID -> (sender, subject)
        self.random = random.Random(18)

    def send(self, sender: str, body: str, subject: str) -> str:
        message_id = make_msgid(domain="example.net")
        subject = f"n{len(self.sent)} {subject}"  # a Subject starting with a command would be read
        raw = make_mail(subject=subject, body=body, sender=sender, to=JUDGE, message_id=message_id)
        targets = self.daemons[:]
        self.random.shuffle(targets)
        for daemon in targets:
            if daemon.process.poll() is not None:
                continue
            try:
                with smtplib.SMTP("127.0.0.1", daemon.smtp_port, timeout=20) as client:
                    client.sendmail(sender, [JUDGE], raw)
                break
            except (OSError, smtplib.SMTPException):
                continue
        else:
            raise AssertionError("no judge took the mail")
        self.sent[message_id.strip("<>")] = (sender, subject)
        return message_id

    def received(self) -> list[email.message.EmailMessage]:
        return [message for _, message in self.sink.parsed()]

    def replies(self) -> dict[str, set[str]]:
        """In-Reply-To -> the distinct Message-IDs of the replies to that mail."""
        found: dict[str, set[str]] = defaultdict(set)
        for message in self.received():
            if message["In-Reply-To"]:
                found[str(message["In-Reply-To"]).strip("<> ")].add(str(message["Message-ID"]))
        return found

    def wait(self, condition, what: str, timeout: float = 45.0):
        deadline = time.monotonic() + timeout
        while True:
            result = condition()
            if result:
                return result
            if time.monotonic() > deadline:
                replies = self.replies()
                unanswered = [self.sent[m] for m in self.sent if not replies.get(m)]
                errors = [_first_text(m)[:600] for m in self.received() if "ERROR" in _first_text(m)]
                logs = "\n\n".join(d.log[-3000:] for d in self.daemons)
                raise AssertionError(f"timed out waiting for {what}; unanswered {unanswered}; "
                                     f"replies with errors {errors[:3]}\n{logs}")
            time.sleep(0.1)

    def all_answered(self) -> bool:
        replies = self.replies()
        return all(replies.get(message_id) for message_id in self.sent)

    def form_games(self, games: tuple[str, ...]) -> tuple[dict[str, list[str]], dict[tuple[str, str], str]]:
        """Each game created by MASTER and joined by seven players (mail alternating between
        the games); the players of each game and the power of each (game, player), from the
        start notices."""
        for game in games:
            self.send(MASTER, f"CREATE {game} masterpw\nFORM\n", f"create {game}")
        self.wait(self.all_answered, "the CREATE replies")
        players = {game: [f"{game}p{i}@example.net" for i in range(7)] for game in games}
        for i in range(7):
            for game in games:
                self.send(players[game][i], f"JOIN {game} pw{i}\n", f"join {game} {i}")
        started = self.wait(lambda: notices if len(notices := self._start_notices()) >= 7 * len(games) else None,
                            "the start notices")
        power_of = {(str(m["Subject"]).split(":")[0], str(m["To"])): str(m["Subject"]).rsplit(" ", 1)[1]
                    for m in started}
        return players, power_of

    def _start_notices(self) -> list[email.message.EmailMessage]:
        return [m for m in self.received() if "game started, you play" in str(m["Subject"])]


def orders_and_chatter(players: dict[str, list[str]], power_of: dict[tuple[str, str], str], phase: str,
                       broadcast_every: int) -> list[tuple[str, str, str]]:
    """A phase's load, shuffled: every player's orders (all hold), a signed broadcast from
    every ``broadcast_every``-th player, and the master's LIST of each game."""
    mails = []
    for game, addresses in players.items():
        for i, address in enumerate(addresses):
            power = power_of[(game, address)]
            signon = f"SIGNON {power[0]}{game} pw{i}\n"
            mails.append((address, signon + holds(power) + "\n", f"{phase} {game} {power}"))
            if i % broadcast_every == 0:
                mails.append((address, signon + f"BROADCAST\n{phase} greetings from {power}\nENDPRESS\n",
                              f"press {phase} {game} {power}"))
        mails.append((MASTER, f"LIST {game}\n", f"list {phase} {game}"))
    random.Random(phase).shuffle(mails)
    return mails


def holds(power: str) -> str:
    position = initial_position(variant_named("standard"))
    return "\n".join(f"{u.kind.value} {u.location} H" for u in position.units if u.power == power)


def games_env(postgres_url: str, home, smtp_sink) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The environment of judges on one database playing games: one address, one GnuPG
    home, one relay, short polls and ticks."""
    return {
        "JUDGE_STORE_URL": postgres_url, "JUDGE_JUDGE_ADDRESS": JUDGE, "JUDGE_JUDGE_DOMAIN": "example.org",
        "JUDGE_JUDGE_GNUPG_HOME": str(home),
        "JUDGE_OUTBOUND_RELAY_HOST": smtp_sink.host, "JUDGE_OUTBOUND_RELAY_PORT": str(smtp_sink.port),
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.1", "JUDGE_WORKER_POLL_SECONDS": "0.1",
        "JUDGE_SCHEDULER_TICK_SECONDS": "0.3",
    }


@pytest.fixture
def two_judges(postgres_url, tmp_path, smtp_sink, judge_runner):
    with judges_on_one_database(postgres_url, tmp_path, smtp_sink, judge_runner, "two") as (env, store):
        workdirs = [tmp_path / "a", tmp_path / "b"]
        for workdir in workdirs:
            workdir.mkdir()
        # Host b runs its worker in a process of its own: three processes sign with one home.
        envs = [env, {**env, "JUDGE_WORKER_PROCESSES": "1"}]
        daemons = [judge_runner.start(workdirs[0], envs[0])]  # the first start makes and records the key
        daemons.append(judge_runner.start(workdirs[1], envs[1]))
        yield Front(smtp_sink, daemons), judge_runner, workdirs, envs, store


@contextmanager
def judges_on_one_database(postgres_url, tmp_path, smtp_sink, judge_runner, name: str):  # type: ignore[no-untyped-def]
    """``(env, store)`` for judges playing games on one upgraded database (games_env, a
    GnuPG home of its own); on leaving, every judge the runner started is stopped cleanly
    and the home removed."""
    home = short_home(name)
    env = games_env(postgres_url, home, smtp_sink)
    upgraded = run_judge(["db", "upgrade"], tmp_path, env)
    assert upgraded.returncode == 0, upgraded.stderr
    store = Store(postgres_url)
    try:
        yield env, store
    finally:
        store.dispose()
        for daemon in judge_runner.started:
            if daemon.process.poll() is None:
                assert daemon.terminate() == 0, daemon.log
        remove_home(home)


def test_two_judges_share_one_database_through_a_crash(two_judges):
    front, runner, workdirs, envs, store = two_judges

    # Forming: three masters' games, seven players each, joined through either judge.
    players, power_of = front.form_games(GAMES)

    # S1901: half the load, then judge a dies (SIGKILL) with mail in hand, the rest
    # goes on through judge b, and judge a comes back for the second half.
    spring = orders_and_chatter(players, power_of, "S1901", broadcast_every=3)
    half = len(spring) // 2
    for mail in spring[:half]:
        front.send(*mail)
    front.daemons[0].kill()
    for mail in spring[half:half + 10]:
        front.send(*mail)
    front.daemons[0] = runner.start(workdirs[0], envs[0])
    for mail in spring[half + 10:]:
        front.send(*mail)
    front.wait(lambda: phases(store) == {game: ["S1901M"] for game in GAMES}, "S1901M processed in every game")
    for mail in orders_and_chatter(players, power_of, "F1901", broadcast_every=3):
        front.send(*mail)
    front.wait(lambda: phases(store) == {game: ["S1901M", "F1901M"] for game in GAMES}, "F1901M processed")
    front.wait(front.all_answered, "every reply")
    front.wait(lambda: outbox_done(store), "the outbox drained")

    # Every mail answered once: one reply (one Message-ID) per mail sent.
    replies = front.replies()
    assert {message_id: len(replies[message_id]) for message_id in front.sent} == {m: 1 for m in front.sent}
    # Every phase processed once: one results mail per phase for every player, one record each.
    results = Counter((str(m["Subject"]), str(m["To"])) for m in front.received() if "results" in str(m["Subject"]))
    for game in GAMES:
        for phase in ("S1901M", "F1901M"):
            assert {address: results[(f"{game} {phase} results", address)] for address in players[game]} \
                == {address: 1 for address in players[game]}, (game, phase)
    # A SIGKILL while sending may resend the one mail in hand (same Message-ID): no more.
    copies = Counter(str(m["Message-ID"]) for m in front.received())
    assert sum(copies.values()) - len(copies) <= 1
    # Nothing shunted, every mail processed, every broadcast signed by one key.
    with store.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(Shunt)) == 0
        assert set(session.execute(select(InboundMessage.status)).scalars()) == {"processed"}
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == len(front.sent)
    signed = [m for m in front.received() if m.get_content_type() == "multipart/signed"]
    assert signed, "no broadcast was signed"
    fingerprints = {line.strip() for m in front.received() if m.get_content_type() == "multipart/signed"
                    for line in _first_text(m).splitlines() if line.startswith("  ") and len(line.split()) == 10}
    assert len(fingerprints) == 1, fingerprints


def phases(store: Store) -> dict[str, list[str]]:
    with store.unit_of_work() as session:
        rows = session.execute(select(Game.name, PhaseRecord.phase).join(PhaseRecord, PhaseRecord.game_id == Game.id)
                               .order_by(PhaseRecord.id)).all()
    found: dict[str, list[str]] = defaultdict(list)
    for game, phase in rows:
        found[game].append(phase)
    return dict(found)


def outbox_done(store: Store) -> bool:
    with store.unit_of_work() as session:
        return set(session.execute(select(OutboxMessage.status)).scalars()) == {"sent"}


def _first_text(message: email.message.EmailMessage) -> str:
    part = message.get_body(("plain",))
    return part.get_content() if part is not None else ""


@pytest.fixture
def judge_pair_env(postgres_url, tmp_path, smtp_sink):
    """The environment of two judges on one database, with the echo handler (no games)."""
    home = short_home("pair")
    env = {
        "JUDGE_STORE_URL": postgres_url, "JUDGE_JUDGE_ADDRESS": JUDGE, "JUDGE_JUDGE_GNUPG_HOME": str(home),
        "JUDGE_WORKER_HANDLER": "tests.judge.handlers:echo",
        "JUDGE_OUTBOUND_RELAY_HOST": smtp_sink.host, "JUDGE_OUTBOUND_RELAY_PORT": str(smtp_sink.port),
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.1", "JUDGE_WORKER_POLL_SECONDS": "0.1",
    }
    assert run_judge(["db", "upgrade"], tmp_path, env).returncode == 0
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    yield env
    remove_home(home)


def test_mail_in_the_hands_of_a_killed_judge_is_processed_by_the_other(judge_pair_env, tmp_path, judge_runner,
                                                                        smtp_sink, postgres_url):
    """A claim on inbound mail is a row lock of the processing transaction: it dies with
    the judge's connection, and the other judge takes the mail at once."""
    slow = judge_runner.start(tmp_path / "a", {**judge_pair_env, "JUDGE_WORKER_PAUSE_BEFORE_COMMIT_SECONDS": "120"})
    other = judge_runner.start(tmp_path / "b", judge_pair_env)
    front = Front(smtp_sink, [slow])
    message_id = front.send("anna@example.net", "LIST\n", "in hand").strip("<>")
    slow.wait_for_log("pausing 120.0 s before commit")
    slow.kill()
    front.daemons = [other]
    front.wait(front.all_answered, "the other judge's reply", timeout=20)
    assert len(front.replies()[message_id]) == 1
    assert "message #1 processed" in other.log


def test_replies_leased_by_a_killed_judge_are_sent_by_the_other_within_seconds(judge_pair_env, tmp_path,
                                                                              judge_runner, smtp_sink, postgres_url):
    """Judge a leases a reply and hangs on a relay that never answers; it is killed.
    Judge b, which looks at the outbox only every 10 minutes by itself, sends every reply
    within seconds: its lease keeper sees that a is gone, releases its row and wakes b's
    sender."""
    import socket

    black_hole = socket.socket()
    black_hole.bind(("127.0.0.1", 0))
    black_hole.listen(16)  # connections complete in the backlog; no greeting ever comes
    try:
        stuck = judge_runner.start(tmp_path / "a", {**judge_pair_env,
                                                    "JUDGE_OUTBOUND_RELAY_PORT": str(black_hole.getsockname()[1])})
        idle = judge_runner.start(tmp_path / "b", {**judge_pair_env, "JUDGE_OUTBOUND_POLL_SECONDS": "600",
                                                   "JUDGE_WORKER_POLL_SECONDS": "600"})
        front = Front(smtp_sink, [stuck])
        for n in range(3):
            front.send(f"p{n}@example.net", "LIST\n", f"leased {n}")
        stuck.wait_for_log("message #3 processed")
        store = Store(postgres_url)
        try:
            # a leases the first reply and hangs sending it; the others wait, due, unleased.
            front.wait(lambda: _leased(store) >= 1, "judge a to lease a reply", timeout=10)
            stuck.kill()
            front.daemons = [idle]
            front.wait(front.all_answered, "the replies through judge b (not after the 5-minute lease)", timeout=40)
            assert outbox_done(store) and _leased(store) == 0
        finally:
            store.dispose()
        # judge a's owner rows: its own, and its bot process's when that is gone too by then
        assert re.search(r"released \d+ outbox row\(s\) leased by [12] judge process\(es\) that are gone", idle.log)
    finally:
        black_hole.close()


def _leased(store: Store) -> int:
    with store.unit_of_work() as session:
        return session.scalar(select(func.count()).select_from(OutboxMessage)
                              .where(OutboxMessage.leased_by.is_not(None))) or 0
