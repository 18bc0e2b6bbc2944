"""A judge with its own key, a sealed game of seven players with real GnuPG keys, and mail
with attachments, driven through the real worker and commands (SQLite file, real gpg).

    game = SealedGame.start(judge, players)       # RULE SEALED, seven players, keys set
    game.commit("FRANCE", b"A PAR - BUR\n")        # sign with France's own key, COMMIT
    game.reveal("FRANCE", b"A PAR - BUR\n")        # REVEAL with the file attached
"""

from __future__ import annotations

import email
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path
from typing import Sequence

from sqlalchemy import select

from judge.config import JudgeSettings
from judge.store.models_game import Membership
from tests.fixtures.gpg import PlayerKey
from tests.judge.clocked_judge import ClockedJudge, MailOutcome
from tests.judge.storage import migrated_store, outbox_after

START = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)  # a Monday
MASTER = "gm@example.net"


@dataclass(frozen=True)
class Sent:
    recipients: tuple[str, ...]
    subject: str
    body: str
    kind: str
    raw: bytes
    message: EmailMessage

    def attachments(self) -> dict[str, bytes]:
        return {part.get_filename(): part.get_payload(decode=True) for part in self.message.walk()
                if part.get_filename() and part.get_filename() != "signature.asc"}


Outcome = MailOutcome[Sent]


def text_of(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    return body.get_content()


class SealedJudge(ClockedJudge):
    def __init__(self, directory: Path, gnupg_home: Path, now: datetime = START) -> None:
        settings = JudgeSettings(address="judge@example.org", domain="example.org", name="Test Judge",
                                 data_dir=str(directory), gnupg_home=str(gnupg_home))
        super().__init__(migrated_store(directory), settings, now)

    def outbox_since(self, last: int) -> Outcome:
        return Outcome(tuple(Sent(q.recipients, str(q.message["Subject"]), text_of(q.message), q.kind, q.raw, q.message)
                             for q in outbox_after(self.store, last)))

    def send_message(self, message: EmailMessage) -> Outcome:
        if "Message-ID" not in message:
            message["Message-ID"] = make_msgid(domain="example.net")
        raw = message.as_bytes(policy=default_policy.clone(linesep="\r\n"))
        last = self.deliver(raw, email.utils.parseaddr(str(message["From"]))[1])
        return self.outbox_since(last)

    def send(self, sender: str, body: str, *, attachments: Sequence[tuple[str, str, bytes]] = (),
             subject: str = "commands") -> Outcome:
        """``attachments``: (filename, content type, bytes); a text/plain type without a
        charset parameter stays without one."""
        message = EmailMessage()
        message["From"] = sender
        message["To"] = self.settings.address
        message["Subject"] = subject
        message.set_content(body)
        for filename, content_type, data in attachments:
            maintype, subtype = content_type.split("/")
            message.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
        return self.send_message(message)


@dataclass
class SealedGame:
    judge: SealedJudge
    keys: dict[str, PlayerKey]  # power -> the player's key
    passwords: dict[str, str] = field(default_factory=dict)
    name: str = "g1"

    @classmethod
    def start(cls, judge: SealedJudge, players: Sequence[PlayerKey], *, rules: Sequence[str] = ("SEALED",),
              timing: str = "TIMING MOVE 2D RETREAT 1D ADJUST 1D REVEAL 1D", name: str = "g1") -> "SealedGame":
        status = [f"RULE {rule}" for rule in rules] + [timing]
        reply = judge.send(MASTER, "\n".join([f"CREATE {name} masterpw", *status, "FORM"]) + "\n").reply
        assert "ERROR" not in reply.body, reply.body
        for index, player in enumerate(players):
            outcome = judge.send(player.email, "SET KEY\n" + player.public_key)
            assert "ERROR" not in outcome.reply.body, outcome.reply.body
        for index, player in enumerate(players):
            judge.send(player.email, f"JOIN {name} pw{index}\n")
        keys: dict[str, PlayerKey] = {}
        passwords: dict[str, str] = {}
        by_email = {p.email: (i, p) for i, p in enumerate(players)}
        with judge.session() as session:
            rows = session.execute(select(Membership).where(Membership.role == "player")).scalars().all()
            for row in rows:
                index, player = by_email[row.address]
                keys[row.power] = player
                passwords[row.power] = f"pw{index}"
        return cls(judge, keys, passwords, name)

    def signon(self, power: str) -> str:
        return f"SIGNON {power.lower()}@{self.name} {self.passwords[power]}\n"

    def sign(self, power: str, data: bytes, *, signer: str | None = None) -> bytes:
        """A detached armored signature over ``data`` by ``signer``'s key (default: the power's)."""
        key = self.keys[signer or power]
        with key.keyring() as ring:
            return ring.sign_detached(data, key.fingerprint)

    def commit(self, power: str, orders: bytes, *, signer: str | None = None, sender: str | None = None) -> Outcome:
        signature = self.sign(power, orders, signer=signer)
        return self.judge.send(sender or self.keys[power].email, self.signon(power) + "COMMIT\n",
                               attachments=[("orders.txt.asc", "application/pgp-signature", signature)])

    def reveal(self, power: str, orders: bytes, *, content_type: str = "text/plain") -> Outcome:
        return self.judge.send(self.keys[power].email, self.signon(power) + "REVEAL\n",
                               attachments=[("orders.txt", content_type, orders)])
