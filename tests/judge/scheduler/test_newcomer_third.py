"""What a newcomer met in a third trial (issue 29), each with the mail that met it and the
reply asserted: nothing a player sends is dropped under "All done."."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from adjudicator.jsonio import position_to_json
from judge.store.models_game import Game, OrderSet, PressLog
from judge.store.queries import as_utc, position_of
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.scheduler.driver import TurnHarness
from tests.judge.commands.conftest import Seat


@pytest.fixture
def started(judge: TurnHarness) -> dict[str, Seat]:
    create_game(judge)
    return fill_game(judge)


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


# -- 3. incomplete builds and removals say what is owed and what the deadline does -------------
def _winter(judge: TurnHarness) -> None:
    """W1901A: Austria keeps only VIE (2 removals); Germany owns 5 centres with 3 units (2 builds)."""
    with judge.session() as session:
        game = session.execute(select(Game)).scalar_one()
        doc = position_to_json(position_of(game))
        doc["phase"] = "W1901A"
        doc["centers"]["AUSTRIA"] = ["VIE"]
        doc["centers"]["ITALY"] += ["TRI"]
        doc["centers"]["RUSSIA"] += ["BUD"]
        doc["centers"]["GERMANY"] = ["BER", "DEN", "HOL", "KIE", "MUN"]
        doc["units"]["GERMANY"] = ["F DEN", "A RUH", "A SIL"]
        game.position, game.phase = doc, "W1901A"


def test_removals_in_part_say_what_is_owed_and_which_unit_the_judge_removes(judge, started):
    _winter(judge)
    austria = started["AUSTRIA"]
    body = judge.orders(austria, ["REMOVE F TRI"]).reply.body
    assert body.startswith("All done, but your orders are not complete yet (see below).")
    assert ("Still owed: 1 of 2 removals; REMOVE the unit you choose now, or at the deadline the "
            "judge removes A BUD (civil disorder: the units farthest from your home centres first).") in body
    germany = started["GERMANY"]
    body = judge.orders(germany, ["BUILD A BER"]).reply.body
    assert "Still owed: 1 of 2 builds; BUILD or WAIVE it now, or at the deadline it is waived." in body
    # What the reply promised is what the deadline does.
    judge.now = as_utc(judge.game()["deadline"]) + timedelta(minutes=1)
    judge.tick()
    units = judge.game()["position"]["units"]
    assert units["AUSTRIA"] == ["A VIE"] and sorted(units["GERMANY"]) == ["A BER", "A RUH", "A SIL", "F DEN"]


def test_partial_movement_orders_are_said_to_count_as_late(judge, started):
    body = judge.orders(started["FRANCE"], ["A PAR - BUR"]).reply.body
    assert body.startswith("All done, but your orders are not complete yet (see below).")
    assert "Units without orders: F BRE, A MAR" in body
    assert "at the\ndeadline you count as late (write e.g. F BRE H for a unit meant to hold)" in body
    body = judge.orders(started["FRANCE"], ["A MAR H", "F BRE H"]).reply.body
    assert body.startswith("All done.\n") and "count as late" not in body


# -- 4. and 13: HELP shows every kind of order, and both SEAT forms ------------------------------
def test_help_shows_retreat_build_disband_and_waive_and_seat_bot(judge):
    body = judge.send("new@example.net", "HELP\n").reply.body
    for form in ("A PAR R BUR", "A PAR D", "BUILD A PAR", "WAIVE", "REMOVE F BRE", "SEAT power BOT", "SEAT BOT "):
        assert form in body, form
    assert "without ENDPRESS the message ends before its first" in body  # item 1, where players read


# -- 5. a blank line ends CREATE's status lines ----------------------------------------------------
def test_a_blank_line_ends_the_status_lines_after_create(judge):
    body = judge.send("gm2@example.net", "CREATE g2 masterpw\nRULE GREY_PRESS\n\nLIST\n").reply.body
    assert "ERROR" not in body, body
    assert "mailing list" not in body and "g2" in body.split("line 4: LIST", 1)[1]
    with judge.session() as session:
        game = session.execute(select(Game).where(Game.name == "g2")).scalar_one()
        assert game.rules == ["GREY_PRESS"] and not game.list_address


# -- 2. an ejected player is told at EJECT, and later mail from him is told why ---------------
def test_an_ejected_player_is_told_and_his_next_mail_says_he_was_ejected(judge, started):
    germany = started["GERMANY"]
    out = judge.send("gm@example.net", "SIGNON master@g1 masterpw\nEJECT GERMANY\n")
    assert "the player of GERMANY was removed and told so" in out.reply.body
    [told] = [mail for mail in out.of_kind("dismissal") if mail.address == germany.address]
    assert "removed you as the player of GERMANY (EJECT)" in told.body
    body = judge.orders(germany, ["A BER H"]).reply.body
    assert "you no longer play GERMANY in game 'g1': the master removed you (EJECT)" in body
    assert "wrong password" not in body
    # Someone else's password tells nothing about the former player.
    guess = judge.send("x@example.net", "SIGNON germany@g1 guess\n").reply.body
    assert "GERMANY has no player" in guess and "EJECT" not in guess


# -- 6. MAP before the start shows the board the game will start from --------------------------
def test_map_before_the_start_and_of_a_map_name_show_the_starting_board(judge):
    create_game(judge)
    out = judge.send("gm@example.net", "SIGNON master@g1 masterpw\nMAP\n")
    assert "the map of game 'g1' as it will start (S1901M, map 'standard'; the game has not started yet)" \
        in out.reply.body
    files = _files(out.reply.message)
    assert set(files) == {"g1-S1901M.svg", "g1-S1901M.png"} and b"LVP" in files["g1-S1901M.svg"]
    preview = judge.send("new@example.net", "MAP hundred\n").reply
    assert "the map of map 'hundred' (its starting board) is attached" in preview.body
    assert set(_files(preview.message)) == {"hundred-S1425M.svg", "hundred-S1425M.png"}


def _files(message) -> dict[str, bytes]:
    return {part.get_filename(): part.get_payload(decode=True) for part in message.walk() if part.get_filename()}


# -- 9. TERMINATE reveals the players to humans, as SMR does to machines ---------------------
def test_terminate_tells_everyone_who_played_each_power(judge, started):
    out = judge.send("gm@example.net", "SIGNON master@g1 masterpw\nTERMINATE\n")
    notices = out.of_kind("game_terminated")
    assert {mail.address for mail in notices} >= {seat.address for seat in started.values()}
    body = notices[0].body
    assert "The players, revealed now that the game is over:" in body
    for power, seat in started.items():
        assert f"{power:<8} {seat.address}" in body


# -- 13. a WARN as long as the phases is said, not accepted silently -----------------------------
def test_a_warning_longer_than_the_phases_is_pointed_out(judge):
    body = judge.send("gm@example.net", "CREATE g1 masterpw\nTIMING MOVE 30M RETREAT 30M ADJUST 30M WARN 4H\n").reply.body
    assert ("note: WARN 4H is not shorter than the movement, retreat, adjustment phases (the shortest 30M), so its "
            "reminder goes out as soon as such a phase begins; give a WARN shorter than the phases (e.g. WARN 15M) "
            "or WARN 0 for none") in " ".join(body.split())
    fine = judge.send("gm@example.net", "SIGNON master@g1 masterpw\nTIMING WARN 10M\n").reply.body
    assert "note: WARN" not in fine


# -- 13. SMR names the judge's bot in a string every DAIDE client reads -------------------------
def test_smr_names_the_judges_bot_without_an_apostrophe(judge, started):
    from daide.messages import to_text
    from daide.render import summary
    from judge.config import Settings
    from judge.edge.daide.host import StoreHost
    from tests.judge.commands.harness import JUDGE

    out = judge.send("gm@example.net", "SIGNON master@g1 masterpw\nEJECT FRANCE\nSEAT FRANCE BOT\nTERMINATE\n")
    assert "ERROR" not in out.reply.body, out.reply.body
    with judge.session() as session:
        game_id = session.execute(select(Game.id)).scalar_one()
    host = StoreHost(judge.store, Settings(judge=JUDGE), game_id, lambda: None, clock=lambda: judge.now)
    host.refresh()
    ending = host.ended()
    assert ending is not None
    text = to_text(summary(host.table, ending.phase, ending.players))
    assert '(FRA ("JudgeBot") ("judge") 3)' in text and "'" not in text
