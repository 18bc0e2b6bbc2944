"""LIST, SUMMARY, HISTORY, HELP; robot mail; the command table."""

from __future__ import annotations

from sqlalchemy import select

import inspect

import mailcmds
from judge.commands.registry import HANDLERS
from judge.store.models_game import Game, Membership, PhaseRecord
from tests.judge.commands.conftest import MASTER, create_game
from tests.judge.storage import make_mail


def test_list_shows_games_without_addresses(judge, started):
    create_game(judge, "DESC second game", name="g2")
    body = judge.send("curious@example.net", "LIST\n").reply.body
    assert "g1" in body and "active S1901M, 7/7 players" in body
    assert "g2" in body and "forming, 0/7 players" in body and "second game" in body
    detail = judge.send("curious@example.net", "LIST g1\n").reply.body
    assert "Game g1" in detail and "FRANCE   played, 3 centres, 3 units" in detail
    assert "@example.net" not in detail.replace("curious@example.net", "")


def test_summary_shows_the_position(judge, started):
    body = judge.send("curious@example.net", "SUMMARY g1\n").reply.body
    assert "Phase:    S1901M" in body and "RUSSIA   units: A MOS, F SEV, F STP/SC, A WAR" in body
    missing = judge.send("curious@example.net", "SUMMARY\n").reply.body
    assert "SUMMARY needs a game" in missing


def test_history_lists_processed_phases(judge, started):
    with judge.session() as session:
        game = session.execute(select(Game)).scalar_one()
        session.add(PhaseRecord(
            game_id=game.id, phase="S1901M", position_before=game.position, orders={"FRANCE": ["A PAR - BUR"]},
            results=[{"power": "FRANCE", "order": "A PAR - BUR", "result": "bounce"}],
            position_after=game.position, digest="0" * 64, processed_at=judge.now,
        ))
    body = judge.send("curious@example.net", "HISTORY g1\n").reply.body
    assert "Spring 1901 movement (S1901M), processed" in body
    assert "FRANCE:\n  A PAR - BUR                  BOUNCED\n" in body  # the results mail's words
    later = judge.send("curious@example.net", "HISTORY g1 F1901M\n").reply.body
    assert "(no phase has been processed yet)" in later


def test_help_sends_the_command_page(judge):
    body = judge.send("new@example.net", "HELP\n").reply.body
    assert "HOW TO WRITE TO THE JUDGE" in body and "JOIN game password" in body


def test_a_refused_command_leaves_the_rest_of_the_mail_done(judge, started):
    france = started["FRANCE"]
    body = judge.send(france.address, f"{france.signon}\nCOMMIT SHA256 {'a' * 64}\nA PAR - BUR\n").reply.body
    assert "ERROR line 2: COMMIT SHA256" in body and "does not use sealed orders" in body
    assert "accepted: A PAR - BUR" in body


def test_unknown_command_and_empty_mail(judge):
    body = judge.send("new@example.net", "FROBNICATE now\n").reply.body
    assert "ERROR line 1: FROBNICATE now" in body and "unknown command" in body
    empty = judge.send("new@example.net", "\n").reply.body
    assert "Your mail had no commands" in empty


def test_robot_mail_changes_nothing_and_gets_no_reply(judge):
    raw = make_mail(subject="Out of office", body="CREATE g9 pw\n", sender="away@example.net",
                    extra={"Auto-Submitted": "auto-replied"})
    from judge.store.inbound import store_inbound
    store_inbound(judge.store, raw, mail_from="away@example.net", rcpt_to=["judge@example.org"],
                  source="smtp", now=judge.now)
    judge.worker.process_pending()
    with judge.session() as session:
        assert session.execute(select(Game)).first() is None
        assert session.execute(select(Membership)).first() is None


def test_reply_is_threaded_and_from_the_judge(judge):
    out = judge.send(MASTER, "LIST\n", subject="my games")
    reply = out.reply
    assert reply.subject == "Re: my games"
    assert reply.message["In-Reply-To"] and reply.message["Auto-Submitted"] == "auto-replied"


def test_every_command_the_parser_makes_has_one_row_in_the_table():
    from judge.commands.registry import MODULES

    commands = {cls for module in (*MODULES, mailcmds) for cls in vars(module).values()
                if inspect.isclass(cls) and issubclass(cls, mailcmds.Command) and cls is not mailcmds.Command}
    concrete = {cls for cls in commands if not any(other is not cls and issubclass(other, cls) for other in commands)}
    assert concrete - set(HANDLERS) == set(), "commands without a handler"
    assert set(HANDLERS) - concrete == set(), "rows for classes that are not commands"


def test_witness_mail_sent_to_the_judge_is_answered_not_lost(judge):
    body = judge.send("player@example.net", "BLINDED g1 0123\nLIST\n").reply.body
    assert "ERROR line 1: BLINDED g1 0123\n      BLINDED: this mail belongs to the witness" in body
    assert "ok    line 2: LIST" in body
