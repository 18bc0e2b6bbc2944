"""The machinery every command family uses: verbs, command lines, the parse context.

A family module defines its command classes and a ``VERBS`` tuple of :class:`Verb`;
each verb's ``parse`` turns one :class:`CommandLine` into a command, consuming further
lines through the :class:`ParseContext` when the command has a body (PRESS, REVEAL,
SET KEY, CREATE), or raises :class:`CommandSyntaxError` with a message that says what
would be accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .model import MASK, ArmoredBlock, Attachment, Command, LineError, SourceLine, quote


class CommandSyntaxError(ValueError):
    """A command line that does not fit its verb's syntax; the message is for the player."""


_COMMENT_RE = re.compile(r"(?:^|(?<=\s))//.*$")

#: Longest command or order line read (press and reveal bodies are not limited).
MAX_COMMAND_LINE = 1000
#: The work one mail may ask for: commands (a run of order lines is one), and command or
#: order lines read.  The rest of a longer mail is set aside, and the reply says so: one
#: mail must not cost everyone else their service, nor mail a flood to whatever address
#: its From names.
MAX_COMMANDS_PER_MAIL = 100
MAX_LINES_PER_MAIL = 500


def strip_comment(text: str) -> str:
    """Remove a `//` comment (at the start or after a blank: URLs keep their //)."""
    return _COMMENT_RE.sub("", text).strip()


@dataclass(frozen=True, slots=True)
class Verb:
    """One command word (or words) and how to read it.

    ``secret_args`` are the argument positions (0 = first word after the verb) that are
    passwords: they are masked in every quoted line.  ``opens_session`` verbs (SIGNON,
    JOIN, CREATE, ...) start a part of the mail in which other lines are orders.
    ``body`` verbs read following lines, so they are never taken from the Subject.
    ``help`` are the verb's rows on the HELP page, in the command rows of grammar.md and of
    README (all three generated from them by mailcmds/help_page.py): ``(section, form,
    meaning)``, a row with an empty form continuing the one above; a row with neither
    form nor meaning puts the verb in the section without a line of its own (RESUME is on
    PAUSE's).  ``in_subject`` verbs
    may be given as a mail's Subject.
    ``family`` is the name of the command module that declares the verb (set by the
    registry).  Who may give a command is its handler's (judge/commands), not the verb's.
    """

    words: tuple[str, ...]
    syntax: str
    meaning: str
    parse: Callable[["ParseContext", "CommandLine"], Command]
    family: str = ""
    secret_args: tuple[int, ...] = ()
    opens_session: bool = False
    body: bool = False
    aliases: tuple[tuple[str, ...], ...] = ()
    help: tuple[tuple[str, str, str], ...] = ()
    in_subject: bool = False


@dataclass(frozen=True, slots=True)
class CommandLine:
    """A line whose first word(s) name a verb; ``words`` keep the player's case."""

    number: int
    text: str
    words: tuple[str, ...]
    verb: Verb
    verb_length: int

    @property
    def args(self) -> tuple[str, ...]:
        return self.words[self.verb_length :]

    @property
    def masked_text(self) -> str:
        return mask_words(self.text, self.words, self.verb_length, self.verb.secret_args)

    @property
    def source(self) -> SourceLine:
        return SourceLine(self.number, self.masked_text)

    def fail(self, message: str) -> CommandSyntaxError:
        """An error that ends with the verb's syntax, so the player sees what is accepted."""
        return CommandSyntaxError(f"{message}; write {self.verb.syntax}")


def mask_words(text: str, words: tuple[str, ...], verb_length: int, secret_args: Iterable[int]) -> str:
    """The line with every word from the first secret argument on replaced by :data:`MASK`
    (a password written as two words is still a password)."""
    positions = list(secret_args)
    if not positions or verb_length + min(positions) >= len(words):
        return text
    first = verb_length + min(positions)
    return " ".join(MASK if i >= first else w for i, w in enumerate(words))


