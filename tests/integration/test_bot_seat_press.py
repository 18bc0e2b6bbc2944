"""The judge's bot at a seat negotiates (issue 26 item 4), through a real `judge serve`: mail
in over real SMTP, the bot in its bot process, the answers read back from the outbox folder.

In a game with RULE PRESS_LEVEL the seat proposes peace to its neighbour at the opening,
and a human who proposes peace by mail gets its YES by mail and, now at peace, the bot's
proposal of a DMZ on their contested border, in English with the DAIDE beside it.  (A no-press game gets no press from it: tests/judge/scheduler/test_press_to_machines.py.)
"""

from __future__ import annotations

import pytest

from tests.integration.test_bot_game_serve import MASTER, Mailroom, judge_env, rows, wait_until

pytestmark = pytest.mark.slow


def _seat_the_bot(room: Mailroom, game: str, *rules: str) -> dict[str, tuple[str, str]]:
    """A running game of seven joined by mail, Austria given to the bot; power -> (address, password)."""
    created = room.reply_to(room.send(MASTER, f"CREATE {game} masterpw\n" + "".join(f"{r}\n" for r in rules) +
                                      "TIMING MOVE 2D\nFORM\n"))
    assert "ERROR" not in created, created
    for index in range(7):
        room.send(f"{game}p{index}@example.net", f"JOIN {game} pw{index}\n")
    wait_until(lambda: len(_seats(room, game)) == 7, 60, "seven players")
    seats = _seats(room, game)
    seated = room.reply_to(room.send(MASTER, f"SIGNON master@{game} masterpw\nEJECT AUSTRIA\nSEAT AUSTRIA BOT\n"))
    assert "AUSTRIA is now played by the judge's bot" in seated and "ERROR" not in seated, seated
    return seats


def _seats(room: Mailroom, game: str) -> dict[str, tuple[str, str]]:
    found = rows(room.outbox.parent.parent, "SELECT m.power, m.address FROM membership m JOIN game g ON "
                                            f"m.game_id = g.id WHERE g.name = '{game}' AND m.role = 'player' "
                                            "AND m.power IS NOT NULL")
    return {power: (address, "pw" + address.split("@")[0][-1]) for power, address in found}


def _press_to(room: Mailroom, address: str, subject: str) -> list[str]:
    return [m.get_body(("plain",)).get_content() for m in room.messages()
            if m["To"] == address and m["Subject"] == subject]


def test_a_human_proposes_peace_to_the_bots_seat_by_mail_and_gets_its_answer_by_mail(tmp_path, judge_runner) -> None:
    judge = judge_runner.start(tmp_path, judge_env(JUDGE_BOTS_ITERATIONS="100"))
    room = Mailroom(judge, tmp_path)
    seats = _seat_the_bot(room, "g1", "RULE PRESS_LEVEL 20")
    italy, russia = seats["ITALY"], seats["RUSSIA"]
    # The opening: Italy's army in Venice can reach Trieste, so the bot proposes peace to Italy.
    [opening] = room.wait_for(lambda m: m["To"] == italy[0] and m["Subject"] == "g1: press from AUSTRIA", 240)
    text = opening.get_body(("plain",)).get_content()
    assert "DAIDE: PRP (PCE (AUS ITA))" in text and "ACCEPT" in text

    sent = room.send(russia[0], f"SIGNON russia@g1 {russia[1]}\nPRESS TO AUSTRIA\nPROPOSE PEACE\n"
                                "PROPOSE DMZ GAL\nPROPOSE DMZ BUD\nENDPRESS\n")
    reply = room.reply_to(sent)
    assert "press sent to AUSTRIA" in reply and "ERROR" not in reply, reply
    room.wait_for(lambda m: m["To"] == russia[0] and m["Subject"] == "g1: press from AUSTRIA"
                  and "REJ (PRP (DMZ" in m.get_body(("plain",)).get_content(), 240)
    answers = _press_to(room, russia[0], "g1: press from AUSTRIA")
    assert [a.split("DAIDE: ")[1].split("\n")[0] for a in answers] == [
        "YES (PRP (PCE (RUS AUS)))",          # a fair peace: accepted
        "PRP (DMZ (AUS RUS) (GAL))",          # at peace: the bot offers the contested border at once
        "YES (PRP (DMZ (RUS AUS) (GAL)))",    # a DMZ binding both, none of its centres
        "REJ (PRP (DMZ (RUS AUS) (BUD)))",    # one that keeps it out of its own centre: refused
    ]
    assert "AUSTRIA accepts" in answers[0] and "AUSTRIA rejects" in answers[3]  # in English, the DAIDE beside it
    # The bot's own DMZ proposal, in plain English with the DAIDE beside it and how to answer.
    assert "AUSTRIA proposes that AUSTRIA and RUSSIA keep out of GAL (a demilitarised zone)." in answers[1]
    assert "PRESS TO AUSTRIA and a line ACCEPT or REJECT" in answers[1]
    # Recorded as press is: the answers are the seat's own rows in the game's press log.
    logged = rows(tmp_path, "SELECT sender, recipients FROM press_log WHERE sender = 'AUSTRIA'")
    assert len(logged) == 5 and all(recipients in ('["RUSSIA"]', '["ITALY"]') for _, recipients in logged)
    assert judge.terminate() == 0, judge.log
