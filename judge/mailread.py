"""Reading a stored mail into a message, within bounds a hostile mail cannot push.

The email package's parser holds every line of a mail as a string while it parses, and
the command extractor keeps a value per body line: a 10 MB mail of ``HELP`` lines took
the worker to 430 MB of memory.  So only the first ``READ_LIMIT_BYTES`` of a mail are
parsed (cut at a line end); the rest is not read, and the reply says so.  No command
mail comes near that size: the limit only bounds what a flood can cost.
"""

from __future__ import annotations

import email
from email.message import EmailMessage
from email.parser import BytesHeaderParser

from judge.mailpolicy import POLICY

#: How much of a mail is parsed; what follows is not read.
READ_LIMIT_BYTES = 1024 * 1024


def headers_of(raw: bytes) -> EmailMessage:
    """``raw``'s header block alone, as a message with an empty body."""
    message = BytesHeaderParser(policy=POLICY).parsebytes(raw[:READ_LIMIT_BYTES])
    message.set_payload("")
    assert isinstance(message, EmailMessage)
    return message


def read_message(raw: bytes) -> tuple[EmailMessage, str | None]:
    """The message of ``raw`` and why part of it was not read (None when all of it was)."""
    problems = []
    if len(raw) > READ_LIMIT_BYTES:
        line_end = raw.rfind(b"\n", 0, READ_LIMIT_BYTES)
        raw = raw[: line_end + 1 if line_end > 0 else READ_LIMIT_BYTES]
        problems.append(f"it is longer than the {READ_LIMIT_BYTES // 1024:,} KB of a mail the judge reads, "
                        "so what follows them was not read")
    try:
        message = email.message_from_bytes(raw, policy=POLICY)
    except RecursionError:  # MIME parts nested deeper than the parser can follow
        message = headers_of(raw)
        problems.append("its MIME parts are nested too deep to read, so nothing in it was read")
    assert isinstance(message, EmailMessage)
    return message, "; and ".join(problems) or None
