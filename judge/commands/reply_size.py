"""How big one reply may grow, so that a small mail cannot make the judge send a large one.

A reply's files (MAP's pictures) total at most AMPLIFICATION times the size of the mail
asking for them; the first file set is sent whatever its size (a MAP line must get its
picture: a picture weighs more than twenty short mails).  The text is cut at
MAX_REPLY_CHARS characters or MAX_TEXT_BYTES once encoded, the files at MAX_FILE_BYTES
encoded, so that no reply passes MAX_REPLY_BYTES.
"""

from __future__ import annotations

from typing import Sequence

from judge.mailio.inbound import CommandRefused
from judge.publish.signing import FileAttachment

MAX_REPLY_BYTES = 1_000_000
#: A reply's files weigh at most this many times the mail that asked for them.
AMPLIFICATION = 20
#: The longest reply text, in characters and in bytes as sent (quoted-printable).
MAX_REPLY_CHARS = 200_000
MAX_TEXT_BYTES = 240_000
#: What the headers and the MIME parts' own lines may take.
MIME_ALLOWANCE = 20_000
MAX_FILE_BYTES = MAX_REPLY_BYTES - MAX_TEXT_BYTES - MIME_ALLOWANCE


def base64_size(data: bytes) -> int:
    """Bytes of ``data`` as a base64 part: 4 for every 3, lines of 76 and their CRLF."""
    encoded = 4 * -(-len(data) // 3)
    return encoded + 2 * -(-encoded // 76)


_PLAIN_BYTES = bytes(range(32, 127)) + b"\n"  # one byte each in quoted-printable


def text_size(text: str) -> int:
    """Bytes of ``text`` as quoted-printable UTF-8 (an upper bound: every byte that is not
    printable ASCII is three, and a soft line break every 75)."""
    raw = text.encode("utf-8")
    other = len(raw.translate(None, _PLAIN_BYTES))  # what is left once the plain bytes are deleted
    encoded = len(raw) + 2 * other
    return encoded + 3 * (encoded // 75)


#: No picture weighs less than this as sent: a MAP line whose picture surely will not fit
#: is refused before it is drawn (drawing is the costly part).
SMALLEST_PICTURE = 20_000


def encoded_size(files: Sequence[FileAttachment]) -> int:
    return sum(base64_size(item.data) for item in files)


def admit_files(mail_size: int, attached: Sequence[FileAttachment], adding: int) -> None:
    """Refuse ``adding`` bytes of files (as sent) to a reply already carrying ``attached``
    when together they would pass what a mail of ``mail_size`` bytes may ask for."""
    carried = encoded_size(attached)
    limit = min(MAX_FILE_BYTES, AMPLIFICATION * mail_size) if attached else MAX_FILE_BYTES
    if carried + adding > limit:
        raise CommandRefused(
            f"not attached: a reply's files may weigh at most {AMPLIFICATION} times the mail asking for them "
            f"({_kb(AMPLIFICATION * mail_size)} for this one's {_kb(mail_size)}, and {_kb(MAX_FILE_BYTES)} at "
            f"most), and this reply carries {_kb(carried)} already; ask for this one in another mail")


def _kb(size: int) -> str:
    return f"{size / 1000:,.0f} kB" if size >= 1000 else f"{size} bytes"


def bounded(body: str) -> str:
    """``body``, cut at MAX_REPLY_CHARS characters or MAX_TEXT_BYTES as sent, with a line
    that says so."""
    if len(body) <= MAX_REPLY_CHARS and text_size(body) <= MAX_TEXT_BYTES:
        return body
    cut = min(len(body), MAX_REPLY_CHARS)
    while text_size(body[:cut]) > MAX_TEXT_BYTES - 400:  # room for the note
        cut = cut * 3 // 4
    cut = body.rfind("\n", 0, cut) + 1 or cut
    return (body[:cut] + f"\n[The reply was cut here: it would have been {len(body):,} characters, and a reply "
            f"is at most {MAX_REPLY_CHARS:,} ({MAX_TEXT_BYTES // 1000:,} kB as sent). Ask for less in one mail.]\n")
