"""RULE BLIND_ASSIGN over real SMTP: two `judge serve` daemons, the game master's and a
witness (`judge serve --role witness`), each relaying to a small SMTP router that delivers
judge mail to the other daemon and player mail to seven simulated players.  The players do
what `judge player blind` does for a person: add a random blind, report it, confirm the
final message, and try the published blinds.  Each learns exactly its own power, and the
game master's record (its start notices and its store) matches."""

from __future__ import annotations

import email
import queue
import random
import smtplib
import threading
from email.policy import default as default_policy
from email.utils import make_msgid
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from judge.store.engine import Store
from judge.store.models_game import Membership
from tests.fixtures.gpg import remove_home, short_home
from tests.fixtures.ports import free_port
from tests.judge.commands.test_fair_blind import Player

pytestmark = pytest.mark.slow

GM = "judge@gm.example"
WITNESS = "witness@wit.example"
MASTER = "master@example.net"
PLAYERS = tuple(f"player{i}@example.net" for i in range(7))


class Router:
    """The relay of both daemons: judge mail to the other daemon, player mail answered."""

    def __init__(self, players: dict[str, Player]) -> None:
        self.players = players
        self.ports: dict[str, int] = {}
        self.inbox: "queue.Queue[tuple[str, str, bytes]]" = queue.Queue()
        self.received: list[tuple[str, EmailMessage]] = []
        self.errors: list[BaseException] = []
        self._thread = threading.Thread(target=self._deliver, daemon=True)
        self._stop = threading.Event()

    async def handle_DATA(self, server, session, envelope) -> str:
        raw = envelope.original_content or envelope.content
        for rcpt in envelope.rcpt_tos:
            self.inbox.put((envelope.mail_from, rcpt.lower(), raw))
        return "250 2.0.0 OK"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def send(self, sender: str, to: str, body: str) -> None:
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender, to, "commands"
        message["Message-ID"] = make_msgid(domain="example.net")
        message.set_content(body)
        with smtplib.SMTP("127.0.0.1", self.ports[to], timeout=10) as client:
            client.send_message(message, from_addr=sender, to_addrs=[to])

    def _deliver(self) -> None:
        while not self._stop.is_set():
            try:
                sender, rcpt, raw = self.inbox.get(timeout=0.05)
            except queue.Empty:
                continue
            try:
                if rcpt in self.ports:
                    with smtplib.SMTP("127.0.0.1", self.ports[rcpt], timeout=10) as client:
                        client.sendmail(sender, [rcpt], raw)
                    continue
                message = email.message_from_bytes(raw, policy=default_policy)
                if rcpt in self.players:
                    body = message.get_body(("plain",)).get_content()
                    for answer in self.players[rcpt].answer(body):
                        self.send(rcpt, WITNESS, answer)
                self.received.append((rcpt, message))
            except BaseException as problem:  # surfaced by the test
                self.errors.append(problem)

    def wait(self, predicate, count: int, timeout: float = 30.0) -> list[tuple[str, EmailMessage]]:
        import time

        deadline = time.monotonic() + timeout
        while True:
            hits = [item for item in list(self.received) if predicate(item)]
            if len(hits) >= count or self.errors:
                assert not self.errors, self.errors
                return hits
            if time.monotonic() > deadline:
                subjects = sorted({str(m["Subject"]) for _, m in self.received})
                raise AssertionError(f"expected {count}; subjects so far: {subjects}")
            time.sleep(0.05)


def daemon_env(address: str, domain: str, home: Path, relay_port: int) -> dict[str, str]:
    return {
        "JUDGE_JUDGE_ADDRESS": address, "JUDGE_JUDGE_DOMAIN": domain, "JUDGE_JUDGE_GNUPG_HOME": str(home),
        "JUDGE_OUTBOUND_RELAY_HOST": "127.0.0.1", "JUDGE_OUTBOUND_RELAY_PORT": str(relay_port),
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.05", "JUDGE_WORKER_POLL_SECONDS": "0.05",
        "JUDGE_SCHEDULER_TICK_SECONDS": "3600", "JUDGE_SCHEDULER_TOUCHED_SECONDS": "3600",
    }


def test_seven_players_over_smtp_with_a_witness_daemon(judge_runner, tmp_path: Path) -> None:
    rng = random.Random(11)
    players = {a: Player(a, random.Random(rng.random())) for a in PLAYERS}
    router = Router(players)
    relay_port = free_port()
    controller = Controller(router, hostname="127.0.0.1", port=relay_port)
    controller.start()
    router.start()
    homes = [short_home("bg"), short_home("bw")]
    (tmp_path / "gm").mkdir()
    (tmp_path / "witness").mkdir()
    try:
        gm = judge_runner.start(tmp_path / "gm", daemon_env(GM, "gm.example", homes[0], relay_port))
        witness = judge_runner.start(tmp_path / "witness", daemon_env(WITNESS, "wit.example", homes[1], relay_port),
                                     args=["--role", "witness"])
        router.ports = {GM: gm.smtp_port, WITNESS: witness.smtp_port}
        router.send(MASTER, GM, f"CREATE g1 masterpw\nRULE BLIND_ASSIGN\nWITNESS {WITNESS}\nFORM\n")
        router.wait(lambda item: item[0] == MASTER, 1)
        for index, address in enumerate(PLAYERS):
            router.send(address, GM, f"JOIN g1 pw{index}\n")
        starts = router.wait(lambda item: "game started, you play" in str(item[1]["Subject"]), 7)
        told = {rcpt: str(message["Subject"]).rsplit(" ", 1)[1] for rcpt, message in starts}
        router.wait(lambda item: "the blinds" in str(item[1]["Subject"]) and item[0] in players, 7)
        router.wait(lambda item: "message format" in str(item[1]["Subject"]) and item[0] in players, 7)
        learned = {address: player.power for address, player in players.items()}
        assert learned == told  # each player found its own power; the GM's notices agree
        assert sorted(told.values()) == ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
        for address, player in players.items():  # nobody was shown another player's power
            assert not any(other in text for text in player.inbox for other in PLAYERS if other != address)
        assert gm.terminate() == 0, gm.log
        assert witness.terminate() == 0, witness.log
        store = Store(f"sqlite:///{tmp_path / 'gm' / 'judge.db'}")
        try:
            with store.unit_of_work() as session:
                record = {m.address: m.power for m in session.execute(
                    select(Membership).where(Membership.role == "player")).scalars()}
        finally:
            store.dispose()
        assert record == learned
    finally:
        router.stop()
        controller.stop()
        for home in homes:
            remove_home(home)
