"""Whole games played by mail on the Pure map (seven armies, every province adjacent, four
centres win) through the scheduler harness: quick to end in a solo or a draw."""

from __future__ import annotations

from datetime import timedelta

from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.commands.conftest import Seat

HOLD = {p: [f"A {h} H"] for p, h in (("AUSTRIA", "VIE"), ("ENGLAND", "LON"), ("FRANCE", "PAR"),
                                      ("GERMANY", "BER"), ("ITALY", "ROM"), ("RUSSIA", "MOS"),
                                      ("TURKEY", "CON"))}


def start(judge, name: str, *status: str) -> dict[str, Seat]:
    create_game(judge, "MAP pure", "TIMING GRACE 12H", "RULE CIVIL_DISORDER", *status, name=name)
    seats = fill_game(judge, name)
    return {power: Seat(power, seat.address, seat.password) for power, seat in seats.items()}


def signon(seat: Seat, game: str) -> str:
    return f"SIGNON {seat.power.lower()}@{game} {seat.password}"


def orders(judge, game: str, seat: Seat, lines: list[str]) -> None:
    reply = judge.send(seat.address, signon(seat, game) + "\n" + "\n".join(lines) + "\n").reply.body
    assert "ERROR" not in reply, reply


def play_phase(judge, game: str, seats: dict[str, Seat], moves: dict[str, list[str]], *,
               late: tuple[str, ...] = ()) -> str:
    """Everyone in ``moves`` orders (those in ``late`` after the deadline); the phase is
    processed (at once, or in civil disorder after the grace); returns the next phase."""
    phase = judge.game(game)["phase"]
    for power, lines in moves.items():
        if power not in late:
            orders(judge, game, seats[power], lines)
    if late:
        judge.now = judge.game(game)["deadline"].replace(tzinfo=judge.now.tzinfo) + timedelta(hours=1)
        judge.tick()
        for power in late:
            orders(judge, game, seats[power], moves[power])
    for _ in range(20):
        judge.advance(hours=6)
        judge.tick()
        now = judge.game(game)
        if now["phase"] != phase or now["status"] == "ended":
            return str(now["phase"])
    raise AssertionError(f"{game} stuck in {phase}")


def solo_for_france(judge, game: str, seats: dict[str, Seat]) -> None:
    """France wins in 1902 with its friends' support; Turkey is late in S1901, Russia sends
    nothing in F1901 (civil disorder), Austria is eliminated."""
    play_phase(judge, game, seats, {
        "FRANCE": ["A PAR - VIE"], "GERMANY": ["A BER S A PAR - VIE"], "ITALY": ["A ROM S A PAR - VIE"],
        "AUSTRIA": ["A VIE H"], "ENGLAND": ["A LON H"], "RUSSIA": ["A MOS H"], "TURKEY": ["A CON H"],
    }, late=("TURKEY",))
    assert judge.game(game)["phase"] == "F1901M"
    fall = {p: lines for p, lines in HOLD.items() if p not in ("AUSTRIA", "FRANCE", "RUSSIA")}
    assert play_phase(judge, game, seats, {**fall, "FRANCE": ["A VIE H"]}) == "W1901A"
    assert play_phase(judge, game, seats, {"FRANCE": ["A PAR B"]}) == "S1902M"
    play_phase(judge, game, seats, {
        "FRANCE": ["A VIE - BER", "A PAR - ROM"], "TURKEY": ["A CON S A VIE - BER"],
        "ENGLAND": ["A LON S A PAR - ROM"], "RUSSIA": ["A MOS S A PAR - ROM"],
        "GERMANY": ["A BER H"], "ITALY": ["A ROM H"],
    })
    if judge.game(game)["phase"] == "S1902R":
        play_phase(judge, game, seats, {"GERMANY": ["A BER D"], "ITALY": ["A ROM D"]})
    assert judge.game(game)["phase"] == "F1902M"
    play_phase(judge, game, seats, {"FRANCE": ["A BER H", "A ROM H"], "ENGLAND": ["A LON H"],
                                    "RUSSIA": ["A MOS H"], "TURKEY": ["A CON H"]})
    assert judge.game(game)["status"] == "ended"


def draw_of_all(judge, game: str, seats: dict[str, Seat]) -> None:
    """One year of holds, then every survivor votes SET DRAW: a seven-way draw."""
    play_phase(judge, game, seats, HOLD)
    for seat in seats.values():
        judge.send(seat.address, signon(seat, game) + "\nSET DRAW\n")
    assert judge.game(game)["status"] == "ended", judge.game(game)
