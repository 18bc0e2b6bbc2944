"""The HELP page, and the command rows of grammar.md and README, made from the verbs.

Each verb declares its own rows (``Verb.help``: section, form, meaning); this module only
says in which order the sections and their verbs appear, and holds the page's opening
text and the notes that close a section.  ``python -m mailcmds.help_page`` writes
mailcmds/help.txt and the generated blocks of mailcmds/grammar.md and README.md;
tests/mailcmds/test_docs.py fails when a committed file differs from what this makes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .create import STATUS_VERBS
from .registry import VERBS
from .syntax import Verb

#: Where the form column ends and the meaning begins on the HELP page.
_MEANING_COLUMN = 36


@dataclass(frozen=True)
class Section:
    """A part of the HELP page: its key (as in ``Verb.help``), its title, the verbs it shows
    in order (``:NAME`` is a status line such as ``:MAP``), and a note after the rows."""

    key: str
    title: str
    verbs: tuple[str, ...]
    note: str = ""
    on_help_page: bool = True


PREAMBLE = """HOW TO WRITE TO THE JUDGE

Put one command per line in the body of a plain-text mail. Upper or lower case
does not matter. Lines quoted with ">" and anything after a "-- " signature line
are ignored; "//" starts a comment. Every mail gets one reply: what was done,
each error with the line it came from, and the lines that were not processed.

