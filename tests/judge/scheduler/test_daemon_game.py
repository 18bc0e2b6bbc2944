"""A whole game over real SMTP through `judge serve`, moved through time by a clock file.

Players and the master write to the daemon's SMTP port; the daemon relays every outgoing
mail to a real SMTP sink; `--clock-file` lets the test jump to deadlines while the
scheduler runs every 0.2 s.  Seven powers play 1901 and 1902: orders with errors, a late
power and the late notice, a movement phase processed in civil disorder after the grace
period, adjustments defaulting at the deadline, a rollback by the master, and a draw vote
that passes and ends the game with the centre table and the players revealed.
"""

from __future__ import annotations

import email
import re
import smtplib
import time
from datetime import datetime, timedelta, timezone
from email.policy import default as default_policy
from pathlib import Path

import pytest
from sqlalchemy import select

from adjudicator.jsonio import position_from_json
from judge.daemon.clockfile import set_clock
from judge.store.queries import variant_named
from judge.store.engine import Store
from judge.store.models_game import Game, PhaseRecord
from tests.judge.storage import make_mail

pytestmark = pytest.mark.slow

START = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
JUDGE_ADDRESS = "judge@localhost"
MASTER = "gm@example.net"
MASTER_SIGNON = "SIGNON master@g1 masterpw\n"
PLAYERS = tuple(f"player{i}@example.net" for i in range(7))

S1901 = {
    "AUSTRIA": ["A VIE - GAL", "A BUD - SER", "F TRI - ALB"],
    "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"],
    "FRANCE": ["A PAR - MUN", "A PAR - BUR", "A MAR - SPA", "F BRE - MAO"],  # the first is illegal
    "GERMANY": ["A BER - KIE", "A MUN - RUH", "F KIE - DEN"],
    "ITALY": ["A VEN H", "A ROM - APU", "F NAP - ION"],
    "RUSSIA": ["A MOS - UKR", "A WAR - GAL", "F SEV - BLA", "F STP/SC - BOT"],
    "TURKEY": ["A CON - BUL", "A SMY - CON", "F ANK - BLA"],
}
F1901 = {  # Russia sends nothing: civil disorder after the grace period
    "AUSTRIA": ["A VIE H", "A SER H", "F ALB - GRE"],
    "ENGLAND": ["F NTH - NWY", "F NWG H", "A YOR H"],
    "FRANCE": ["A BUR - BEL", "A SPA H", "F MAO - POR"],
    "GERMANY": ["A KIE - HOL", "A RUH H", "F DEN H"],
    "ITALY": ["A VEN H", "A APU H", "F ION - TUN"],
    "TURKEY": ["A BUL H", "A CON H", "F ANK H"],
}
W1901 = {  # Italy and Russia order nothing: their builds default (waived) at the deadline
    "AUSTRIA": ["A BUD B", "F TRI B"],
    "ENGLAND": ["F LON B"],
    "FRANCE": ["A PAR B", "A MAR B", "F BRE B"],
    "GERMANY": ["A BER B", "A MUN B"],
    "TURKEY": ["A SMY B"],
}


