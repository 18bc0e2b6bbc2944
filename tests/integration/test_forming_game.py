"""A whole forming game through the running daemon: real SMTP in, a real IMAP mailbox
(Dovecot) polled by the judge, replies read back as .eml files from the outbox folder.

CREATE, seven JOINs (some over SMTP, some delivered into the judge's mailbox with
dovecot-lda), orders from every power with some errors, press allowed and refused,
LIST and SUMMARY.
"""

from __future__ import annotations

import email
import smtplib
import time
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path

import pytest

pytestmark = [pytest.mark.dovecot, pytest.mark.slow]

JUDGE = "judge@example.org"
MASTER = "gm@example.net"

# Orders for every power; one wrong line for some of them (each quoted back as an error).
ORDERS = {
    "AUSTRIA": ["A VIE - GAL", "A BUD - SER", "F TRI - ALB"],
    "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR", "A LVP - MOS"],
    "FRANCE": ["A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - MAO"],
    "GERMANY": ["A BER - KIE", "F KIE - DEN", "A MUN - RUH", "F KIE - XYZ"],
    "ITALY": ["A VEN H", "A ROM - APU", "F NAP - ION"],
    "RUSSIA": ["A MOS - UKR", "A WAR - GAL", "F SEV - BLA", "F STP/SC - BOT"],
    "TURKEY": ["F ANK - BLA", "A CON - BUL", "A SMY - ARM", "A SMY - SEV - MOS"],
}
WRONG = {"ENGLAND": "A LVP - MOS", "GERMANY": "F KIE - XYZ", "TURKEY": "A SMY - SEV - MOS"}


def mail(sender: str, body: str, subject: str = "diplomacy") -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = JUDGE
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(domain="example.net")
    message.set_content(body)
    return message


class Outbox:
    """The judge's Maildir-style outbox: every .eml it wrote, parsed."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory / "new"

    def messages(self) -> list[EmailMessage]:
        if not self.directory.is_dir():
            return []
        found = []
        for path in sorted(self.directory.glob("*.eml")):
            found.append(email.message_from_bytes(path.read_bytes(), policy=default_policy))
        return found

    def wait_for(self, predicate, count: int = 1, timeout: float = 20.0) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        while True:
            matching = [m for m in self.messages() if predicate(m)]
            if len(matching) >= count:
                return matching
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} mail(s), found {len(matching)} in {self.directory}")
            time.sleep(0.05)

    def reply_to(self, sent: EmailMessage, timeout: float = 20.0) -> str:
        [reply] = self.wait_for(lambda m: m["In-Reply-To"] == sent["Message-ID"], timeout=timeout)
        return reply.get_body(("plain",)).get_content()


def text(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content()


@pytest.fixture
def running_judge(tmp_path, judge_runner, dovecot_server, imap_account):
    judge = judge_runner.start(tmp_path, {
        "JUDGE_JUDGE_ADDRESS": JUDGE,
        "JUDGE_JUDGE_DOMAIN": "example.org",
        "JUDGE_IMAP_HOST": imap_account.host,
        "JUDGE_IMAP_PORT": str(imap_account.port),
        "JUDGE_IMAP_USERNAME": imap_account.username,
        "JUDGE_IMAP_PASSWORD": imap_account.password,
        "JUDGE_IMAP_POLL_SECONDS": "0.3",
        "JUDGE_WORKER_POLL_SECONDS": "0.2",
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.2",
        "JUDGE_SCHEDULER_TICK_SECONDS": "3600", "JUDGE_SCHEDULER_TOUCHED_SECONDS": "3600",
    })
    yield judge, Outbox(tmp_path / "outbox"), dovecot_server, imap_account
    assert judge.terminate() == 0, judge.log


def test_a_forming_game_over_smtp_and_imap(running_judge):
    judge, outbox, dovecot, account = running_judge

    def over_smtp(message: EmailMessage) -> str:
        with smtplib.SMTP("127.0.0.1", judge.smtp_port, timeout=10) as client:
            client.send_message(message, from_addr=str(message["From"]), to_addrs=[JUDGE])
        return outbox.reply_to(message)

    def over_imap(message: EmailMessage) -> str:
        dovecot.deliver(account, message.as_bytes(), sender=str(message["From"]))
        return outbox.reply_to(message)

    created = over_smtp(mail(MASTER, "CREATE fg1 masterpw\nRULE NO_LATE_RECEIVE\nTIMING MOVE 2D\n"
                                     "DESC integration game\nFORM\n"))
    assert "game 'fg1' created with you as its master" in created
    assert "game 'fg1' is open" in created and "ERROR" not in created

    players = [f"player{i}@example.net" for i in range(7)]
    for index, address in enumerate(players):
        send = over_imap if index % 2 else over_smtp
        reply = send(mail(address, f"JOIN fg1 secret{index}\n"))
        assert f"{index + 1} of 7 places taken" in reply
        assert f"secret{index}" not in reply
    assert "game 'fg1' is full and has started" in reply

    starts = outbox.wait_for(lambda m: "game started, you play" in str(m["Subject"]), count=7)
    power_of = {str(m["To"]): str(m["Subject"]).rsplit(" ", 1)[1] for m in starts}
    assert sorted(power_of.values()) == sorted(ORDERS)
    [master_start] = outbox.wait_for(lambda m: str(m["To"]) == MASTER and "game started" in str(m["Subject"]))
    assert "Deadline for S1901M" in text(master_start)
    assert master_start["List-Id"] == "Diplomacy game fg1 <fg1.example.org>"
    password_of = {address: f"secret{index}" for index, address in enumerate(players)}

    # Orders from every power, some with an error; nothing else in those mails is lost.
    for index, (address, power) in enumerate(sorted(power_of.items())):
        body = f"SIGNON {power[0]}fg1 {password_of[address]}\n" + "\n".join(ORDERS[power]) + "\n"
        send = over_imap if index % 2 else over_smtp
        reply = send(mail(address, body))
        expected = [line for line in ORDERS[power] if line != WRONG.get(power)]
        for line in expected:
            assert f"accepted: {line}" in reply, reply
        assert "Your orders for S1901M:" in reply and "Deadline:" in reply
        if power in WRONG:
            assert f"ERROR line {ORDERS[power].index(WRONG[power]) + 2}: {WRONG[power]}" in reply
            assert "1 line could not be accepted" in reply
        else:
            assert "All done." in reply

    # Press: a private message delivered, grey press refused (no RULE GREY_PRESS).
    address_of = {power: address for address, power in power_of.items()}
    france = address_of["FRANCE"]
    sent = mail(france, f"SIGNON france@fg1 {password_of[france]}\nPRESS TO GERMANY\nBurgundy is mine.\nENDPRESS\n"
                        "PRESS TO E GREY\nanonymous hello\nENDPRESS\n")
    reply = over_smtp(sent)
    assert "press sent to GERMANY" in reply
    assert "grey press is not allowed in this game" in reply
    [press] = outbox.wait_for(lambda m: str(m["Subject"]) == "fg1: press from FRANCE")
    assert str(press["To"]) == address_of["GERMANY"]
    assert "Burgundy is mine." in text(press) and france not in press.as_string()
    assert not [m for m in outbox.messages() if "anonymous hello" in text(m) and m["In-Reply-To"] is None]

    # LIST and SUMMARY from someone outside the game.
    listing = over_imap(mail("curious@example.net", "LIST\nSUMMARY fg1\n"))
    assert "fg1" in listing and "active S1901M, 7/7 players" in listing
    assert "RUSSIA   units: A MOS, F SEV, F STP/SC, A WAR" in listing
    for address in players:
        assert address not in listing
