"""The mails of the intake benchmark: what players of running games send.

The mix (by default): 70 % SIGNON with one to four order lines, 15 % SIGNON with a private
press message (and sometimes an order), 15 % LIST of a game without signing on.  Orders
are the corpus orders of the seat's own units, so they are legal in the stored position.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import count
from typing import Iterator, Sequence

from benchmarks.intake_population import JUDGE_ADDRESS, POWERS, Seat

PRESS_TEXTS = (
    "Shall we agree on a DMZ in the Black Sea this year?",
    "I will support you into that centre if you stay out of mine.",
    "Your fleet movements worry me; what are your plans for the autumn?",
    "Let us keep our alliance quiet for now.",
)


@dataclass(frozen=True)
class BenchMail:
    """One mail to send: envelope, raw bytes, and how many commands it carries."""

    sender: str
    raw: bytes
    kind: str  # "orders", "press", "list" (one game) or "list-all"
    commands: int  # SIGNON, each order line, a PRESS block, a LIST: one each


def _orders_body(seat: Seat, rng: random.Random, most: int) -> list[str]:
    if not seat.orders:
        return []
    chosen = rng.sample(seat.orders, k=min(len(seat.orders), rng.randint(1, most)))
    return list(chosen)


def compose(seat: Seat, kind: str, rng: random.Random, message_id: str) -> BenchMail:
    signon = f"SIGNON {seat.power.lower()}@{seat.game} {seat.password}"
    if kind == "orders":
        orders = _orders_body(seat, rng, 4)
        lines, commands = [signon, *orders, "SIGNOFF"], 1 + len(orders)
    elif kind == "press":
        other = rng.choice([p for p in POWERS if p != seat.power])
        orders = _orders_body(seat, rng, 1) if rng.random() < 0.5 else []
        lines = [signon, *orders, f"PRESS TO {other}", rng.choice(PRESS_TEXTS), "ENDPRESS", "SIGNOFF"]
        commands = 2 + len(orders)
    elif kind == "list-all":  # every game on the judge
        lines, commands = ["LIST"], 1
    else:
        lines, commands = [f"LIST {seat.game}"], 1
    body = "\r\n".join(lines) + "\r\n\r\n-- \r\nsent from the intake benchmark\r\n"
    headers = (
        f"From: Player <{seat.address}>\r\nTo: {JUDGE_ADDRESS}\r\nSubject: {seat.game} {kind}\r\n"
        f"Message-ID: <{message_id}>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n"
    )
    return BenchMail(seat.address, (headers + "\r\n" + body).encode("utf-8"), kind, commands)


def mail_stream(seats: Sequence[Seat], seed: int, run: str,
                mix: Sequence[tuple[str, float]] = (("orders", 0.70), ("press", 0.15), ("list", 0.15)),
                ) -> Iterator[BenchMail]:
    """An endless stream of mails from random seats, each with a unique Message-ID."""
    rng = random.Random(seed)
    kinds, weights = zip(*mix)
    for number in count():
        seat = rng.choice(seats)
        kind = rng.choices(kinds, weights)[0]
        yield compose(seat, kind, rng, f"{run}.{number}@bench.example")


def one_per_seat(seats: Sequence[Seat], seed: int, run: str) -> list[BenchMail]:
    """One SIGNON-with-orders mail from every seat (the warm-up round)."""
    rng = random.Random(seed)
    return [compose(seat, "orders", rng, f"{run}.{n}@bench.example") for n, seat in enumerate(seats)]