class Table:
    """The game as the test drives it: the daemon, its clock, the sink, who plays what."""

    def __init__(self, workdir: Path, judge, sink) -> None:
        self.workdir, self.judge, self.sink = workdir, judge, sink
        self.clock = workdir / "clock"
        self.now = START
        self.seen = 0
        self.parsed: list[tuple[str, str, str]] = []
        self.address_of: dict[str, str] = {}
        self.password_of: dict[str, str] = {}

    # -- time and mail ---------------------------------------------------------------
    def jump(self, moment: datetime) -> None:
        self.now = moment
        set_clock(self.clock, moment)

    def send(self, sender: str, body: str, subject: str = "commands") -> None:
        raw = make_mail(subject=subject, body=body, sender=sender, to=JUDGE_ADDRESS)
        with smtplib.SMTP("127.0.0.1", self.judge.smtp_port, timeout=10) as client:
            client.sendmail(sender, [JUDGE_ADDRESS], raw)

    def mails(self) -> list[tuple[str, str, str]]:
        """(recipient, subject, body) of everything the judge relayed so far."""
        for sunk in self.sink.messages[self.seen:]:
            message = email.message_from_bytes(sunk.raw, policy=default_policy)
            part = message.get_body(("plain",))
            body = part.get_content().replace("\r\n", "\n") if part is not None else ""
            for rcpt in sunk.rcpt_tos:
                self.parsed.append((rcpt, str(message["Subject"]), body))
            self.seen += 1
        return self.parsed

    def wait_for(self, subject_part: str, count: int = 1, timeout: float = 30.0) -> list[tuple[str, str, str]]:
        """The relayed mails whose subject contains ``subject_part``, once there are ``count``."""
        deadline = time.monotonic() + timeout
        while True:
            hits = [m for m in self.mails() if subject_part in m[1]]
            if len(hits) >= count:
                return hits
            if time.monotonic() > deadline:
                subjects = sorted({m[1] for m in self.mails()})
                raise AssertionError(f"no {count} mail(s) with {subject_part!r}; subjects so far: {subjects}\n"
                                     f"{self.judge.log[-3000:]}")
            time.sleep(0.05)

    def reply_to(self, sender: str, marker: str) -> str:
        """The judge's reply to ``sender`` for the mail with subject ``marker``."""
        return [body for rcpt, subject, body in self.wait_for(f"Re: {marker}") if rcpt == sender][-1]

    def command(self, sender: str, body: str, marker: str) -> str:
        self.send(sender, body, subject=marker)
        return self.reply_to(sender, marker)

    # -- the game ----------------------------------------------------------------------
    def signon(self, power: str) -> str:
        return f"SIGNON {power[0]}g1 {self.password_of[power]}\n"

    def orders(self, power: str, lines: list[str], marker: str) -> str:
        return self.command(self.address_of[power], self.signon(power) + "\n".join(lines) + "\n", marker)

    def game(self) -> Game:
        store = Store(f"sqlite:///{self.workdir / 'judge.db'}")
        try:
            with store.unit_of_work() as session:
                game = session.execute(select(Game).where(Game.name == "g1")).scalar_one()
                session.expunge(game)
                return game
        finally:
            store.dispose()

    def records(self) -> list[PhaseRecord]:
        store = Store(f"sqlite:///{self.workdir / 'judge.db'}")
        try:
            with store.unit_of_work() as session:
                rows = session.execute(select(PhaseRecord).order_by(PhaseRecord.id)).scalars().all()
                for row in rows:
                    session.expunge(row)
                return rows
        finally:
            store.dispose()

    def wait_phase(self, phase: str, timeout: float = 30.0) -> Game:
        deadline = time.monotonic() + timeout
        while True:
            game = self.game()
            if game.phase == phase or (phase == "ended" and game.status == "ended"):
                return game
            assert time.monotonic() < deadline, f"game still in {game.phase} ({game.status}), wanted {phase}"
            time.sleep(0.1)

    def holds(self, marker: str, skip: tuple[str, ...] = ()) -> None:
        """Every power with units orders them to hold (taken from the stored position)."""
        game = self.game()
        position = position_from_json(variant_named("standard"), game.position)
        for power in sorted({u.power for u in position.units} - set(skip)):
            lines = [f"{u.kind.value} {u.location} H" for u in position.units if u.power == power]
            reply = self.orders(power, lines, f"{marker} {power}")
            assert "ERROR" not in reply, reply

    def past_deadline(self, extra: timedelta = timedelta(minutes=1)) -> None:
        deadline = self.game().deadline
        self.jump(deadline.replace(tzinfo=timezone.utc) + extra)


@pytest.fixture
def table(tmp_path, judge_runner, smtp_sink, monkeypatch):
    set_clock(tmp_path / "clock", START)
    env = {
        "JUDGE_OUTBOUND_RELAY_HOST": smtp_sink.host, "JUDGE_OUTBOUND_RELAY_PORT": str(smtp_sink.port),
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.1", "JUDGE_WORKER_POLL_SECONDS": "0.1",
        "JUDGE_SCHEDULER_TICK_SECONDS": "0.2",
    }
    judge = judge_runner.start(tmp_path, env, args=["--clock-file", str(tmp_path / "clock")])
    yield Table(tmp_path, judge, smtp_sink)
    assert judge.terminate() == 0


