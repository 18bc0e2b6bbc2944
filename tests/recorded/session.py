"""A recorded mail session: every mail a whole game sends and receives, as text.

``play(directory)`` drives one game through the real worker and scheduler passes at a
clock it moves (CREATE with status lines, FORM, seven JOINs, orders with mistakes, press,
WAIT, late notices, PROCESS!, PAUSE/RESUME, builds, HISTORY, draw votes) and returns the
transcript.  tests/recorded/session.txt is the transcript made by the judge before the
restructuring of issue 11; test_session.py checks that today's judge still writes it
word for word.  ``python -m tests.recorded.session FILE`` writes a transcript.
"""

from __future__ import annotations

import sys
from pathlib import Path

from judge.store import passwords
from tests.judge.scheduler.driver import TurnHarness

MASTER = "gm@example.net"
POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
ADDRESS = {power: f"{power.lower()}@example.net" for power in POWERS}


# France answers England's press from a phone: a reply with a greeting, a signature and the quote.
REPLY_TO_PRESS = """SIGNON france@g1 pw-france
PRESS TO E
Yes, let us talk: the Channel stays empty?
ENDPRESS

Thanks,
Jean
Sent from my iPhone

On Mon, 2 Mar 2026 at 12:00, Test Judge <judge@example.org> wrote:
> Press in game g1 from ENGLAND to FRANCE:
>
> Shall we talk?
"""


def _signon(power: str) -> str:
    return f"SIGNON {power.lower()}@g1 pw-{power.lower()}"


def play(directory: Path) -> str:
    passwords._N = 2**8  # real scrypt at a low cost
    judge = TurnHarness(directory)
    out: list[str] = []

    def record(step: str, outcome) -> None:
        out.append(f"=== {step}")
        for mail in sorted(outcome.mails, key=lambda m: (m.kind, m.address, m.subject, m.body)):
            out.append(f"--- {mail.kind} to {mail.address}: {mail.subject}")
            out.append(mail.body.rstrip())

    def send(step: str, sender: str, body: str, subject: str = "commands") -> None:
        record(step, judge.send(sender, body, subject))

    def tick(step: str) -> None:
        record(step, judge.tick())
        out.append(f"(pass: {judge.last_report.outcomes if judge.last_report else None})")

    def orders(power: str, *lines: str) -> None:
        send(f"orders {power}", ADDRESS[power], "\n".join([_signon(power), *lines]) + "\n")

    try:
        send("create", MASTER, "CREATE g1 masterpw\nRULE POWER_CHOICE\nTIMING MOVE 2D RETREAT 1D ADJUST 1D "
                               "WARN 12H\nDESC a recorded game\n")
        send("join before form", ADDRESS["FRANCE"], "JOIN france@g1 pw-france\n")
        send("form", MASTER, "SIGNON master@g1 masterpw\nFORM\n")
        send("list", "curious@example.net", "LIST\nLIST g1\n")
        for power in POWERS:
            send(f"join {power}", ADDRESS[power], f"JOIN {power.lower()}@g1 pw-{power.lower()}\n")
        send("summary", ADDRESS["ITALY"], "SUMMARY g1\n")
        orders("AUSTRIA", "A VIE - GAL", "A BUD - SER", "F TRI - ALB")
        orders("ENGLAND", "F LON - NTH", "F EDI - NWG", "A LVP - YOR", "A PAR - BUR")
        orders("FRANCE", "A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - MAO", "SET WAIT")
        orders("GERMANY", "A BER - KIE", "A MUN - RUH", "F KIE - DEN", "A MUN - XYZ")
        orders("ITALY", "A VEN - TYR", "A ROM - VEN", "F NAP - ION")
        orders("RUSSIA", "A MOS - UKR", "A WAR - GAL", "F SEV - BLA", "F STP/SC - BOT")
        send("press", ADDRESS["ENGLAND"], f"{_signon('ENGLAND')}\nPRESS TO F\nShall we talk?\nENDPRESS\n")
        send("broadcast", ADDRESS["TURKEY"], f"{_signon('TURKEY')}\nBROADCAST\nPeace to all.\nENDPRESS\n")
        send("reply to press from a mail client", ADDRESS["FRANCE"], REPLY_TO_PRESS,
             subject="Re: g1: press from ENGLAND")
        send("master summary", MASTER, "SIGNON master@g1 masterpw\nSUMMARY g1\n")
        orders("TURKEY", "A CON - BUL", "A SMY - CON", "F ANK - BLA")
        tick("pass while France waits")
        judge.advance(days=4, minutes=1)  # the first phase is twice as long
        orders("FRANCE", "F BRE - MAO")  # changed after the deadline: processed right after the mail
        tick("pass after the deadline")
        send("history", "curious@example.net", "HISTORY g1\n")
        orders("FRANCE", "A BUR - MUN", "F MAO - SPA/NC", "A MAR H")
        orders("GERMANY", "A KIE - HOL", "A RUH - BEL", "F DEN H")
        judge.advance(days=2, minutes=1)
        tick("late pass")
        send("master summary when late", MASTER, "SIGNON master@g1 masterpw\nSUMMARY g1\n")
        send("master process", MASTER, "SIGNON master@g1 masterpw\nPROCESS!\n")
        send("summary after fall", ADDRESS["FRANCE"], "SUMMARY g1\n")
        send("pause", MASTER, "SIGNON master@g1 masterpw\nPAUSE\n")
        judge.advance(hours=5)
        send("resume", MASTER, "SIGNON master@g1 masterpw\nRESUME\n")
        for power in POWERS:
            orders(power, "WAIVE")
        tick("builds")
        for power in POWERS:
            send(f"draw {power}", ADDRESS[power], f"{_signon(power)}\nSET DRAW\n")
        judge.advance(days=3)
        tick("draw pass")
        judge.advance(days=3)
        tick("later pass")
        send("final list", "curious@example.net", "LIST g1\nHISTORY g1\n")
    finally:
        judge.close()
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as temporary:
        Path(sys.argv[1]).write_text(play(Path(temporary)), encoding="utf-8")
