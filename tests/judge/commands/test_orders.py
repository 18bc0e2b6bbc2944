"""Order lines and CLEAR: checked by the engine, stored canonical, replaced unit by unit."""

from __future__ import annotations


from sqlalchemy import select

from judge.store.models_game import Game, OrderSet
from tests.judge.commands.conftest import create_game


def stored(judge, power: str) -> list[str]:
    with judge.session() as session:
        row = session.execute(select(OrderSet).where(OrderSet.power == power)).scalar_one_or_none()
        return list(row.orders) if row else []


def test_orders_are_stored_canonical_and_echoed_in_full(judge, started):
    france = started["FRANCE"]
    reply = judge.send(france.address, f"{france.signon}\narmy paris -> burgundy\nf brest - mid atlantic\n").reply
    assert stored(judge, "FRANCE") == ["A PAR - BUR", "F BRE - MAO"]
    assert "Your orders for S1901M:\n  A PAR - BUR\n  F BRE - MAO\n" in reply.body
    assert "Units without orders: A MAR" in reply.body
    assert "Deadline: Sun 8 Mar 2026 12:00 UTC (6 days left)" in reply.body


def test_a_later_mail_replaces_only_the_units_it_names(judge, started):
    france = started["FRANCE"]
    judge.send(france.address, f"{france.signon}\nA PAR - BUR\nF BRE - MAO\nA MAR H\n")
    reply = judge.send(france.address, f"{france.signon}\nA PAR - PIC\nA PAR - GAS\n").reply
    assert stored(judge, "FRANCE") == ["A MAR H", "A PAR - GAS", "F BRE - MAO"]
    assert "accepted: A PAR - PIC, replaced by line 3" in reply.body
    assert "Units without orders" not in reply.body


def test_a_misspelled_province_gets_a_suggestion(judge, started):
    england = started["ENGLAND"]
    body = judge.send(england.address, f"{england.signon}\nA LVP - YOK\n").reply.body
    assert "ERROR line 2: A LVP - YOK" in body and "'YOK' is not a province of the standard map (did you mean YOR?)" in body


def test_illegal_and_unreadable_orders_quote_the_line_and_keep_the_rest(judge, started):
    france = started["FRANCE"]
    reply = judge.send(france.address, f"{france.signon}\nA PAR - MUN\nA MUN - RUH\nA PAR - BUR\nF XYZ H\n").reply
    body = reply.body
    assert "ERROR line 2: A PAR - MUN\n      A PAR is not adjacent to MUN; write one order per unit" in body
    assert "ERROR line 3: A MUN - RUH\n      the unit in MUN belongs to GERMANY" in body
    assert "ERROR line 5: F XYZ H" in body and "your units: F BRE, A MAR, A PAR" in body
    assert "3 lines could not be accepted" in body
    assert stored(judge, "FRANCE") == ["A PAR - BUR"]


def test_clear_drops_every_order_but_not_after_the_deadline(judge, started):
    france = started["FRANCE"]
    judge.send(france.address, f"{france.signon}\nA PAR - BUR\n")
    reply = judge.send(france.address, f"{france.signon}\nCLEAR\nF BRE - PIC\n").reply
    assert "all orders of FRANCE for S1901M cleared" in reply.body
    assert stored(judge, "FRANCE") == ["F BRE - PIC"]
    judge.advance(days=6)
    late = judge.send(france.address, f"{france.signon}\nCLEAR\n").reply.body
    assert "the deadline has passed: an empty order list cannot be submitted" in late
    assert stored(judge, "FRANCE") == ["F BRE - PIC"]


def test_orders_need_a_started_game_and_a_player(judge, started):
    create_game(judge, name="g2")
    joined = judge.send("someone@example.net", "JOIN g2 pw\nA PAR - BUR\n").reply.body
    assert "orders are taken once it has started" in joined
    master = judge.send("gm@example.net", "SIGNON m@g1 masterpw\nA PAR - BUR\n").reply.body
    assert "only a player can do this; you are signed on as MASTER" in master


def test_orders_after_a_failed_signon_are_not_processed(judge, started):
    france = started["FRANCE"]
    reply = judge.send(france.address, "SIGNON Fg1 wrongpw\nA PAR - BUR\nF BRE - MAO\n").reply.body
    assert "wrong password for FRANCE in game 'g1'" in reply
    assert "ERROR line 2: A PAR - BUR\n      not processed: the sign-on on line 1" in reply
    assert "ERROR line 3: F BRE - MAO" in reply
    assert "wrongpw" not in reply
    assert stored(judge, "FRANCE") == []


def test_last_orders_set_the_settle_delay_and_due_time(judge, started):
    orders = {
        "AUSTRIA": "A BUD H\nF TRI H\nA VIE H", "ENGLAND": "F EDI H\nF LON H\nA LVP H",
        "FRANCE": "F BRE H\nA MAR H\nA PAR H", "GERMANY": "A BER H\nF KIE H\nA MUN H",
        "ITALY": "F NAP H\nA ROM H\nA VEN H", "RUSSIA": "A MOS H\nF SEV H\nF STP H\nA WAR H",
        "TURKEY": "F ANK H\nA CON H\nA SMY H",
    }
    for power, text in orders.items():
        seat = started[power]
        judge.advance(minutes=1)
        assert "ERROR" not in judge.send(seat.address, f"{seat.signon}\n{text}\n").reply.body
        with judge.session() as session:
            game = session.execute(select(Game)).scalar_one()
            assert game.delay == (1 if power == "TURKEY" else 0)


def test_too_many_builds_keep_the_ones_that_fit_and_quote_the_rest(judge):
    """Issue 17.1: England with one build sends two; the first stands, the second is quoted
    with its reason, and nothing vanishes."""
    # two centres, one unit (outside them): one build, in London or Edinburgh
    seats = _winter_1901(judge, "ENGLAND", units=["A YOR"], centres=["EDI", "LON"])
    england = seats["ENGLAND"]
    body = judge.send(england.address, f"{england.signon}\nBUILD F LON\nBUILD F EDI\n").reply.body
    assert "ok    line 2: BUILD F LON" in body
    assert "ERROR line 3: BUILD F EDI" in body and "may give 1 build (a WAIVE counts as one)" in body
    assert "everything else was done" in body
    assert "F LON B" in body.split("Your orders for W1901A:")[1]
    assert "(none yet)" not in body


def test_a_bad_build_is_answered_with_the_players_own_centres(judge):
    """Issue 17.5: Italy's bad build gets Italy's example, not France's A PAR B."""
    seats = _winter_1901(judge, "ITALY", units=["A VEN"])  # Naples and Rome free: two builds
    italy = seats["ITALY"]
    body = judge.send(italy.address, f"{italy.signon}\nBUILD A PAR\n").reply.body
    assert "build up to 2 units in your free home centres (NAP, ROM), e.g. A NAP B, or WAIVE" in body
    assert "A PAR B" not in body


def _winter_1901(judge, power: str, *, units: list[str], centres: list[str] | None = None):
    """A started game moved to W1901A with ``power``'s units (and centres) as given; the seats."""
    from sqlalchemy import select

    from judge.store.models_game import Game
    from tests.judge.commands.conftest import fill_game

    create_game(judge)
    seats = fill_game(judge)
    with judge.session() as session:
        game = session.execute(select(Game)).scalar_one()
        position = dict(game.position)
        position["phase"] = "W1901A"
        position["units"] = {**position["units"], power: units}
        if centres is not None:
            position["centers"] = {**position["centers"], power: centres}
        game.position, game.phase = position, "W1901A"
    return seats