def test_a_whole_game_over_smtp(table):
    # Forming: the master creates the game, seven players join, the game starts.
    reply = table.command(MASTER, "CREATE g1 masterpw\nTIMING GRACE 1D\nRULE CIVIL_DISORDER\nFORM\n", "create")
    assert "ERROR" not in reply, reply
    for index, address in enumerate(PLAYERS):
        table.send(address, f"JOIN g1 pw{index}\n", subject=f"join {index}")
    for rcpt, subject, body in table.wait_for("game started, you play", 7):
        power = subject.rsplit(" ", 1)[1]
        table.address_of[power] = rcpt
        table.password_of[power] = "pw" + rcpt[len("player")]
    assert sorted(table.address_of) == sorted(S1901)

    # S1901M: an illegal order is refused with the rest kept; Italy is late.
    for power in S1901:
        if power != "ITALY":
            reply = table.orders(power, S1901[power], f"S1901 {power}")
            if power == "FRANCE":
                assert "ERROR line 2: A PAR - MUN" in reply and "accepted: A PAR - BUR" in reply
            else:
                assert "ERROR" not in reply, reply
    table.past_deadline()
    late = table.wait_for("S1901M: late notice", 8)
    assert "Orders are still missing from: ITALY." in late[0][2]
    assert table.game().phase == "S1901M"
    table.orders("ITALY", S1901["ITALY"], "S1901 ITALY")  # late: DELAY 0, processed at the next pass
    results = table.wait_for("g1 S1901M results", 8)
    body = results[0][2]
    assert "A WAR - GAL                  BOUNCED" in body and "F ANK - BLA                  BOUNCED" in body
    assert "A PAR - BUR                  moves" in body
    assert {rcpt for rcpt, _, _ in results} == set(PLAYERS) | {MASTER}

    # F1901M: Russia sends nothing; the grace period ends in civil disorder.
    table.wait_phase("F1901M")
    for power, lines in F1901.items():
        assert "ERROR" not in table.orders(power, lines, f"F1901 {power}")
    table.past_deadline()
    assert "RUSSIA" in table.wait_for("F1901M: late notice", 8)[0][2]
    assert table.game().phase == "F1901M"  # within the grace period
    table.past_deadline(timedelta(days=1, minutes=2))
    assert "RUSSIA is in civil disorder" in table.wait_for("F1901M: civil disorder", 8)[0][2]
    body = table.wait_for("g1 F1901M results", 8)[0][2]
    assert "RUSSIA:  (no orders received: civil disorder, units hold)" in body
    assert re.search(r"FRANCE\s+6 \(\+3\): BEL, BRE, MAR, PAR, POR, SPA  -> builds 3", body), body
    assert "Next phase: Winter 1901 adjustments (W1901A)" in body

    # W1901A: builds by five powers; Italy's and Russia's default at the deadline.
    table.wait_phase("W1901A")
    for power, lines in W1901.items():
        assert "ERROR" not in table.orders(power, lines, f"W1901 {power}")
    table.past_deadline()
    body = table.wait_for("g1 W1901A results", 8)[0][2]
    assert "A PAR B                      builds" in body
    assert "ITALY:  (no orders received: builds waived" in body and "RUSSIA:" not in body

    # S1902M, then the master rolls it back and it is played again.
    table.wait_phase("S1902M")
    before = table.game().position
    table.holds("S1902")
    table.wait_for("g1 S1902M results", 8)
    table.wait_phase("F1902M")
    reply = table.command(MASTER, MASTER_SIGNON + "ROLLBACK S1902M\n", "rollback")
    assert "rolled back from F1902M to S1902M" in reply, reply
    assert "rolled back to S1902M" in table.wait_for("g1: rolled back to S1902M", 8)[0][1]
    game = table.game()
    assert game.phase == "S1902M" and game.position == before
    assert [r.phase for r in table.records()] == ["S1901M", "F1901M", "W1901A"]
    table.holds("S1902 again")
    table.wait_for("g1 S1902M results", 16)
    table.wait_phase("F1902M")
    table.holds("F1902")
    table.wait_phase("W1902A")  # Italy may build again; it sends nothing
    table.past_deadline()
    table.wait_phase("S1903M")

    # A draw: every survivor votes; the last vote ends the game.
    for power in sorted(table.address_of):
        reply = table.command(table.address_of[power], table.signon(power) + "SET DRAW\n", f"draw {power}")
        assert "draw vote recorded" in reply, reply
    end = table.wait_for("g1: game over, draw (7-way)", 8)[0][2]
    assert table.game().status == "ended"
    assert re.search(r"start +1901 +1902", end), end
    assert re.search(r"FRANCE +3 +6 +6", end), end
    assert all(address in end for address in PLAYERS)  # the players are revealed
    assert [r.phase for r in table.records()][-3:] == ["S1902M", "F1902M", "W1902A"]
