"""What a newcomer met in a third trial (issue 29), each with the mail that met it and the
reply asserted: nothing a player sends is dropped under "All done."."""

from __future__ import annotations

from sqlalchemy import select

from judge.store.models_game import OrderSet, PressLog
from tests.judge.services.conftest import create_game, fill_game


def _orders_of(judge, power: str) -> list[str]:
    with judge.session() as session:
        rows = session.execute(select(OrderSet).where(OrderSet.power == power)).scalars().all()
        return [order for row in rows for order in row.orders]


# -- 1. a press without ENDPRESS ends where the sender's orders begin ---------------------
def test_press_without_endpress_ends_before_the_orders_which_are_entered(judge, started):
    england = started["ENGLAND"]
    out = judge.send(england.address, f"{england.signon}\nPRESS TO F\nLet us be friends. My moves this turn:\n"
                                      "F LON - ENG\nF EDI - NTH\nA LVP - YOR\n")
    body = out.reply.body
    assert "the PRESS at line 2 has no ENDPRESS, so its message was ended before line 4" in body
    assert "ok    line 4: F LON - ENG" in body and "ok    line 6: A LVP - YOR" in body
    assert sorted(_orders_of(judge, "ENGLAND")) == ["A LVP - YOR", "F EDI - NTH", "F LON - ENG"]
    [press] = out.of_kind("press")
    assert "Let us be friends." in press.body and "LON - ENG" not in press.body


def test_orders_inside_a_press_closed_by_endpress_stay_press(judge, started):
    england = started["ENGLAND"]
    out = judge.send(england.address, f"{england.signon}\nPRESS TO F\nA lot to talk about. I plan:\n"
                                      "F LON - ENG\nENDPRESS\n")
    assert "All done." in out.reply.body and "no ENDPRESS" not in out.reply.body
    assert "F LON - ENG" in out.of_kind("press")[0].body
    assert _orders_of(judge, "ENGLAND") == []


# -- 13. a refused press gives its text back ------------------------------------------------
def test_refused_grey_press_is_quoted_back(judge, started):
    france = started["FRANCE"]
    out = judge.send(france.address, f"{france.signon}\nPRESS TO G GREY\nBeware of Russia.\nSecond line.\nENDPRESS\n")
    body = out.reply.body
    assert "ERROR line 2: PRESS TO G GREY" in body
    assert "Your press of line 2, not sent:\nBeware of Russia.\nSecond line." in body
    with judge.session() as session:
        assert session.execute(select(PressLog)).first() is None
