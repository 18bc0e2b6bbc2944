"""The HELP page, and the command rows of grammar.md and README, made from the verbs.

Each verb declares its own rows (``Verb.help``: section, form, meaning); this module only
holds the page's sections (titles, the notes that close them) and its opening text.  A
section shows the rows of its key from every verb, in the verb table's order; the status
lines (``status``: the lines CREATE reads, such as MAP) follow the verb that reads them.
``python -m judge.commands.help_docs`` writes mailcmds/help.txt and the generated blocks of
mailcmds/grammar.md and README.md; tests/mailcmds/test_docs.py fails when a committed file
differs from what this makes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from .orders import ORDER_FORMS
from .registry import VerbTable
from .syntax import Verb

#: Where the form column ends and the meaning begins on the HELP page.
_MEANING_COLUMN = 36


@dataclass(frozen=True)
class Section:
    """A part of the HELP page: its key (as in ``Verb.help``), its title and a note after
    the rows."""

    key: str
    title: str
    note: str = ""
    on_help_page: bool = True
    #: Rows that are no command: the order forms, written after SIGNON.
    forms: tuple[tuple[str, str], ...] = ()


PREAMBLE = """HOW TO WRITE TO THE JUDGE

Put one command per line in the body of a plain-text mail. Upper or lower case
does not matter. Lines quoted with ">" and anything after a "-- " signature line
are ignored; "//" starts a comment. Every mail gets one reply: what was done,
each error with the line it came from, and the lines that were not processed.

Values: game = a game name; power = FRANCE or its initial F (M is the master);
date = 2025-01-14 20:00 or 14 Jan 20:00; duration = 3D, 36H, 1D12H;
phase = S1901M, F1901R, W1901A."""

SECTIONS: tuple[Section, ...] = (
    Section("start", "GETTING STARTED"),
    Section("play", "PLAYING (after SIGNON)"),
    Section("orders", "ORDERS (after SIGNON, one per line)",
            note="A phase takes only its own kind of order; an adjustment's missing builds are\nwaived and missing removals are made by the judge (units farthest from home) at the\ndeadline.  Orders sent only in part count as late, as no orders do.",
            forms=tuple((order.form, order.meaning) for order in ORDER_FORMS)),
    Section("press", "PRESS (messages to other players)"),
    Section("registry", "REGISTERED PLAYERS (one name across games)",
            note="Addresses are linked only by answering the mail the judge sends to each one.  WHOIS and\nWHOGAME show the name and what its player made PUBLIC; never an address unless he chose\nto, never who plays a gunboat game before it ends."),
    Section("sealed", "SEALED ORDERS (games with RULE SEALED)",
            note="The judge publishes all commitments in one signed mail once every power has committed\n(or at the deadline); REVEAL only after that.  A missing reveal, or one that does not\nmatch the commitment, means all that power's units hold.  SET KEY without SIGNON\nregisters the key for your address; after a game starts a new key needs the master,\nwho approves it by sending SET KEY with that key.  RULE SEALED_SHA256 also accepts\nCOMMIT SHA256.  Every broadcast is signed by the judge (GET KEY for its key); check a\nsaved game archive with: judge audit ARCHIVE --judge-key judge.asc"),
    Section("fair", "FAIR POWER ASSIGNMENT (games with RULE PREFERENCES or BLIND_ASSIGN)",
            note="(between the game master and the witness judge: SHUFFLE, COLLECTED, CONFIRMED,\nREJECTED, FORMAT; see the README)"),
    Section("master", "MASTERS"),
    Section("witness", "BETWEEN JUDGES (blinded assignment: the game master's judge and the witness)", on_help_page=False),
)


def shown_verbs(table: VerbTable, status: Sequence[Verb]) -> list[tuple[Verb, bool]]:
    """Every verb once, in the order the documents show them, each with whether it is a
    status line: the table's order, the status lines right after the verb of their
    family that opens a session (CREATE), not again where the table has them too."""
    status_parsers = {verb.parse for verb in status}
    status_family = next((verb.family for verb in table.verbs if verb.parse in status_parsers), None)
    shown: list[tuple[Verb, bool]] = []
    for verb in table.verbs:
        if verb.parse in status_parsers:
            continue
        shown.append((verb, False))
        if verb.opens_session and verb.family == status_family:
            shown += [(line, True) for line in status]
    return shown


def section_rows(section: Section, table: VerbTable, status: Sequence[Verb]) -> list[tuple[str, str]]:
    """The (form, meaning) rows of a section, from its verbs in order."""
    return [(form, meaning) for verb, _ in shown_verbs(table, status)
            for where, form, meaning in verb.help if where == section.key and (form or meaning)] + list(section.forms)


def _help_line(form: str, meaning: str) -> str:
    return f"  {form:<{_MEANING_COLUMN - 2}}{meaning}".rstrip() if meaning else f"  {form}".rstrip()


def help_text(table: VerbTable, status: Sequence[Verb]) -> str:
    """mailcmds/help.txt: what HELP answers."""
    parts = [PREAMBLE]
    for section in SECTIONS:
        if not section.on_help_page:
            continue
        lines = [section.title, *(_help_line(form, meaning) for form, meaning in section_rows(section, table, status))]
        lines += [f"  {line}" for line in section.note.splitlines()]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _declared(keys: str, table: VerbTable, status: Sequence[Verb]) -> list[Verb]:
    """The verbs with rows in the sections named in ``keys`` (``start,play``;
    ``master/status`` only the status lines, ``master/commands`` the rest), section by
    section, each once, in order."""
    listed: list[Verb] = []
    for key in keys.split(","):
        name, _, part = key.strip().partition("/")
        for verb, is_status in shown_verbs(table, status):
            if (any(where == name for where, _, _ in verb.help) and verb not in listed
                    and (part == "" or (part == "status") == is_status)):
                listed.append(verb)
    return listed


def _rows(keys: str, table: VerbTable, status: Sequence[Verb]) -> list[tuple[str, str]]:
    """The (syntax, meaning) rows of the sections named in ``keys``: their verbs as
    declared, then their order forms."""
    rows = [(verb.syntax, verb.meaning) for verb in _declared(keys, table, status)]
    for key in keys.split(","):
        rows += next(s for s in SECTIONS if s.key == key.strip().partition("/")[0]).forms
    return rows


def grammar_block(keys: str, table: VerbTable, status: Sequence[Verb]) -> str:
    """The sections' verbs as grammar.md shows them: each verb's syntax and meaning, as
    declared (a code block, meaning at column 41)."""
    rows = [f"{syntax:<39} {meaning}" if len(syntax) < 40
            else f"{syntax}\n{'':<39} {meaning}" for syntax, meaning in _rows(keys, table, status)]
    return "```\n" + "\n".join(rows) + "\n```"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def readme_table(keys: str, table: VerbTable, status: Sequence[Verb]) -> str:
    """The sections' verbs as README's table: syntax and meaning, as declared."""
    rows = [f"| `{_cell(syntax)}` | {_cell(meaning)} |" for syntax, meaning in _rows(keys, table, status)]
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


def write_all(root: Path, table: VerbTable, status: Sequence[Verb]) -> None:
    here = root / "mailcmds"
    (here / "help.txt").write_text(help_text(table, status), encoding="utf-8")
    grammar = here / "grammar.md"
    grammar.write_text(fill_blocks(grammar.read_text(encoding="utf-8"),
                                   lambda keys: grammar_block(keys, table, status)), encoding="utf-8")
    readme = root / "README.md"
    readme.write_text(fill_blocks(readme.read_text(encoding="utf-8"),
                                  lambda keys: readme_table(keys, table, status)), encoding="utf-8")
