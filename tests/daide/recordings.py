"""Reading the recorded DAIDE sessions that MILA's `diplomacy` 1.1.2 package ships
(``diplomacy/daide/tests/game_data_*.csv``), from the installed package only.

A row is ``client id, client line, server line...``; a client line is sent, server
lines are what that client received.  Their text spells a string one character a
token (``( A l b e r t )``) and integers as ``#5``; ``parse`` reads that into our
message tree.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from daide.messages import Message, Text


@dataclass(frozen=True)
class Row:
    client: int
    sent: Message | None
    received: tuple[Message, ...]


def recording_path(name: str) -> Path | None:
    spec = importlib.util.find_spec("diplomacy")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "daide" / "tests" / name
    return path if path.is_file() else None


def read_rows(path: Path) -> list[Row]:
    rows = []
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        fields = line.split(",")
        sent = parse(fields[1]) if fields[1] else None
        rows.append(Row(int(fields[0]), sent, tuple(parse(f) for f in fields[2:] if f)))
    return rows


def parse(text: str) -> Message:
    stack: list[list] = [[]]
    chars: list[str] = []

    def flush() -> None:
        if chars:
            stack[-1].append(Text("".join(chars)))
            chars.clear()

    for word in text.split(" "):
        if not word:
            continue
        if len(word) == 1 and word not in "()":
            chars.append(word)
            continue
        flush()
        if word == "(":
            stack.append([])
        elif word == ")":
            inner = tuple(stack.pop())
            stack[-1].append(inner)
        elif word.startswith("#"):
            stack[-1].append(int(word[1:]))
        else:
            stack[-1].append(word)
    flush()
    return tuple(stack[0])
