"""RULE BLIND_ASSIGN by email between two judges: the game master's (judge.commands) and a
witness (judge.commands.fair_witness, what ``judge serve --role witness`` runs), each on
its own SQLite store and worker; players answer the mails they get with the sums of
judge.fair.blind, as ``judge player blind`` does for a person."""

from __future__ import annotations

import email
import random
import re
import sys
from collections import deque
from dataclasses import dataclass, field, replace
from email.policy import default as default_policy
from pathlib import Path
from typing import Iterator

import pytest
from sqlalchemy import select

from judge.config import JudgeSettings
from judge.fair.blind import MessageFormat, add_digits, random_digits, try_blinds
from judge.commands import process_mail
from judge.config import Settings
from judge.edge.fair_due import due_game_ids, fair_due_work, run_fair_pass
from judge.commands.fair_witness import process_witness_mail
from judge.store.models_fair import BlindRun
from judge.store.models_game import Game, Membership
from judge.mailio.outgoing import message_bytes
from judge.publish.peer_mail import signed_peer_mail
from judge.store.models_mail import OutboxMessage
from tests.fixtures.gpg import remove_home, short_home
from tests.judge.clocked_judge import ClockedJudge
from tests.judge.commands.harness import START
from tests.judge.storage import make_mail, migrated_store

GM = JudgeSettings(address="judge@gm.example", domain="gm.example", name="GM Judge")
WITNESS = JudgeSettings(address="witness@wit.example", domain="wit.example", name="Witness Judge")
MASTER = "master@example.net"
PLAYERS = tuple(f"player{i}@example.net" for i in range(7))


