"""Signed protocol mail between a game master judge and the witness of a blinded assignment.

A sender address proves nothing, so mail between the two parties of RULE BLIND_ASSIGN is
signed PGP/MIME (RFC 3156) with the sending judge's key, and carries that public key as
``judge-key.asc`` inside the signed part.  The receiver pins the first key it accepts for
a run (the witness at ``SHUFFLE``, the game master at the witness's first mail) and from
then on takes only mail signed by it: unsigned mail, a bad signature or another key is
refused, whatever its From says.  A person acting as witness signs with their own key the
same way (their mail program's PGP/MIME signing, with the public key attached).
"""

from __future__ import annotations

from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import Message

from judge.config import JudgeSettings
from judge.crypto.gpg import KeyImportError, Keyring, scratch_home
from judge.crypto.pgpmime import sign_message, verify_message
from judge.mailio.read import leaf_bytes
from judge.mailio.outgoing import OutgoingMail
from judge.publish.signing import FileAttachment, compose, judge_keyring

KEY_FILE = "judge-key.asc"
PEER = "no"  # Auto-Submitted of protocol mail: the other judge must act on it


@dataclass(frozen=True)
class PeerCheck:
    """The verdict on a peer's mail: ``fingerprint`` and ``key`` (armored) of the signer when
    ``valid``; ``reason`` says why not otherwise."""

    valid: bool
    reason: str
    fingerprint: str | None = None
    key: str | None = None


def signed_peer_mail(judge: JudgeSettings, recipient: str, subject: str, body: str, *, kind: str,
                     game_id: int | None = None) -> OutgoingMail:
    """Protocol mail to the other party, signed with this judge's key (made on first use,
    as ``judge serve`` does) and carrying its public key."""
    with judge_keyring(judge, create=True) as key:
        assert key is not None
        armored = key.keyring.export_public_key(key.fingerprint)
        content = compose(body, [FileAttachment(KEY_FILE, armored.encode("ascii"), "application/pgp-keys")])
        mime = sign_message(key.keyring, content, key.fingerprint)
    return OutgoingMail(recipients=(recipient,), subject=subject, body=body, kind=kind, game_id=game_id,
                        auto_submitted=PEER, mime=mime)


def _carried_key(raw: bytes) -> str | None:
    message = message_from_bytes(raw, policy=policy.default)
    parts = message.get_payload() if message.is_multipart() else []
    if not isinstance(parts, list) or not parts:
        return None
    signed = parts[0]  # a multipart's parts are messages
    if not isinstance(signed, Message):
        return None
    for part in signed.walk():
        if part.get_filename() == KEY_FILE or part.get_content_type() == "application/pgp-keys":
            return leaf_bytes(part).decode("ascii", "replace")
    return None


def check_peer_mail(raw: bytes, pinned_key: str | None) -> PeerCheck:
    """Is ``raw`` PGP/MIME signed by the pinned key (armored), or, with none pinned yet, by
    the key the mail carries inside its signed part?"""
    if message_from_bytes(raw, policy=policy.default).get_content_type() != "multipart/signed":
        return PeerCheck(False, "not signed: protocol mail must be PGP/MIME signed by the sending judge's key")
    key = pinned_key or _carried_key(raw)
    if not key:
        return PeerCheck(False, f"the signed mail carries no public key ({KEY_FILE}) to check it with")
    with scratch_home("peer") as home, Keyring(home) as keyring:
        try:
            fingerprint = keyring.import_public_key(key)
        except KeyImportError as problem:
            return PeerCheck(False, f"the key it carries cannot be read: {problem}")
        checked = verify_message(keyring, raw, fingerprint)
    if not checked.valid:
        expected = "the key pinned for this run" if pinned_key else "the key it carries"
        return PeerCheck(False, f"signature refused ({expected}, {fingerprint}): {checked.verdict.reason}")
    return PeerCheck(True, checked.verdict.reason, fingerprint, key)
