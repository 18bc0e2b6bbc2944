"""Every mail of a game, as the running judge writes it, passes OpenDKIM with both of its
signatures, and fails once changed: the daemon in-process, mail in over real SMTP, the
keys the judge made at its first start read back from its database."""

from __future__ import annotations

import smtplib
import time
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from judge.config import load_settings
from judge.mailauth.keystore import recorded_keys
from judge.serve import Daemon, open_store
from tests.fixtures.ports import free_port
from tests.judge.mailauth.dkim_checks import dkimpy_verdicts, only_signature, opendkim_passes

JUDGE = "judge@example.org"
ORDERS = {
    "AUSTRIA": "A VIE - GAL\nA BUD - SER\nF TRI - ALB", "ENGLAND": "F LON - NTH\nF EDI - NWG\nA LVP - YOR",
    "FRANCE": "A PAR - BUR\nA MAR S A PAR - BUR\nF BRE - MAO", "GERMANY": "A BER - KIE\nF KIE - DEN\nA MUN - RUH",
    "ITALY": "A VEN H\nA ROM - APU\nF NAP - ION", "RUSSIA": "A MOS - UKR\nA WAR - GAL\nF SEV - BLA\nF STP/SC - BOT",
    "TURKEY": "F ANK - BLA\nA CON - BUL\nA SMY - ARM",
}


@pytest.fixture
def daemon(tmp_path):
    settings = load_settings(None, environ={
        "JUDGE_JUDGE_DATA_DIR": str(tmp_path), "JUDGE_JUDGE_ADDRESS": JUDGE, "JUDGE_JUDGE_DOMAIN": "example.org",
        "JUDGE_SMTP_PORT": str(free_port()), "JUDGE_WORKER_POLL_SECONDS": "0.1",
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.1", "JUDGE_SCHEDULER_TICK_SECONDS": "3600", "JUDGE_SCHEDULER_TOUCHED_SECONDS": "3600", "JUDGE_DAIDE_HOST": ""})
    store = open_store(settings, initialise_empty=True)
    daemon = Daemon(settings, store)
    daemon.start()
    yield daemon
    daemon.stop()
    store.dispose()


def send(daemon: Daemon, sender: str, body: str) -> None:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, JUDGE, "diplomacy"
    message["Message-ID"] = make_msgid(domain="example.net")
    message.set_content(body)
    with smtplib.SMTP("127.0.0.1", daemon.settings.smtp.port, timeout=10) as client:
        client.send_message(message, from_addr=sender, to_addrs=[JUDGE])


def files(daemon: Daemon, at_least: int, timeout: float = 30.0) -> list[bytes]:
    folder = daemon.settings.outbox_path / "new"
    deadline = time.monotonic() + timeout
    while True:
        found = sorted(folder.glob("*.eml")) if folder.is_dir() else []
        if len(found) >= at_least:
            return [p.read_bytes() for p in found]
        assert time.monotonic() < deadline, f"{len(found)} of {at_least} mails written"
        time.sleep(0.05)


def test_every_mail_of_a_game_passes_opendkim_and_fails_it_when_changed(daemon, tmp_path):
    send(daemon, "gm@example.net", "CREATE dk1 masterpw\nRULE NO_SETTLE\nFORM\n")
    files(daemon, 1)
    for i in range(7):
        send(daemon, f"p{i}@example.net", f"JOIN dk1 secret{i}\n")
    started = files(daemon, 1 + 7 + 8)  # the replies; each player's and the master's start notice
    power_of = {}
    for raw in started:
        head = raw.split(b"\n\n")[0].decode()
        if "game started, you play" in head:
            to = next(line[4:] for line in head.splitlines() if line.startswith("To: "))
            power_of[to] = head.split("game started, you play ")[1].split("\n")[0].strip()
    assert len(power_of) == 7
    for address, power in power_of.items():
        password = f"secret{int(address[1])}"
        send(daemon, address, f"SIGNON {power[0]}dk1 {password}\n{ORDERS[power]}\n")
    every = files(daemon, len(started) + 7 + 8)  # the results to every player and the master
    assert sum(b"\nSubject: dk1 S1901M results" in raw for raw in every) == 8  # with the map as pictures

    keys = tuple(recorded_keys(daemon.store).values())
    assert sorted(k.algorithm for k in keys) == ["ed25519", "rsa"]
    for raw in every:
        assert raw.startswith(b"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.org;")
        assert dkimpy_verdicts(raw, "example.org", keys) == [True, True]
        changed = raw.replace(b"\n\n", b"\n\nX", 1)  # one character more in the body
        for algorithm in ("rsa-sha256", "ed25519-sha256"):
            assert opendkim_passes(only_signature(raw, algorithm), "example.org", keys, tmp_path), raw[:400]
            assert not opendkim_passes(only_signature(changed, algorithm), "example.org", keys, tmp_path)
