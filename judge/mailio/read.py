"""Reading a stored mail into a message, within bounds a hostile mail cannot push.

The email package's parser holds every line of a mail as a string while it parses, and
the command extractor keeps a value per body line: a 10 MB mail of ``HELP`` lines took
the worker to 430 MB of memory.  So only the first ``READ_LIMIT_BYTES`` of a mail are
parsed (cut at a line end); the rest is not read, and the reply says so.  No command
mail comes near that size: the limit only bounds what a flood can cost.

The parser's time grows with the square of the MIME nesting (each line is checked
against every open boundary, and each boundary compiles a regular expression): a mail
nested 1,000 deep, 100 KB long, took 2.5 s of the only worker.  A mail declaring more
than ``MAX_BOUNDARIES`` multipart boundaries is read for its headers only; the command
extractor follows no more than 16 levels in any case.
"""

from __future__ import annotations

import email
import re
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser

from judge.mailio.policy import POLICY

#: How much of a mail is parsed; what follows is not read.
READ_LIMIT_BYTES = 1024 * 1024
#: More multipart boundaries than this, and the body is not parsed.
MAX_BOUNDARIES = 64
_BOUNDARY = re.compile(rb"(?i)boundary\s*=")


def headers_of(raw: bytes) -> EmailMessage:
    """``raw``'s header block alone, as a message with an empty body."""
    message = BytesHeaderParser(policy=POLICY).parsebytes(raw[:READ_LIMIT_BYTES])
    message.set_payload("")
    assert isinstance(message, EmailMessage)
    return message


def leaf_bytes(part: Message) -> bytes:
    """A leaf part's payload, its transfer encoding undone (b"" when it has none)."""
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


def read_message(raw: bytes) -> tuple[EmailMessage, str | None]:
    """The message of ``raw`` and why part of it was not read (None when all of it was)."""
    problems = []
    if len(raw) > READ_LIMIT_BYTES:
        line_end = raw.rfind(b"\n", 0, READ_LIMIT_BYTES)
        raw = raw[: line_end + 1 if line_end > 0 else READ_LIMIT_BYTES]
        problems.append(f"it is longer than the {READ_LIMIT_BYTES // 1024:,} KB of a mail the judge reads, "
                        "so what follows them was not read")
    if len(_BOUNDARY.findall(raw)) > MAX_BOUNDARIES:
        message = headers_of(raw)
        problems.append(f"its MIME parts are too many or nested too deep to read (more than {MAX_BOUNDARIES} "
                        "multiparts), so nothing in it was read")
    else:
        try:
            message = email.message_from_bytes(raw, policy=POLICY)
        except RecursionError:  # MIME parts nested deeper than the parser can follow
            message = headers_of(raw)
            problems.append("its MIME parts are nested too deep to read, so nothing in it was read")
    assert isinstance(message, EmailMessage)
    return message, "; and ".join(problems) or None