@pytest.fixture(autouse=True)
def judge_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Each judge with its own GnuPG home: their protocol mail is signed (issue 12.10)."""
    homes = [short_home("bg"), short_home("bw")]
    monkeypatch.setattr(sys.modules[__name__], "GM", replace(GM, gnupg_home=str(homes[0]), data_dir=str(tmp_path)))
    monkeypatch.setattr(sys.modules[__name__], "WITNESS",
                        replace(WITNESS, gnupg_home=str(homes[1]), data_dir=str(tmp_path)))
    yield
    for home in homes:
        remove_home(home)


class Node(ClockedJudge):
    """One judge: a store and a worker with its hook; mail in, outbox rows out."""

    def __init__(self, directory: Path, settings: JudgeSettings, hook) -> None:
        directory.mkdir()
        super().__init__(migrated_store(directory), settings, START, hook)
        self.seen = 0

    def drain(self) -> list[tuple[tuple[str, ...], bytes, str]]:
        with self.store.unit_of_work() as session:
            rows = session.execute(select(OutboxMessage).where(OutboxMessage.id > self.seen)
                                   .order_by(OutboxMessage.id)).scalars().all()
            found = [(tuple(r.recipients), r.raw, r.kind) for r in rows]
            if rows:
                self.seen = rows[-1].id
        return found


@dataclass
class Player:
    """A person with ``judge player blind``: keeps the blind, tries the published blinds."""

    address: str
    rng: random.Random
    blind: str | None = None
    final: str | None = None
    format: MessageFormat | None = None
    power: str | None = None
    blinds: tuple[str, ...] = ()
    inbox: list[str] = field(default_factory=list)

    def answer(self, body: str) -> list[str]:
        """The command mails this player sends in reply to ``body`` (to the witness)."""
        body = body.replace("\r\n", "\n")  # as received over SMTP
        self.inbox.append(body)
        if m := re.search(r"Your GM-blinded message: (\d+)", body):
            self.blind = random_digits(len(m[1]), self.rng)
            return [f"BLINDED g1 {add_digits(m[1], self.blind)}\n"]
        if "Send me your blinding factor" in body:
            return [f"BLIND g1 {self.blind}\n"]
        if m := re.search(r"your final message is (\d+)", body):
            self.final = m[1]
            return [f"CONFIRM g1 {m[1]}\n"]
        if m := re.search(r"^FORMAT g1 (\S+) (.+)$", body, re.M):
            self.format = MessageFormat(m[1], tuple(m[2].split()))
        if "the players' blinds (sorted" in body:
            self.blinds = tuple(re.findall(r"^(\d+)$", body, re.M))
        if self.final is not None and self.format is not None and self.blinds:  # mail may come in any order
            self.power = try_blinds(self.final, self.blinds, self.format)
        return []


class Network:
    """Delivers every outbox row to its recipient until no mail is left."""

    def __init__(self, gm: Node, witness: Node | None, players: dict[str, Player]) -> None:
        self.gm, self.witness, self.players = gm, witness, players
        self.to_master: list[str] = []
        self.elsewhere: list[tuple[str, str]] = []
        self.held: list[tuple[str, bytes, str]] = []
        self.queue: deque[tuple[str, bytes, str]] = deque()

    def send(self, sender: str, to: str, body: str) -> None:
        self.queue.append((to, make_mail(subject="commands", body=body, sender=sender, to=to), sender))
        self.run()

    def _collect(self) -> None:
        for node in (self.gm, self.witness):
            if node is None:
                continue
            for recipients, raw, kind in node.drain():
                for address in recipients:
                    self.queue.append((address, raw, node.settings.address))

    def run(self) -> None:
        while True:
            self._collect()
            if not self.queue:
                return
            to, raw, sender = self.queue.popleft()
            message = email.message_from_bytes(raw, policy=default_policy)
            body = message.get_body(("plain",)).get_content()
            if to == GM.address:
                self.gm.deliver(raw, sender)
            elif to == WITNESS.address:
                if self.witness is None:
                    self.held.append((to, raw, sender))  # the witness is down: mail waits in queues
                else:
                    self.witness.deliver(raw, sender)
            elif to in self.players:
                for reply in self.players[to].answer(body):
                    self.queue.append((WITNESS.address, make_mail(body=reply, sender=to, to=WITNESS.address), to))
            elif to == MASTER:
                self.to_master.append(body)
            else:
                self.elsewhere.append((to, body))


def start_game(tmp_path: Path, with_witness: bool = True) -> Network:
    gm = Node(tmp_path / "gm", GM, process_mail)
    witness = Node(tmp_path / "witness", WITNESS, process_witness_mail) if with_witness else None
    rng = random.Random(6)
    players = {a: Player(a, random.Random(rng.random())) for a in PLAYERS}
    net = Network(gm, witness, players)
    net.send(MASTER, GM.address, f"CREATE g1 masterpw\nRULE BLIND_ASSIGN\nRULE GUNBOAT\nWITNESS {WITNESS.address}\nFORM\n")
    for index, address in enumerate(PLAYERS):
        net.send(address, GM.address, f"JOIN g1 pw{index}\n")
    return net


def test_seven_players_each_learn_exactly_their_own_power(tmp_path: Path) -> None:
    net = start_game(tmp_path)
    with net.gm.store.unit_of_work() as session:
        game = session.execute(select(Game)).scalar_one()
        assert game.status == "active"
        record = {m.address: m.power for m in session.execute(
            select(Membership).where(Membership.role == "player")).scalars()}
        run = session.execute(select(BlindRun)).scalar_one()
        assert run.finished_at is not None
    learned = {address: player.power for address, player in net.players.items()}
    assert learned == record  # each player found its power, and the GM's record matches
    assert sorted(learned.values()) == sorted(["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"])
    for address, player in net.players.items():
        others = [p for a, p in record.items() if a != address]
        # nothing a player received names another player's power next to that player
        assert not any(other_address in text for text in player.inbox for other_address in PLAYERS
                       if other_address != address)
        assert player.power not in others
    with net.witness.store.unit_of_work() as session:
        assert session.execute(select(BlindRun)).scalar_one().finished_at is not None


def test_a_witness_that_never_answers(tmp_path: Path) -> None:
    net = start_game(tmp_path, with_witness=False)  # the witness's mail goes nowhere
    with net.gm.store.unit_of_work() as session:
        game = session.execute(select(Game)).scalar_one()
        assert game.status == "forming"
        run = session.execute(select(BlindRun)).scalar_one()
        before = run.state
    with net.gm.store.unit_of_work() as session:
        assert due_game_ids(session, START.replace(hour=23)) == []  # silent for less than a day
    net.gm.now = START.replace(day=START.day + 2)
    with net.gm.store.unit_of_work() as session:
        assert len(due_game_ids(session, net.gm.now)) == 1
        mails = fair_due_work(session, GM, net.gm.now)
    told = [m for m in mails if m.recipients == (MASTER,)]
    assert told and "has not answered" in told[0].body and "nothing is lost" in told[0].body
    assert [m for m in mails if m.recipients == (WITNESS.address,) and m.body.startswith("SHUFFLE g1")]
    with net.gm.store.unit_of_work() as session:
        assert session.execute(select(Game)).scalar_one().status == "forming"
        run = session.execute(select(BlindRun)).scalar_one()
        assert run.state == before and run.finished_at is None
        again = fair_due_work(session, GM, net.gm.now)  # told once a day, not on every pass
    assert not [m for m in again if m.recipients == (MASTER,)]


def test_a_witness_that_comes_back_finds_everything_waiting(tmp_path: Path) -> None:
    net = start_game(tmp_path, with_witness=False)
    assert net.held  # SHUFFLE and the players' BLINDED lines wait for the witness
    net.gm.now = START.replace(day=START.day + 2)
    run_fair_pass(net.gm.store, Settings(judge=GM), net.gm.now)  # the scheduler pass: master told, SHUFFLE again
    net.witness = Node(tmp_path / "witness", WITNESS, process_witness_mail)  # the witness is back
    net.queue.extend(net.held)
    net.run()  # the queued mail and the repeated SHUFFLE (a repeat changes nothing)
    assert any("has not answered" in body for body in net.to_master)
    with net.gm.store.unit_of_work() as session:
        assert session.execute(select(Game)).scalar_one().status == "active"
        record = {m.address: m.power for m in session.execute(
            select(Membership).where(Membership.role == "player")).scalars()}
    assert record == {address: player.power for address, player in net.players.items()}


def test_the_witness_refuses_lines_from_strangers(tmp_path: Path) -> None:
    net = start_game(tmp_path, with_witness=True)
    net.send("stranger@example.net", WITNESS.address, "BLINDED g1 123456\n")
    to, body = net.elsewhere[-1]
    assert to == "stranger@example.net"
    assert "ERROR line 1: BLINDED g1 123456" in body and "not a player of a blinded assignment" in body
    net.send("stranger@example.net", WITNESS.address, "FORMAT g1 12x4 AUSTRIA\n")
    assert "not a player" in net.elsewhere[-1][1] or "only the game master" in net.elsewhere[-1][1]


def signed_by(settings: JudgeSettings, to: str, body: str) -> bytes:
    """Protocol mail as the judge ``settings`` signs it (From: its address)."""
    return message_bytes(signed_peer_mail(settings, to, "protocol", body, kind="test"), settings, START)


def deliver(net: Network, to: str, raw: bytes, sender: str) -> None:
    net.queue.append((to, raw, sender))
    net.run()


def test_the_game_master_refuses_a_damaged_list(tmp_path: Path) -> None:
    net = start_game(tmp_path, with_witness=False)
    def last_reply() -> str:  # the GM's answer waits for the witness (which is down here)
        raw = net.held[-1][1]
        return email.message_from_bytes(raw, policy=default_policy).get_body(("plain",)).get_content()

    deliver(net, GM.address, signed_by(WITNESS, GM.address, "SHUFFLED g1\n12\n34\n"), WITNESS.address)
    assert "ERROR" in last_reply() and "holds 2 messages, expected 7" in last_reply()
    digits = "\n".join("1" * 5 for _ in range(7))
    deliver(net, GM.address, signed_by(WITNESS, GM.address, f"SHUFFLED g1\n{digits}\n"), WITNESS.address)
    assert "has 5 digits" in last_reply()
    with net.gm.store.unit_of_work() as session:
        assert session.execute(select(BlindRun)).scalar_one().log == []  # nothing taken


def test_mail_with_the_witness_address_but_not_its_key_is_refused(tmp_path: Path) -> None:
    """Issue 12.10: a forged From is not the witness.  Unsigned mail, or mail signed by another
    key after the witness's key is pinned, is refused and changes nothing."""
    net = start_game(tmp_path, with_witness=False)
    witness = Node(tmp_path / "witness", WITNESS, process_witness_mail)  # run by hand: its list is held back
    for to, raw, sender in net.held:  # SHUFFLE and the players' BLINDED lines
        witness.deliver(raw, sender)
    net.held.clear()
    listed = [raw for recipients, raw, kind in witness.drain() if recipients == (GM.address,)]
    assert len(listed) == 1 and b"multipart/signed" in listed[0]  # the witness signs its mail
    text = email.message_from_bytes(listed[0], policy=default_policy).get_body(("plain",)).get_content()
    forged_list = text.replace(text.split("\n")[1], "0" * len(text.split("\n")[1]), 1)

    def state() -> tuple[list, dict, str | None]:
        with net.gm.store.unit_of_work() as session:
            run = session.execute(select(BlindRun)).scalar_one()
            return list(run.log), dict(run.state), run.peer_fingerprint

    before = state()
    net.send(WITNESS.address, GM.address, forged_list)  # forged From, not signed
    reply = email.message_from_bytes(net.held[-1][1], policy=default_policy).get_body(("plain",)).get_content()
    assert "refused: not signed: protocol mail must be PGP/MIME signed" in reply
    assert state() == before
    deliver(net, GM.address, listed[0], WITNESS.address)  # the witness's own signed mail is taken
    after = state()
    assert after[0] == ["ShuffledList"] and after[2] is not None
    assert any("signs its mail with the key" in body for body in net.to_master)
    impostor_home = short_home("bi")
    try:
        impostor = replace(WITNESS, gnupg_home=str(impostor_home), data_dir=str(tmp_path / "impostor"))
        deliver(net, GM.address, signed_by(impostor, GM.address, "COLLECTED g1 7\n"), WITNESS.address)
    finally:
        remove_home(impostor_home)
    reply = email.message_from_bytes(net.held[-1][1], policy=default_policy).get_body(("plain",)).get_content()
    assert "signature refused (the key pinned for this run" in reply
    assert state() == after


def test_the_witness_refuses_mail_in_the_name_of_the_game_master(tmp_path: Path) -> None:
    net = start_game(tmp_path, with_witness=True)
    with net.witness.store.unit_of_work() as session:
        run = session.execute(select(BlindRun)).scalar_one()
        assert run.peer_fingerprint is not None  # pinned from the signed SHUFFLE
        log = list(run.log)
    net.send(GM.address, WITNESS.address, "FORMAT g1 12x4 AUSTRIA\n")  # forged From, unsigned
    with net.witness.store.unit_of_work() as session:
        assert session.execute(select(BlindRun)).scalar_one().log == log
    forged = make_mail(subject="x", body="SHUFFLE g2 8 " + " ".join(PLAYERS) + "\n", sender=GM.address,
                       to=WITNESS.address)
    deliver(net, WITNESS.address, forged, GM.address)
    with net.witness.store.unit_of_work() as session:
        assert [r.game_name for r in session.execute(select(BlindRun)).scalars()] == ["g1"]  # no run for g2
