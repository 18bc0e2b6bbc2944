"""The text a player meant, taken out of a MIME mail as mail clients really send it.

* the body is the first text/plain part that is not an attachment (multipart/alternative,
  nested multiparts, PGP/MIME); a mail with only HTML is converted to text;
* any transfer encoding and any charset (a wrong or missing label falls back to UTF-8,
  then Latin-1: decoding never fails); Windows and old-Mac line endings; format=flowed;
* quoted reply lines (``>``) and the attribution line above them are dropped, and so is
  everything after a signature separator (``-- ``) or an Outlook "Original Message"
  separator;
* ASCII-armored OpenPGP blocks are kept intact, line for line; a clearsigned text is
  unwrapped so its commands are read, and kept whole for verification;
* every other part is an :class:`Attachment` holding its exact decoded bytes.

Line numbers are those of the decoded text part, so "line 7" is line 7 of what the
player wrote.  `//` comments are not removed here: PRESS and REVEAL bodies keep them;
the command parser strips them from command and order lines.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from email.message import Message
from email.utils import getaddresses, parseaddr

from .htmltext import html_to_text
from .model import ArmoredBlock, Attachment, SourceLine


@dataclass(frozen=True, slots=True)
class ExtractedMail:
    sender: str
    sender_name: str
    reply_to: str | None
    subject: str
    lines: tuple[SourceLine, ...]  # kept body lines, text as written (no comment stripping)
    armored: tuple[ArmoredBlock, ...]
    attachments: tuple[Attachment, ...]
    charset: str
    notices: tuple[str, ...]


# --- headers -----------------------------------------------------------------------


def _header(message: Message, name: str) -> str:
    """A header as text; malformed headers degrade to their raw form, never raise."""
    try:
        value = message.get(name)
    except Exception:
        value = None
        for key, raw in message.raw_items() if hasattr(message, "raw_items") else []:
            if key.lower() == name.lower():
                value = raw
                break
    if value is None:
        return ""
    try:
        return str(value)
    except Exception:
        return repr(value)


def _address(message: Message, name: str) -> tuple[str, str]:
    raw = _header(message, name)
    try:
        pairs = getaddresses([raw])
    except Exception:
        pairs = [parseaddr(raw)]
    for display, address in pairs:
        if "@" in address:
            return display.strip(), address.strip().lower()
    return "", ""


# --- choosing parts -----------------------------------------------------------------


def _filename(part: Message) -> str | None:
    try:
        return part.get_filename()
    except Exception:
        return None


def _is_attachment(part: Message) -> bool:
    try:
        disposition = (part.get_content_disposition() or "").lower()
    except Exception:
        disposition = ""
    return disposition == "attachment" or _filename(part) is not None


#: How deep multipart parts are followed; deeper ones are not read (and the reply says so).
MAX_MIME_DEPTH = 16


def _leaf_parts(message: Message, notices: list[str]) -> list[Message]:
    """Leaf parts in order, not descending into attached mails (a forwarded mail's
    commands are not the sender's), nor below MAX_MIME_DEPTH."""
    leaves: list[Message] = []

    def visit(part: Message, depth: int) -> None:
        if part.is_multipart() and part.get_content_maintype() != "message":
            if depth >= MAX_MIME_DEPTH:
                notices.append(f"The mail's MIME parts are nested more than {MAX_MIME_DEPTH} deep; "
                               "the deeper parts were not read.")
                return
            payload = part.get_payload()
            for child in payload if isinstance(payload, list) else []:
                if isinstance(child, Message):
                    visit(child, depth + 1)
        else:
            leaves.append(part)

    visit(message, 0)
    return leaves


def _payload_bytes(part: Message) -> bytes:
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if isinstance(data, bytes):
        return data
    raw = part.get_payload()
    if isinstance(raw, str):
        return raw.encode("utf-8", "surrogateescape")
    if isinstance(raw, list):  # message/rfc822 and friends: keep their serialisation
        try:
            return b"".join(m.as_bytes() for m in raw if isinstance(m, Message))
        except Exception:
            return b""
    return b""


def _charset(part: Message) -> str | None:
    try:
        return part.get_content_charset()
    except Exception:
        return None


def _decode(data: bytes, declared: str | None, notices: list[str]) -> tuple[str, str]:
    """Bytes -> text with the declared charset, else UTF-8, else Latin-1 (never fails)."""
    if declared:
        try:
            codecs.lookup(declared)
        except LookupError:
            notices.append(f"The charset '{declared}' is unknown; the text was read as UTF-8.")
            declared = None
    for name in ([declared] if declared else []) + ["utf-8"]:
        try:
            return data.decode(name), name
        except (UnicodeDecodeError, LookupError):
            continue
    if declared:
        notices.append(f"The text is not valid {declared}; unreadable characters were replaced.")
        return data.decode(declared, errors="replace"), declared
    return data.decode("latin-1"), "latin-1"


# --- text clean-up ------------------------------------------------------------------


def _unflow(text: str, delsp: bool) -> str:
    """RFC 3676 format=flowed: a line ending in a space continues on the next one."""
    out: list[str] = []
    pending: str | None = None
    pending_depth = -1
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffing
        if pending is not None and depth != pending_depth:
            out.append(">" * pending_depth + pending)
            pending = None
        flowed = content.endswith(" ") and content != "-- "
        if flowed:
            piece = content[:-1] if delsp else content
            pending = (pending or "") + piece
            pending_depth = depth
        else:
            out.append(">" * depth + (pending or "") + content)
            pending = None
    if pending is not None:
        out.append(">" * pending_depth + pending)
    return "\n".join(out)


_BEGIN_RE = re.compile(r"-----BEGIN (PGP [A-Z0-9 ,/]+?)-----\s*")
_ATTRIBUTION_RE = re.compile(
    r".*\b(wrote|writes|schrieb|escribió|scrisse|schreef|skrev|napisał)\s*:\s*$|.*\ba écrit\s*:\s*$",
    re.IGNORECASE,
)
_UNDERSCORE_RULE_RE = re.compile(r"_{20,}\s*")
_ORIGINAL_RE = re.compile(r"-{3,}\s*(original message|forwarded message|mensaje original|ursprüngliche nachricht)\s*-{3,}\s*", re.IGNORECASE)


def _find_armor(lines: list[str]) -> list[tuple[str, int, int]]:
    """(kind, first index, last index) of each armored block; unterminated blocks are
    not blocks (their lines are ordinary text)."""
    found: list[tuple[str, int, int]] = []
    index = 0
    while index < len(lines):
        match = _BEGIN_RE.fullmatch(lines[index])
        if not match:
            index += 1
            continue
        kind = match[1]
        end_kind = "PGP SIGNATURE" if kind == "PGP SIGNED MESSAGE" else kind
        end_line = f"-----END {end_kind}-----"
        for last in range(index + 1, len(lines)):
            if lines[last].strip() == end_line:
                found.append((kind, index, last))
                index = last + 1
                break
        else:
            index += 1
    return found


def extract(message: Message) -> ExtractedMail:
    """Split a parsed mail into sender, subject, body lines, armored blocks and attachments."""
    notices: list[str] = []
    sender_name, sender = _address(message, "From")
    reply_name, reply_to = _address(message, "Reply-To")
    subject = " ".join(_header(message, "Subject").split())

    body_part: Message | None = None
    html_part: Message | None = None
    attachments: list[Attachment] = []
    leaves = _leaf_parts(message, notices)
    for part in leaves:
        content_type = part.get_content_type()
        maintype = part.get_content_maintype()
        if not _is_attachment(part):
            # A multipart whose boundary is missing arrives as a leaf: read it as text.
            if body_part is None and (content_type == "text/plain" or maintype == "multipart"):
                body_part = part
                if maintype == "multipart":
                    notices.append("The mail's MIME structure is broken; its text was read as plain text.")
                continue
            if content_type == "text/html":
                if html_part is None:
                    html_part = part
                continue
        attachments.append(Attachment(_filename(part), content_type, _payload_bytes(part)))

    text, charset = "", "utf-8"
    if body_part is not None:
        text, charset = _decode(_payload_bytes(body_part), _charset(body_part), notices)
        params = _content_params(body_part)
        flowed = params.get("format") == "flowed"
        delsp = params.get("delsp") == "yes"
    elif html_part is not None:
        html, charset = _decode(_payload_bytes(html_part), _charset(html_part), notices)
        text = html_to_text(html)
        flowed = delsp = False
        notices.append("The mail had no plain-text part; its HTML was converted to text.")
    else:
        flowed = delsp = False
    body = clean_text(text, flowed=flowed, delsp=delsp)
    return ExtractedMail(
        sender=sender,
        sender_name=sender_name,
        reply_to=reply_to or None,
        subject=subject,
        lines=body.lines,
        armored=body.armored,
        attachments=tuple(attachments),
        charset=charset,
        notices=tuple(notices) + body.notices,
    )


@dataclass(frozen=True, slots=True)
class CleanText:
    lines: tuple[SourceLine, ...]
    armored: tuple[ArmoredBlock, ...]
    notices: tuple[str, ...]


def clean_text(text: str, *, flowed: bool = False, delsp: bool = False) -> CleanText:
    """Body text -> the numbered lines the player meant (see the module docstring)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if flowed:
        text = _unflow(text, delsp)
    raw_lines = text.split("\n")
    if raw_lines and raw_lines[-1] == "":
        raw_lines.pop()

    armor = _find_armor(raw_lines)
    protected: set[int] = set()
    for _, first, last in armor:
        protected.update(range(first, last + 1))

    # Everything after a signature or "original message" separator is not the player's.
    cut = len(raw_lines)
    for index, line in enumerate(raw_lines):
        if index in protected:
            continue
        if line == "-- " or _UNDERSCORE_RULE_RE.fullmatch(line) or _ORIGINAL_RE.fullmatch(line.strip()):
            cut = index
            break

    keep = [index in protected or not raw_lines[index].lstrip().startswith(">") for index in range(cut)]
    # The "On <date>, X wrote:" line above a quoted block goes with the quote.
    for index in range(cut):
        if keep[index] or (index and not keep[index - 1]):
            continue
        back = index - 1
        while back >= 0 and raw_lines[back].strip() == "":
            back -= 1
        if back >= 0 and keep[back] and back not in protected and _ATTRIBUTION_RE.fullmatch(raw_lines[back]):
            keep[back] = False

    blocks: list[ArmoredBlock] = []
    unwrap: dict[int, str | None] = {}  # index -> replacement text (None: drop the line)
    for kind, first, last in armor:
        if last >= cut:
            continue
        blocks.append(ArmoredBlock(kind, "\n".join(raw_lines[first : last + 1]) + "\n", first + 1, last + 1))
        if kind == "PGP SIGNED MESSAGE":
            _unwrap_clearsigned(raw_lines, first, last, unwrap)
            # Blocks inside the signed text (a key under SET KEY) are found once unescaped.
            inner = [i for i in range(first, last + 1) if unwrap.get(i) is not None]
            texts = [unwrap[i] or "" for i in inner]
            for inner_kind, a, b in _find_armor(texts):
                blocks.append(ArmoredBlock(inner_kind, "\n".join(texts[a : b + 1]) + "\n", inner[a] + 1, inner[b] + 1))
    blocks.sort(key=lambda block: block.first_line)
    notices = []
    if any(b.kind == "PGP SIGNED MESSAGE" for b in blocks):
        notices.append("The mail is clearsigned; the signed text was read.")

    lines: list[SourceLine] = []
    for index in range(cut):
        if not keep[index]:
            continue
        replacement = unwrap.get(index, raw_lines[index])
        if replacement is not None:
            lines.append(SourceLine(index + 1, replacement))
    return CleanText(tuple(lines), tuple(blocks), tuple(notices))


def _content_params(part: Message) -> dict[str, str]:
    try:
        pairs = part.get_params(failobj=[], header="content-type")[1:]
    except Exception:
        return {}
    return {str(k).lower(): str(v).lower() for k, v in pairs if isinstance(v, str)}


def _unwrap_clearsigned(raw: list[str], first: int, last: int, unwrap: dict[int, str | None]) -> None:
    """Drop the armor and hash headers and the signature; undo dash-escaping of the text."""
    unwrap[first] = None
    index = first + 1
    while index <= last and raw[index].strip():  # "Hash: SHA256" headers up to a blank line
        unwrap[index] = None
        index += 1
    if index <= last:
        unwrap[index] = None  # the blank line after the headers
        index += 1
    signature_start = last + 1
    for probe in range(index, last + 1):
        if raw[probe].strip() == "-----BEGIN PGP SIGNATURE-----":
            signature_start = probe
            break
    for probe in range(index, signature_start):
        line = raw[probe]
        unwrap[probe] = line[2:] if line.startswith("- ") else line
    for probe in range(signature_start, last + 1):
        unwrap[probe] = None


def extract_text(text: str, attachments: tuple[Attachment, ...] = ()) -> ExtractedMail:
    """The same clean-up for a plain string (tests, and text already out of a mail)."""
    body = clean_text(text)
    return ExtractedMail("", "", None, "", body.lines, body.armored, tuple(attachments), "utf-8", body.notices)
