"""Should the judge answer this mail at all?  Pure: headers in, a reason (or None) out.

Answering robots makes mail loops.  RFC 3834 (Auto-Submitted), RFC 2919 (List-Id),
the Precedence convention and the null return path of bounces (RFC 5321 4.5.5) say
which mail comes from a robot.
"""

from __future__ import annotations

from email.message import EmailMessage
from typing import Iterable

from judge.mailio.addresses import parsed_address

_BULK_PRECEDENCE = frozenset({"bulk", "list", "junk"})
_BOUNCE_LOCALPARTS = frozenset({"mailer-daemon"})


def _address(text: str | None) -> str:
    return parsed_address(text or "")[1].strip().lower()


def _header(message: EmailMessage, name: str) -> str | None:
    try:
        value = message.get(name)
    except Exception:  # a malformed header is still a header for this purpose: its raw text
        # (get_all would parse it again, and raise again: an encoded CR LF in an address)
        value = next((raw for key, raw in message.raw_items() if key.lower() == name.lower()), None)
    return None if value is None else str(value)


def is_list_traffic(reason: str | None) -> bool:
    """Did :func:`no_reply_reason` refuse a reply only because a mailing list passed the
    mail on (List-Id, ``Precedence: list``)?  Such mail came from a person through the list,
    unlike a bounce, an auto-reply or the judge's own mail."""
    return reason is not None and (reason.startswith(_LIST_REASON) or reason.lower() == "precedence: list")


_LIST_REASON = "mailing-list mail"


def no_reply_reason(message: EmailMessage, envelope_sender: str | None,
                    judge_addresses: Iterable[str]) -> str | None:
    """Why no reply may be sent to ``message``, or None when one may.

    ``envelope_sender`` is the SMTP MAIL FROM ("" for a bounce), or None when unknown
    (IMAP), in which case the Return-Path header stands in for it.
    """
    own = {a.strip().lower() for a in judge_addresses if a.strip()}
    if envelope_sender is None:
        return_path = _header(message, "Return-Path")
        envelope_sender = None if return_path is None else _address(return_path)
    if envelope_sender is not None:
        sender = _address(envelope_sender) if envelope_sender.strip() not in ("", "<>") else ""
        if sender == "":
            return "bounce: empty return path"
        if sender.split("@")[0] in _BOUNCE_LOCALPARTS:
            return f"bounce: return path {sender}"
        if sender in own:
            return f"sent by the judge itself ({sender})"
    from_address = _address(_header(message, "From"))
    if from_address.split("@")[0] in _BOUNCE_LOCALPARTS:
        return f"bounce: from {from_address}"
    if from_address in own:
        return f"sent by the judge itself ({from_address})"
    auto_submitted = _header(message, "Auto-Submitted")
    if auto_submitted is not None:
        keyword = auto_submitted.split(";")[0].strip().lower()
        if keyword != "no":
            return f"Auto-Submitted: {auto_submitted.strip()}"
    precedence = _header(message, "Precedence")
    if precedence is not None and precedence.strip().lower() in _BULK_PRECEDENCE:
        return f"Precedence: {precedence.strip()}"
    list_id = _header(message, "List-Id")
    if list_id is not None:
        return f"{_LIST_REASON} (List-Id: {list_id.strip()})"
    if message.get_content_type() == "multipart/report":
        return "delivery or disposition report (multipart/report)"
    return None
