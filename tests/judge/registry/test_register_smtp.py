"""The registry's mail flow over SMTP into the real listener of an in-process ``judge
serve`` (tests/judge/smtp_doors.py): REGISTER, the confirmation mailed to the address and
answered from it, changes, a second address, WHOIS, a claim of another's name, deletion."""

from __future__ import annotations

import re
from typing import Iterator

import pytest
from sqlalchemy import func, select

from judge.registry.identity import addresses_of, player_of
from judge.store.models_registry import AddressRequest, RegisteredAddress, RegisteredPlayer
from judge.store.models_game import Membership
from tests.judge.smtp_doors import SmtpJudge, wait_until

ANNA, ANNA_WORK, BOB = "anna@example.net", "anna@work.example", "bob@example.net"


@pytest.fixture
def judge(tmp_path) -> Iterator[SmtpJudge]:
    harness = SmtpJudge(tmp_path)
    yield harness
    harness.close()


def confirmations_to(judge: SmtpJudge, address: str) -> list[str]:
    """The tokens of the confirmation mails sent to ``address``, oldest first."""
    tokens = []
    for message, _ in judge.sent_files():
        subject = str(message["Subject"] or "")
        if address in str(message["To"]) and subject.startswith("REGISTER CONFIRM "):
            assert not message["In-Reply-To"] and subject.split()[-1] in message.get_body(("plain",)).get_content()
            tokens.append(subject.split()[-1])
    return tokens


def test_register_confirm_change_link_whois_claim_and_delete(judge: SmtpJudge) -> None:
    reply = judge.send(ANNA, "REGISTER Anna s3cret\nREALNAME Anna Karenina\nCOUNTRY Russia\nLEVEL expert\nEND\n"
                             "WHOIS Anna\n").body
    assert "s3cret" not in reply and "ok    line 1: REGISTER Anna ******" in reply
    assert f"a confirmation was mailed to {ANNA}" in reply
    assert "no player is registered as Anna" in reply  # not before the address is confirmed
    wait_until(lambda: confirmations_to(judge, ANNA), "the confirmation mail")
    [token] = confirmations_to(judge, ANNA)

    # The token alone is not enough: it links only when it comes back from the address.
    stolen = judge.send(BOB, f"REGISTER CONFIRM {token}\n").body
    assert "answered from the address it was mailed to" in stolen and token not in stolen
    with judge.store.unit_of_work() as session:
        assert player_of(session, ANNA) is None and player_of(session, BOB) is None
    assert f"{ANNA} is now linked to player Anna" in judge.send(ANNA, f"REGISTER CONFIRM {token}\n").body
    assert f"{ANNA} is already linked" in judge.send(ANNA, f"REGISTER CONFIRM {token}\n").body  # redelivered

    # Others see the name and the default public part only; Anna sees all of hers.
    seen = judge.send(BOB, "WHOIS anna\n").body
    assert "Player: Anna" in seen and "Karenina" not in seen and "Russia" not in seen and ANNA not in seen
    own = judge.send(ANNA, "WHOIS Anna\n").body
    assert "Real name: Anna Karenina" in own and f"Addresses: {ANNA}" in own
    assert "no public registration" in judge.send(BOB, f"WHOIS {ANNA}\n").body
    assert "no public registration" in judge.send(BOB, "WHOIS nobody@example.net\n").body  # the same words

    # A claim of her name with another password is refused, and changes nothing.
    claim = judge.send(BOB, "REGISTER anna guess\nPUBLIC addresses\n").body
    assert "registered to someone else" in claim
    # Changes, a second address, what is public.
    change = judge.send(ANNA, "REGISTER Anna s3cret\nPUBLIC realname addresses\nCOUNTRY\n"
                              f"ADDRESS {ANNA_WORK}\nEND\n").body
    assert "public set" in change and "country erased" in change and f"mailed to {ANNA_WORK}" in change
    wait_until(lambda: confirmations_to(judge, ANNA_WORK), "the second confirmation")
    [work_token] = confirmations_to(judge, ANNA_WORK)
    assert "is now linked to player Anna" in judge.send(ANNA_WORK, f"REGISTER CONFIRM {work_token}\n").body
    seen = judge.send(BOB, f"WHOIS {ANNA_WORK}\n").body
    assert "Real name: Anna Karenina" in seen and f"Addresses: {ANNA}, {ANNA_WORK}" in seen and "Russia" not in seen
    # An address belongs to one player: Bob registering from Anna's address is refused.
    assert "linked to player Anna already" in judge.send(ANNA_WORK, "REGISTER Bob pw\n").body

    # Deletion: every personal datum gone, the name kept for the games played under it.
    assert "ERROR" not in judge.send("gm@example.net", "CREATE g1 masterpw\nFORM\n").body
    assert "1 of 7 places taken" in judge.send(f"Anna K. <{ANNA}>", "JOIN g1 pw\n", envelope=ANNA).body
    gone = judge.send(ANNA_WORK, "REGISTER DELETE anna s3cret\n").body
    assert "registration of Anna deleted" in gone and "2 linked addresses erased" in gone
    with judge.store.unit_of_work() as session:
        row = session.scalars(select(RegisteredPlayer)).one()
        assert (row.name, row.real_name, row.country, row.zone, row.level, row.password_hash, row.public) == \
               ("Anna", None, None, None, None, "", "")
        assert session.scalar(select(func.count()).select_from(RegisteredAddress)) == 0
        assert session.scalar(select(func.count()).select_from(AddressRequest)) == 0
        assert addresses_of(session, "Anna") == ()
        assert session.scalar(select(Membership.name).where(Membership.address == ANNA)) == "Anna"
    assert "Anna deleted the registration" in judge.send(BOB, "WHOIS Anna\n").body
    assert "deleted the registration" in judge.send(BOB, "REGISTER anna other\n").body  # nobody takes the name
    assert judge.all_processed()


def test_hostile_fields_are_quoted_back_bounded(judge: SmtpJudge) -> None:
    long_name = "R" * 400
    reply = judge.send(ANNA, f"REGISTER Anna pw\nREALNAME {long_name}\nEND\n").body
    assert "is too long: at most 64 characters after REALNAME" in reply and long_name not in reply
    assert re.search(r"R{60,79}…", reply)
    hostile = judge.send(ANNA, "REGISTER Anna pw\nCOUNTRY Evil\u202eland\nEND\n").body
    assert "control or formatting characters" in hostile and "\u202e" not in hostile and "\\u202e" in hostile
    assert "is not a player name" in judge.send(ANNA, "REGISTER <script>alert(1)</script> pw\n").body
    assert "is an address, not a player name" in judge.send(ANNA, "REGISTER bob@example.net pw\n").body
    assert "not a level" not in (level := judge.send(ANNA, "REGISTER Anna pw\nLEVEL godlike\n").body)
    assert "LEVEL novice|intermediate|advanced|expert" in level
    with judge.store.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(RegisteredPlayer)) == 0
