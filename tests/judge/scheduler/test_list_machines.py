"""The master sees which powers machines play; players do not (issues 29.8, 29.10)."""

from __future__ import annotations

from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.commands.conftest import MASTER

MASTER_SIGNON = "SIGNON master@g1 masterpw\n"


def _row(body: str, power: str) -> str:
    return next(line for line in body.splitlines() if line.strip().startswith(power))


def test_list_and_summary_tell_the_master_which_powers_the_judges_bot_plays(judge) -> None:
    create_game(judge)
    seats = fill_game(judge)
    assert "ERROR" not in judge.send(MASTER, MASTER_SIGNON + "EJECT FRANCE\nSEAT FRANCE BOT\n").reply.body
    for verb in ("LIST", "SUMMARY"):
        body = judge.send(MASTER, MASTER_SIGNON + f"{verb}\n").reply.body
        assert "played by the judge's bot" in _row(body, "FRANCE"), body
        assert _row(body, "ENGLAND").split()[1] == "played," and "bot" not in _row(body, "ENGLAND")
    england = seats["ENGLAND"]
    for body in (judge.send(england.address, f"{england.signon}\nLIST\n").reply.body,
                 judge.send("someone@example.net", "LIST g1\n").reply.body):
        assert "bot" not in _row(body, "FRANCE") and "machine" not in body.lower()


def test_a_forming_game_counts_places_not_powers(judge) -> None:
    create_game(judge)
    for index in range(4):
        judge.send(f"player{index}@example.net", f"JOIN g1 pw{index}\n")
    body = judge.send("someone@example.net", "LIST g1\n").reply.body
    assert "Players:  4 of 7 places taken; 0 observers" in body