Values: game = a game name; power = FRANCE or its initial F (M is the master);
date = 2025-01-14 20:00 or 14 Jan 20:00; duration = 3D, 36H, 1D12H;
phase = S1901M, F1901R, W1901A."""

SECTIONS: tuple[Section, ...] = (
    Section("start", "GETTING STARTED",
            ("LIST", "SUMMARY", "HISTORY", "MAP", "HELP", "GET KEY", "JOIN", "OBSERVE", "TAKEOVER", "UNSUBSCRIBE",)),
    Section("play", "PLAYING (after SIGNON)",
            ("SIGNON", "CLEAR", "SET WAIT", "SET NOWAIT", "SET PASSWORD", "SET ADDRESS", "SET ABSENCE", "SET ZONE", "SET DRAW", "SET NODRAW", "SET CONCEDE", "SET NOCONCEDE", "RESIGN", "SIGNOFF",)),
    Section("press", "PRESS (messages to other players)",
            ("PRESS", "BROADCAST",)),
    Section("sealed", "SEALED ORDERS (games with RULE SEALED)",
            ("SET KEY", "COMMIT", "REVEAL",),
            note="The judge publishes all commitments in one signed mail once every power has committed\n(or at the deadline); REVEAL only after that.  A missing reveal, or one that does not\nmatch the commitment, means all that power's units hold.  SET KEY without SIGNON\nregisters the key for your address; after a game starts a new key needs the master,\nwho approves it by sending SET KEY with that key.  RULE SEALED_SHA256 also accepts\nCOMMIT SHA256.  Every broadcast is signed by the judge (GET KEY for its key); check a\nsaved game archive with: judge audit ARCHIVE --judge-key judge.asc"),
    Section("fair", "FAIR POWER ASSIGNMENT (games with RULE PREFERENCES or BLIND_ASSIGN)",
            ("SET PREFERENCE", "COMMIT", "REVEAL", "ESCROW", "PEEL", "BLINDED", "BLIND", "SHUFFLED", "BLINDS", "RECEIVED", "CONFIRM",),
            note="(between the game master and the witness judge: SHUFFLE, COLLECTED, CONFIRMED,\nREJECTED, FORMAT; see the README)"),
    Section("master", "MASTERS",
            ("CREATE", ":MAP", ":RULE", ":TIMING", ":DEADLINE", ":ZONE", ":PRIVATE", ":DESC", ":LIST", ":WITNESS", "SIGNON", "FORM", "PAUSE", "RESUME", "TERMINATE", "PROCESS", "PROCESS!", "PREVIEW", "ROLLBACK", "SET DEADLINE", "EJECT", "DUMMY", "REVIVE", "SEAT",)),
    Section("witness", "BETWEEN JUDGES (blinded assignment: the game master's judge and the witness)",
            ("SHUFFLE", "COLLECTED", "CONFIRMED", "REJECTED", "FORMAT"), on_help_page=False),
)


def _verbs_by_key() -> dict[str, Verb]:
    # The create family also lists the status lines; they are keyed ``:NAME`` from STATUS_VERBS.
    found = {" ".join(verb.words): verb for verb in VERBS if verb.family != "create" or verb.words == ("CREATE",)}
    found.update({":" + " ".join(verb.words): verb for verb in STATUS_VERBS})
    return found


def section_rows(section: Section) -> list[tuple[str, str]]:
    """The (form, meaning) rows of a section, from its verbs in order."""
    verbs = _verbs_by_key()
    rows = []
    for key in section.verbs:
        verb_rows = [(form, meaning) for where, form, meaning in verbs[key].help if where == section.key]
        rows += verb_rows  # a verb may have no row of its own (RESUME is on PAUSE's)
    return rows


def _help_line(form: str, meaning: str) -> str:
    return f"  {form:<{_MEANING_COLUMN - 2}}{meaning}".rstrip() if meaning else f"  {form}".rstrip()


def help_text() -> str:
    """mailcmds/help.txt: what HELP answers."""
    parts = [PREAMBLE]
    for section in SECTIONS:
        if not section.on_help_page:
            continue
        lines = [section.title, *(_help_line(form, meaning) for form, meaning in section_rows(section))]
        lines += [f"  {line}" for line in section.note.splitlines()]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _declared(keys: str) -> list[Verb]:
    """The verbs of the sections named in ``keys`` (``start,play``; ``master/status`` only its
    status lines, ``master/commands`` the rest), each once, in order."""
    verbs, shown = _verbs_by_key(), set()
    listed = []
    for key in keys.split(","):
        key, _, part = key.strip().partition("/")
        section = next(s for s in SECTIONS if s.key == key)
        for name in section.verbs:
            if (part == "status" and not name.startswith(":")) or (part == "commands" and name.startswith(":")):
                continue
            verb = verbs[name]
            if id(verb) not in shown:
                shown.add(id(verb))
                listed.append(verb)
    return listed


def grammar_block(keys: str) -> str:
    """The sections' verbs as grammar.md shows them: each verb's syntax and meaning, as
    declared (a code block, meaning at column 41)."""
    rows = [f"{verb.syntax:<39} {verb.meaning}" if len(verb.syntax) < 40
            else f"{verb.syntax}\n{'':<39} {verb.meaning}" for verb in _declared(keys)]
    return "```\n" + "\n".join(rows) + "\n```"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def readme_table(keys: str) -> str:
    """The sections' verbs as README's table: syntax and meaning, as declared."""
    rows = [f"| `{_cell(verb.syntax)}` | {_cell(verb.meaning)} |" for verb in _declared(keys)]
    return "| command | meaning |\n|---|---|\n" + "\n".join(rows)


BEGIN, END = "<!-- generated from the verbs: {key} -->", "<!-- end of generated rows -->"


def fill_blocks(text: str, render: Callable[[str], str]) -> str:
    """``text`` with every generated block (between BEGIN/END markers) made anew."""
    out: list[str] = []
    rest = text
    while True:
        start = rest.find("<!-- generated from the verbs: ")
        if start < 0:
            return "".join(out) + rest
        head_end = rest.index("-->", start) + 3
        key = rest[start + len("<!-- generated from the verbs: "):head_end - 4].strip()
        stop = rest.index(END, head_end)
        out.append(rest[:head_end] + "\n" + render(key) + "\n")
        rest = rest[stop:]


def write_all(root: Path) -> None:
    here = root / "mailcmds"
    (here / "help.txt").write_text(help_text(), encoding="utf-8")
    grammar = here / "grammar.md"
    grammar.write_text(fill_blocks(grammar.read_text(encoding="utf-8"), grammar_block), encoding="utf-8")
    readme = root / "README.md"
    readme.write_text(fill_blocks(readme.read_text(encoding="utf-8"), readme_table), encoding="utf-8")


if __name__ == "__main__":
    write_all(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
