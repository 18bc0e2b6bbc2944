"""The cryptographic layer: keys, signatures, sealed-order commitments, PGP/MIME and the
last-number escrow, all over the real ``gpg`` (python-gnupg).

Import the concepts from here: ``Keyring``, ``Verdict``, ``check_commitment``,
``verify_reveal``, ``sign_message`` / ``verify_message`` (PGP/MIME), ``peel_step`` ...
"""
