"""The cryptographic layer: keys, signatures, sealed-order commitments, PGP/MIME and the
last-number escrow, all over the real ``gpg`` (python-gnupg).

The names other packages use are re-exported here.
"""

from judge.crypto.armor import ArmorError, dearmor, enarmor
from judge.crypto.commitments import (
    CommitmentFormatError,
    check_commitment,
    read_number,
    salted_bytes,
    sha256_commitment,
    signed_variant,
    split_salted,
    verify_reveal,
    verify_sha256_reveal,
)
from judge.crypto.escrow import (
    EscrowError,
    EscrowLayer,
    EscrowPeeling,
    accept_peeled,
    build_escrow,
    mark_vanished,
    peel_layer,
    peel_step,
    start_peeling,
    whom_to_ask,
)
from judge.crypto.gpg import GpgError, KeyImportError, Keyring, agent_pids, stop_agents
from judge.crypto.pgpmime import MimeVerdict, sign_message, verify_message
from judge.crypto.verdict import Verdict, normalize_fingerprint

__all__ = [
    "ArmorError", "CommitmentFormatError", "EscrowError", "EscrowLayer", "EscrowPeeling", "GpgError",
    "KeyImportError", "Keyring", "MimeVerdict", "Verdict", "accept_peeled", "agent_pids", "build_escrow",
    "check_commitment", "dearmor", "enarmor", "mark_vanished", "normalize_fingerprint", "peel_layer",
    "peel_step", "read_number", "salted_bytes", "sha256_commitment", "sign_message", "signed_variant",
    "split_salted", "start_peeling", "stop_agents", "verify_message", "verify_reveal",
    "verify_sha256_reveal", "whom_to_ask",
]
