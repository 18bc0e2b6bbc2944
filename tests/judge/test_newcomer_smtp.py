"""Issue 29 over SMTP into the real listener of an in-process ``judge serve``
(tests/judge/smtp_doors.py): a press without ENDPRESS does not swallow the orders after it,
and an ejected player's next mail is told he was ejected."""

from __future__ import annotations

from typing import Iterator

import pytest
from sqlalchemy import select

from judge.store.models_game import Membership, OrderSet
from tests.judge.smtp_doors import SmtpJudge, wait_until
from tests.judge.test_mail_doors import MASTER, start_game


@pytest.fixture
def judge(tmp_path) -> Iterator[SmtpJudge]:
    harness = SmtpJudge(tmp_path)
    yield harness
    harness.close()


def test_a_press_without_endpress_and_an_ejected_player_over_smtp(judge: SmtpJudge) -> None:
    seats = start_game(judge)
    address, password = seats["ENGLAND"]
    body = judge.send(address, f"SIGNON england@g1 {password}\nPRESS TO F\nLet us be friends. My moves:\n"
                               "F LON - ENG\nF EDI - NTH\nA LVP - YOR\n").body
    assert "the PRESS at line 2 has no ENDPRESS, so its message was ended before line 4" in body
    assert "ok    line 6: A LVP - YOR" in body and body.startswith("All done.\nNote: the PRESS")
    with judge.store.unit_of_work() as session:
        [stored] = session.execute(select(OrderSet).where(OrderSet.power == "ENGLAND")).scalars().all()
        assert sorted(stored.orders) == ["A LVP - YOR", "F EDI - NTH", "F LON - ENG"]

    germany, germany_password = seats["GERMANY"]
    assert "told so" in judge.send(MASTER, "SIGNON master@g1 masterpw\nEJECT GERMANY\n").body
    notice = "removed you as the player of GERMANY (EJECT)"
    wait_until(lambda: any(notice in body for body in _mail_to(judge, germany)), "the ejected player's notice")
    later = judge.send(germany, f"SIGNON germany@g1 {germany_password}\nA BER H\n").body
    assert "you no longer play GERMANY in game 'g1': the master removed you (EJECT)" in later
    with judge.store.unit_of_work() as session:
        assert session.execute(select(Membership.status).where(Membership.address == germany)).scalar_one() == "ejected"


def _mail_to(judge: SmtpJudge, address: str) -> list[str]:
    """The bodies of the mails sent to ``address`` that are not replies to a mail."""
    return [str(message.get_body(("plain",)).get_content()) for message, _ in judge.sent_files()
            if message["To"] and address in str(message["To"]) and not message["In-Reply-To"]]
