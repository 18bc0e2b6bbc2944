"""The judge's own key pair: found in its GnuPG home, or generated there on first start."""

from __future__ import annotations

import os
from pathlib import Path

from judge.crypto.gpg import GpgError, Keyring
from judge.crypto.verdict import normalize_fingerprint

HOME_NAME = "gnupg"


def judge_home(data_dir: str | os.PathLike[str], configured_home: str | None = None) -> Path:
    """The judge's GNUPGHOME: the configured one, else ``<data_dir>/gnupg``."""
    return Path(configured_home) if configured_home else Path(data_dir) / HOME_NAME


def open_judge_keyring(
    home: str | os.PathLike[str],
    *,
    name: str,
    address: str,
    fingerprint: str | None = None,
) -> tuple[Keyring, str]:
    """Open the judge's keyring and return it with the judge's signing fingerprint.

    With ``fingerprint`` configured, that secret key must be present.  Otherwise the one
    secret key in the home is used, or, in a home without one, a key pair for
    ``name <address>`` is generated (first start).  Several secret keys and no configured
    fingerprint is an error: the judge would not know which to sign with.
    """
    keyring = Keyring(home)
    secrets = keyring.fingerprints(secret=True)
    if fingerprint:
        wanted = normalize_fingerprint(fingerprint)
        if wanted not in secrets:
            keyring.close()
            raise GpgError(
                f"the configured judge key {wanted} has no secret key in {keyring.home}; "
                f"secret keys there: {', '.join(secrets) or 'none'}"
            )
        return keyring, wanted
    if len(secrets) == 1:
        return keyring, secrets[0]
    if len(secrets) > 1:
        keyring.close()
        raise GpgError(
            f"{keyring.home} holds {len(secrets)} secret keys ({', '.join(secrets)}); configure "
            "which one the judge signs with"
        )
    return keyring, keyring.generate_key(name, address)
