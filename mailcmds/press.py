"""Press: PRESS [TO powers | TO ALL BUT powers] [GREY|WHITE] [QUIET] ... ENDPRESS, and BROADCAST.

Who may press whom, and whether grey press is allowed, is the game's business (its
RULEs); here the message is only read.  Recipient tokens are kept as written (upper
case): a power name (FRANCE), an initial string (FGR: France, Germany, Russia), M or
MASTER, O for observers; :func:`mailcmds.powers.resolve_powers` expands them for a map.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import Command, SourceLine
from .syntax import CommandLine, ParseContext, Verb, strip_comment
from .values import split_tokens


@dataclass(frozen=True, slots=True)
class Press(Command):
    """A press message.  ``broadcast``: to everyone (BROADCAST, PRESS with no TO, PRESS TO
    ALL); else ``recipients`` names who gets it, or it goes to all but ``excluded``
    (``recipients`` is then ``None``).  ``quiet``: no receipt copy to the sender."""

    recipients: tuple[str, ...] | None
    grey: bool
    broadcast: bool
    body: str
    excluded: tuple[str, ...] = ()
    quiet: bool = False
    lines: tuple[SourceLine, ...] = ()


_OPTIONS = {"GREY", "GRAY", "WHITE", "QUIET", "FAKE", "FROM", "TO"}
_TOKEN_RE = re.compile(r"[A-Z][A-Z0-9_#\-]*")
_PRESS_ENDS = ("ENDPRESS", "ENDBROADCAST")
def stops_body(line: SourceLine) -> bool:
    """A SIGNOFF line, or a ``SIGNON id password`` line: a press (or reveal) whose
    ENDPRESS was forgotten must not carry the next SIGNON's password to other players.
    (JOIN, CREATE and the like are ordinary English words and do not end a press.)"""
    words = strip_comment(line.text).split()
    if not words:
        return False
    first = words[0].upper()
    return (first == "SIGNOFF" and len(words) == 1) or (first == "SIGNON" and len(words) == 3)


def _read_options(line: CommandLine, broadcast_verb: bool) -> tuple[tuple[str, ...] | None, tuple[str, ...], bool, bool, bool]:
    words = [w.upper() for w in line.args]
    recipients: list[str] | None = None
    excluded: list[str] = []
    grey = quiet = all_but = False
    grey_set = False
    index = 0
    while index < len(words):
        word = words[index]
        if word == "TO" or (word.startswith("+") and len(word) > 1):  # "+FGR": DPjudge's short TO
            if broadcast_verb:
                raise line.fail("BROADCAST goes to everyone: use PRESS TO ... for a private message")
            if recipients is not None or all_but:
                raise line.fail("the recipients are listed twice")
            if word == "TO":
                index += 1
                start = index
            else:
                words[index] = word[1:]
                start = index
            while index < len(words) and words[index] not in _OPTIONS and words[index] != "BUT":
                index += 1
            tokens = split_tokens(words[start:index])
            if tokens == ("ALL",) and index < len(words) and words[index] == "BUT":
                index += 1
                start = index
                while index < len(words) and words[index] not in _OPTIONS:
                    index += 1
                excluded = list(split_tokens(words[start:index]))
                if not excluded:
                    raise line.fail("TO ALL BUT needs the powers to leave out")
                all_but = True
                recipients = None
            elif tokens == ("ALL",):
                recipients = None
                all_but = False
                broadcast_verb = True  # PRESS TO ALL is a broadcast
            else:
                if not tokens:
                    raise line.fail("TO needs at least one recipient")
                if "ALL" in tokens or "BUT" in tokens:
                    raise line.fail("write TO ALL BUT followed by the powers to leave out")
                recipients = list(tokens)
            for token in (*(recipients or ()), *excluded):
                if not _TOKEN_RE.fullmatch(token):
                    raise line.fail(f"'{token}' is not a power: name powers (FRANCE), initials (FGR), M for the master")
            continue
        if word in ("GREY", "GRAY", "WHITE"):
            if grey_set:
                raise line.fail("give GREY or WHITE once")
            grey, grey_set = word != "WHITE", True
        elif word == "QUIET":
            if quiet:
                raise line.fail("QUIET is given twice")
            quiet = True
        elif word in ("FAKE", "FROM"):
            raise line.fail(f"{word} (fake press) is not offered by this judge")
        else:
            raise line.fail(f"'{line.args[index]}' is not a press option")
        index += 1
    if recipients is not None and not recipients:
        raise line.fail("TO needs at least one recipient")
    broadcast = recipients is None and not all_but
    return (tuple(recipients) if recipients is not None else None), tuple(excluded), grey, broadcast, quiet


def _press(ctx: ParseContext, line: CommandLine) -> Press:
    broadcast_verb = line.verb.words[0] == "BROADCAST"
    try:
        recipients, excluded, grey, broadcast, quiet = _read_options(line, broadcast_verb)
    except Exception:
        # The header is wrong, but its body must not be read as orders or commands.
        body, _ = ctx.take_body(_PRESS_ENDS, stops_body)
        ctx.set_aside(body)
        raise
    body, _ = ctx.take_body(_PRESS_ENDS, stops_body)
    texts = [b.text for b in body]
    while texts and not texts[0].strip():
        texts.pop(0)
    while texts and not texts[-1].strip():
        texts.pop()
    if not texts:
        raise line.fail(f"{line.verb.words[0]} has no message: write it on the lines after, then ENDPRESS")
    return Press(recipients, grey, broadcast, "\n".join(texts) + "\n", excluded, quiet,
                 tuple(body), source=line.source)


VERBS = (
    Verb(("PRESS",), "PRESS [TO powers | TO ALL BUT powers] [GREY] [QUIET], the message, then ENDPRESS",
         "send a message to some powers (initials FGR or names; M is the master); without TO, to everyone",
         _press, body=True,
         help=(("press", "PRESS TO FG", "to France and Germany (initials or names; M = master)"),
               ("press", "PRESS TO ALL BUT RT", "to everyone but Russia and Turkey"),
               ("press", "PRESS", "to everyone (also PRESS TO ALL)"),)),
    Verb(("BROADCAST",), "BROADCAST [GREY] [QUIET], the message, then ENDPRESS",
         "send a message to every player and observer of the game", _press, body=True,
         help=(("press", "BROADCAST", "to every player and observer"),
               ("press", "    add GREY to hide who sent it (if the game allows), QUIET for no copy back", ""),
               ("press", "...your message...", ""),
               ("press", "ENDPRESS", "ends the message (SIGNOFF or the end of the mail too)"),
               ("press", "PROPOSE PEACE [WITH powers]", "a press line machine players read (RULE PRESS_LEVEL);"),
               ("press", "    also PROPOSE ALLIANCE AGAINST powers, PROPOSE DMZ provinces,", ""),
               ("press", "    PROPOSE ORDER order, PROPOSE DRAW, ACCEPT, REJECT, CANCEL,", ""),
               ("press", "    and DAIDE press text such as PRP (PCE (ENG FRA))", ""),)),
)