@dataclass
class ParseContext:
    """Mutable state of one mail's parse: the line cursor, blocks, attachments, errors."""

    lines: tuple[SourceLine, ...]
    armored: tuple[ArmoredBlock, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    position: int = 0
    errors: list[LineError] = field(default_factory=list)
    unprocessed: list[SourceLine] = field(default_factory=list)
    used_attachments: set[int] = field(default_factory=set)
    used_blocks: set[int] = field(default_factory=set)

    # -- the cursor ------------------------------------------------------------------
    def peek(self) -> SourceLine | None:
        return self.lines[self.position] if self.position < len(self.lines) else None

    def advance(self) -> SourceLine:
        line = self.lines[self.position]
        self.position += 1
        return line

    def block_at(self, line_number: int) -> ArmoredBlock | None:
        for block in self.armored:
            if block.first_line == line_number:
                return block
        return None

    def skip_block(self, block: ArmoredBlock) -> list[SourceLine]:
        """Advance past the lines of ``block`` (the cursor is on its first line)."""
        skipped = []
        while (line := self.peek()) is not None and line.number <= block.last_line:
            skipped.append(self.advance())
        self.used_blocks.add(block.first_line)
        return skipped

    def take_block(self, kinds: Iterable[str]) -> ArmoredBlock | None:
        """If the next non-blank line starts an armored block of one of ``kinds``,
        consume it and return it."""
        wanted = set(kinds)
        index = self.position
        while index < len(self.lines) and not self.lines[index].text.strip():
            index += 1
        if index >= len(self.lines):
            return None
        block = self.block_at(self.lines[index].number)
        if block is None or block.kind not in wanted:
            return None
        self.position = index
        self.skip_block(block)
        return block

    def take_body(
        self, terminators: Iterable[str], stop: Callable[[SourceLine], bool] = lambda line: False
    ) -> tuple[list[SourceLine], str | None]:
        """Lines up to a lone terminator word (consumed), a line ``stop`` accepts (left
        for the main loop) or the end of the mail; returns them with what ended them."""
        ends = {t.upper() for t in terminators}
        body: list[SourceLine] = []
        while (line := self.peek()) is not None:
            words = strip_comment(line.text).upper().split()
            first = words[0] if words else ""
            if stop(line):
                return body, first
            self.advance()
            # "ENDPRESS" alone, or the common "END PRESS": a missed end would leak the rest.
            if len(words) in (1, 2) and "".join(words) in ends:
                return body, "".join(words)
            body.append(line)
        return body, None

    # -- attachments -------------------------------------------------------------------
    def claim_attachment(self, accept: Callable[[Attachment], bool]) -> Attachment | None:
        """The first attachment not yet used by a command that ``accept`` likes."""
        for index, attachment in enumerate(self.attachments):
            if index not in self.used_attachments and accept(attachment):
                self.used_attachments.add(index)
                return attachment
        return None

    def take_pasted_or_attached(
        self, kinds: Iterable[str], accept: Callable[[Attachment], bool]
    ) -> tuple[str | None, Attachment | None] | None:
        """A command's armored data: a block of one of ``kinds`` pasted below it, as
        (text, None), else an attachment ``accept`` likes, as (None, attachment); None
        when the mail has neither."""
        block = self.take_block(kinds)
        if block is not None:
            return block.text, None
        attachment = self.claim_attachment(accept)
        if attachment is not None:
            return None, attachment
        return None

    # -- reporting ---------------------------------------------------------------------
    def error(self, line_no: int, text: str, message: str) -> None:
        self.errors.append(LineError(line_no, quote(text), message))

    def set_aside(self, lines: Iterable[SourceLine]) -> None:
        self.unprocessed.extend(line for line in lines if line.text.strip())


def expect_count(line: CommandLine, low: int, high: int | None, what: str) -> tuple[str, ...]:
    """The arguments, if there are between ``low`` and ``high`` of them."""
    args = line.args
    if len(args) < low:
        raise line.fail(f"{' '.join(line.verb.words)} needs {what}")
    if high is not None and len(args) > high:
        secret_from = min(line.verb.secret_args, default=len(args))
        extra = " ".join(MASK if high + i >= secret_from else w for i, w in enumerate(args[high:]))
        raise line.fail(f"unexpected '{extra}' after {' '.join(line.verb.words)}")
    return args


def no_args(line: CommandLine) -> None:
    if line.args:
        raise line.fail(f"{' '.join(line.verb.words)} takes nothing after it, but got '{' '.join(line.args)}'")
