"""The values every part of mailcmds shares: source lines, attachments, commands, errors.

A parsed mail is data only: the command handlers (judge/commands) decide what each command means for a
game (who may do it, whether the game exists).  Everything here is frozen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

#: What replaces a password wherever a line is quoted back (fixed length: leaks nothing).
MASK = "******"

#: Longest excerpt of a line quoted in an error message.
QUOTE_LIMIT = 200


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A line shortened for quoting in an error: huge lines are cut, never echoed whole."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class SourceLine:
    """One line of the mail as the player wrote it.

    ``number`` counts the lines of the text part from 1 (0 is the Subject header), so
    a reply can say "line 7" and mean what the player sees in the sent mail.  ``text``
    has `//` comments and surrounding blanks removed and passwords masked; body lines of
    PRESS and REVEAL keep their text exactly.
    """

    number: int
    text: str


@dataclass(frozen=True, slots=True)
class Attachment:
    """A MIME part that is not the text the player typed; ``data`` is the exact decoded bytes."""

    filename: str | None
    content_type: str
    data: bytes

    @property
    def suffix(self) -> str:
        """The lower-case file extension with its dot (``".asc"``), or ``""``."""
        name = (self.filename or "").lower()
        dot = name.rfind(".")
        return name[dot:] if dot > 0 else ""


@dataclass(frozen=True, slots=True)
class ArmoredBlock:
    """An ASCII-armored OpenPGP block found inline, kept with its exact line structure.

    ``kind`` is the word(s) between BEGIN and the dashes: ``"PGP SIGNATURE"``,
    ``"PGP PUBLIC KEY BLOCK"``, ``"PGP MESSAGE"``, ``"PGP SIGNED MESSAGE"`` (a
    clearsigned text, whose block runs to the end of its signature).  ``text`` is the
    lines from BEGIN to END joined with ``"\\n"`` plus a final newline.
    """

    kind: str
    text: str
    first_line: int
    last_line: int


@dataclass(frozen=True, slots=True)
class LineError:
    """A line the judge could not accept, and what it would accept instead.

    ``text`` quotes the offending line (passwords masked, very long lines cut).
    """

    line_no: int
    text: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line_no}: {self.text!r}: {self.message}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """Base of every typed command; ``source`` is the (masked) line that gave it.

    ``answered_once``: an information request, answered once per mail and sign-on (a
    repeat is set aside); ``ends_reading``: the rest of the mail is not read (SIGNOFF);
    ``opens_session``: it says whom the following lines speak for (SIGNON, JOIN, CREATE;
    its verb is declared ``opens_session`` too, for a line that does not parse)."""

    answered_once: ClassVar[bool] = False
    opens_session: ClassVar[bool] = False
    ends_reading: ClassVar[bool] = False
    source: SourceLine

    def names_signed_on_game(self) -> bool:
        """Whether the command means the signed-on game without naming one (SUMMARY
        alone): not whole on its own, so not one a Subject can give."""
        return False


@dataclass(frozen=True, slots=True)
class ParsedMail:
    """Everything a mail asked for, in the order it was written.

    ``commands`` holds the good commands even when ``errors`` is not empty: a mail with
    one bad line loses nothing else.  ``unprocessed`` lists the lines deliberately not
    read (after SIGNOFF, the body of a malformed PRESS, a stray armored block).
    ``notices`` are remarks about the mail itself (HTML converted, unknown charset)
    worth repeating in the reply.
    """

    sender: str
    sender_name: str
    reply_to: str | None
    subject: str
    commands: tuple[Command, ...]
    errors: tuple[LineError, ...]
    unprocessed: tuple[SourceLine, ...]
    attachments: tuple[Attachment, ...] = ()
    armored: tuple[ArmoredBlock, ...] = ()
    body_charset: str = "utf-8"
    notices: tuple[str, ...] = field(default=())

    @property
    def has_errors(self) -> bool:
        return bool(self.errors)

    @property
    def resign_allowed(self) -> bool:
        """RESIGN is refused whole when the mail has any error (it cannot be undone)."""
        return not self.errors

    def of_type(self, kind: type) -> tuple[Command, ...]:
        """The commands of one class, in mail order."""
        return tuple(c for c in self.commands if isinstance(c, kind))
