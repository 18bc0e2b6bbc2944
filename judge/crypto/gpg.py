"""A keyring: one GNUPGHOME driven through python-gnupg over the real ``gpg``.

The judge keeps one keyring in its data directory (its own key pair plus the players'
public keys); each player tool works on the player's own home.  Every operation that can
fail raises :class:`GpgError` with gpg's own status text, except signature checks, which
return a :class:`Verdict` because a bad signature is an outcome, not an error.

Several processes may use one home at once (two daemons, worker processes, ``judge
tick``), and they share its gpg-agent.  Each open ``Keyring`` holds a shared ``flock``
on ``<home>/.keyring-users.lock``; closing one stops the agent only when it can take that
lock exclusively, i.e. when no other keyring on the home is open in any process.  A
signature that fails anyway (an agent stopped by hand, a restart race) is tried again.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

import gnupg

from judge.crypto.armor import ArmorError, dearmor, enarmor
from judge.crypto.packets import (
    TAG_PUBLIC_KEY,
    TAG_SECRET_KEY,
    TAG_SECRET_SUBKEY,
    PacketError,
    key_packet_tags,
)
from judge.crypto.verdict import Verdict, normalize_fingerprint

log = logging.getLogger("judge.gpg")

# gpg-agent's socket lives under the home; Unix socket paths stop at 108 bytes.
MAX_HOME_LENGTH = 80
#: The file whose shared locks count the keyrings open on a home (see the module doc).
USERS_LOCK = ".keyring-users.lock"
#: Attempts of one signature, and the pause before each retry (the agent restarting).
SIGN_ATTEMPTS = 3
SIGN_RETRY_PAUSE_SECONDS = 0.2


class GpgError(RuntimeError):
    """A gpg operation failed; the message carries gpg's status."""


class KeyImportError(ValueError):
    """A key block a player sent cannot be registered; the message says why and what to send."""


@dataclass(frozen=True)
class Opened:
    """What :meth:`Keyring.open` got out of a message: the inner bytes, whether it had to be
    decrypted, and the verdict on its signature when it was signed (else ``None``)."""

    data: bytes
    decrypted: bool
    signature: Verdict | None


class Keyring:
    """One GnuPG home.  Fingerprints are returned upper-case without spaces; ``close()``
    (or leaving a ``with`` block) stops the gpg-agent the operations started."""

    def __init__(self, home: str | os.PathLike[str], *, gpg_binary: str = "gpg") -> None:
        self.home = Path(home).absolute()
        if len(str(self.home.resolve())) > MAX_HOME_LENGTH:
            raise ValueError(
                f"GnuPG home {str(self.home)!r} is too long ({len(str(self.home))} characters): "
                f"gpg-agent cannot open its socket; use a path of at most {MAX_HOME_LENGTH} "
                "characters, e.g. from tempfile.mkdtemp(dir='/tmp')"
            )
        self.home.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._users = _HomeUse(self.home)
        self._binary = gpg_binary
        self._listing: list[dict] | None = None  # cached public key list; reset on change
        self._gpg = gnupg.GPG(
            gpgbinary=gpg_binary,
            gnupghome=str(self.home),
            options=["--pinentry-mode", "loopback"],
            encoding="utf-8",
        )

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the gpg-agent (and dirmngr) of this home, unless another keyring on it is
        open (in this process or another): that one is still using the agent."""
        self._users.leave(lambda: stop_agents(self.home))

    def __enter__(self) -> "Keyring":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- keys -----------------------------------------------------------------------------
    def import_public_key(self, armored: str | bytes) -> str:
        """Import one armored public key; returns its primary fingerprint."""
        try:
            block = dearmor(armored)
        except ArmorError as exc:
            raise KeyImportError(f"cannot read the key: {exc}") from None
        if "PRIVATE" in block.label or "SECRET" in block.label:
            raise KeyImportError(
                "this is a SECRET key block: never send it to anyone. Send your public key, "
                "made with: gpg --armor --export YOUR-ADDRESS"
            )
        if block.label != "PUBLIC KEY BLOCK":
            raise KeyImportError(
                f"found a 'PGP {block.label}' block; expected '-----BEGIN PGP PUBLIC KEY BLOCK-----' "
                "as made by: gpg --armor --export YOUR-ADDRESS"
            )
        try:
            tags = key_packet_tags(block.data)
        except PacketError as exc:
            raise KeyImportError(f"the key block is damaged: {exc}") from None
        if TAG_SECRET_KEY in tags or TAG_SECRET_SUBKEY in tags:
            raise KeyImportError("the block contains SECRET key material: send only the public key")
        keys = tags.count(TAG_PUBLIC_KEY)
        if keys == 0:
            raise KeyImportError("the block holds no public key; send the output of gpg --armor --export YOUR-ADDRESS")
        if keys > 1:
            raise KeyImportError(
                f"the block holds {keys} keys; send exactly one: gpg --armor --export FINGERPRINT"
            )
        # gpg imports exactly the packets checked above, not the text around them.
        result = self._gpg.import_keys(enarmor(block.data, "PUBLIC KEY BLOCK"))
        self._listing = None
        fingerprints = sorted({normalize_fingerprint(f) for f in result.fingerprints if f})
        if len(fingerprints) != 1:
            reasons = "; ".join(str(r.get("text", "")).strip() for r in result.results) or result.stderr
            raise KeyImportError(f"gpg did not accept the key: {reasons.strip()}")
        return fingerprints[0]

    def import_key_bundle(self, armored: str) -> list[str]:
        """Import every public key of a trusted bundle in one gpg call (set-up, tests).
        Keys players send go through :meth:`import_public_key`, which checks them."""
        result = self._gpg.import_keys(armored)
        self._listing = None
        if not result.fingerprints:
            raise GpgError(f"gpg imported no key: {_last_error(result.stderr)}")
        return sorted({normalize_fingerprint(f) for f in result.fingerprints})

    def export_secret_key(self, fingerprint: str, *, passphrase: str = "") -> str:
        """The armored secret key (to move the judge's key to another host)."""
        result = self._run(["--armor", "--export-secret-keys", normalize_fingerprint(fingerprint)],
                           passphrase=passphrase)
        if result.returncode != 0 or "PRIVATE KEY BLOCK" not in result.stdout:
            raise GpgError(f"no secret key {fingerprint} in {self.home}: {_last_error(result.stderr)}")
        return result.stdout

    def key_block_fingerprints(self, armored: str) -> tuple[list[str], list[str]]:
        """(primary fingerprints of the secret keys, of the public-only keys) in a key
        block, without importing it."""
        result = self._run(["--with-colons", "--import-options", "show-only", "--import"], stdin=armored)
        secret: list[str] = []
        public: list[str] = []
        kind = None
        for line in result.stdout.splitlines():
            fields = line.split(":")
            if fields[0] in ("sec", "pub"):
                kind = fields[0]
            elif fields[0] == "fpr" and kind is not None:
                (secret if kind == "sec" else public).append(normalize_fingerprint(fields[9]))
                kind = None
        if not secret and not public:
            raise GpgError(f"no key in the block: {_last_error(result.stderr)}")
        return secret, public

    def import_secret_key(self, armored: str, *, passphrase: str = "") -> None:
        """Import a (trusted: the operator's own) secret key block."""
        result = self._run(["--import"], stdin=armored, passphrase=passphrase)
        self._listing = None
        if result.returncode != 0:
            raise GpgError(f"gpg could not import the key: {_last_error(result.stderr)}")

    def _run(self, args: list[str], *, stdin: str | None = None,
             passphrase: str | None = None) -> subprocess.CompletedProcess[str]:
        command = [self._binary, "--homedir", str(self.home), "--batch", "--pinentry-mode", "loopback"]
        if passphrase is not None:
            command += ["--passphrase", passphrase]
        return subprocess.run(command + args, input=stdin, capture_output=True, text=True, check=False)

    def export_public_key(self, fingerprint: str) -> str:
        text = self._gpg.export_keys(normalize_fingerprint(fingerprint), armor=True)
        if not text:
            raise GpgError(f"no public key {fingerprint} in {self.home}")
        return text

    def generate_key(self, name: str, email: str, *, passphrase: str = "") -> str:
        """Make an ed25519 signing key with a cv25519 encryption subkey; returns its fingerprint."""
        if "<" in name or ">" in name or "<" in email or ">" in email:
            raise ValueError(f"name {name!r} and address {email!r} may not contain '<' or '>'")
        result = subprocess.run(
            [
                self._binary, "--homedir", str(self.home), "--batch", "--status-fd", "1",
                "--pinentry-mode", "loopback", "--passphrase", passphrase,
                "--quick-gen-key", f"{name} <{email}>", "future-default", "default", "never",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        self._listing = None
        for line in result.stdout.splitlines():
            if line.startswith("[GNUPG:] KEY_CREATED "):
                return normalize_fingerprint(line.split()[3])
        raise GpgError(f"gpg could not generate a key for {name} <{email}>: {result.stderr.strip()}")

    def reload(self) -> None:
        """Forget the cached key list (after another gpg process changed the keyring)."""
        self._listing = None

    def _public_keys(self) -> list[dict]:
        if self._listing is None:
            self._listing = list(self._gpg.list_keys())
        return self._listing

    def fingerprints(self, *, secret: bool = False) -> list[str]:
        return [normalize_fingerprint(k["fingerprint"]) for k in self._gpg.list_keys(secret)]

    def primary_fingerprint(self, identifier: str) -> str | None:
        """The primary fingerprint of the key that ``identifier`` (a primary or subkey
        fingerprint or key id) belongs to, or None if it is not in this keyring."""
        wanted = normalize_fingerprint(identifier)
        for key in self._public_keys():
            primary = normalize_fingerprint(key["fingerprint"])
            names = {primary, primary[-16:]}
            for sub in key.get("subkeys", []):
                names.update({normalize_fingerprint(sub[0]), normalize_fingerprint(sub[2])})
            if wanted in names:
                return primary
        return None

    def resolve(self, spec: str, *, secret: bool = False) -> str:
        """The primary fingerprint for a key spec (fingerprint, key id, address, name) that
        matches exactly one key; a clear error otherwise."""
        keys = self._gpg.list_keys(secret, keys=[spec])
        primaries = sorted({normalize_fingerprint(k["fingerprint"]) for k in keys})
        if not primaries:
            kind = "secret key" if secret else "key"
            raise GpgError(f"no {kind} matches {spec!r} in {self.home}")
        if len(primaries) > 1:
            raise GpgError(f"{spec!r} matches {len(primaries)} keys ({', '.join(primaries)}); give a fingerprint")
        return primaries[0]

    def user_id(self, fingerprint: str) -> str:
        wanted = normalize_fingerprint(fingerprint)
        for key in self._public_keys():
            if normalize_fingerprint(key["fingerprint"]) == wanted and key["uids"]:
                return str(key["uids"][0])
        return fingerprint

    # -- signing --------------------------------------------------------------------------
    def sign_detached(
        self, data: bytes, signer: str, *, passphrase: str | None = None, armor: bool = True,
        digest: str = "SHA256",
    ) -> bytes:
        return self._sign("sign", signer, data, keyid=signer, passphrase=passphrase, clearsign=False,
                          detach=True, binary=not armor, extra_args=["--digest-algo", digest])

    def clearsign(self, text: str, signer: str, *, passphrase: str | None = None) -> str:
        return self._sign("clearsign", signer, text, keyid=signer, passphrase=passphrase, clearsign=True,
                          extra_args=["--digest-algo", "SHA256"]).decode("utf-8")

    def sign_attached(
        self, data: bytes, signer: str, *, passphrase: str | None = None, armor: bool = True,
    ) -> bytes:
        """S(M) with the signature left attached: a signed message holding ``data``."""
        return self._sign("sign", signer, data, keyid=signer, passphrase=passphrase, clearsign=False,
                          detach=False, binary=not armor,
                          extra_args=["--digest-algo", "SHA256", "--compress-algo", "none"])

    def _sign(self, what: str, signer: str, message: str | bytes, **options: object) -> bytes:
        """``gpg.sign`` tried up to SIGN_ATTEMPTS times: a failure that comes from the
        agent (stopped or restarting: "Broken pipe", "Connection reset", "invalid signer"
        while it is away) passes; a real one (no such key) fails every time, a moment later."""
        problem = "not attempted"
        for attempt in range(1, SIGN_ATTEMPTS + 1):
            result = self._gpg.sign(message, **options)
            if result.data and result.status == "signature created":
                return result.data
            problem = result.status or _last_error(result.stderr) or "no status"
            if attempt < SIGN_ATTEMPTS:
                log.warning("gpg could not %s with key %s (%s); trying again", what, signer, problem)
                time.sleep(SIGN_RETRY_PAUSE_SECONDS * attempt)
        raise GpgError(f"gpg could not {what} with key {signer!r}: {problem}")

    # -- encryption -----------------------------------------------------------------------
    def encrypt(self, data: bytes, recipients: Sequence[str], *, armor: bool = True) -> bytes:
        """Encrypt so that any one of ``recipients`` (fingerprints) can decrypt."""
        if not recipients:
            raise ValueError("encrypt needs at least one recipient")
        # always_trust: recipients are named by fingerprint, which is the trust decision.
        result = self._gpg.encrypt(
            data, [normalize_fingerprint(r) for r in recipients], armor=armor, always_trust=True,
        )
        if not result.ok:
            raise GpgError(f"gpg could not encrypt to {', '.join(recipients)}: {result.status or result.stderr.strip()}")
        return result.data

    def decrypt(self, data: bytes, *, passphrase: str | None = None) -> bytes:
        """The plaintext of a message encrypted to a secret key of this keyring."""
        opened = self.open(data, passphrase=passphrase)
        if not opened.decrypted:
            raise GpgError("the message is not encrypted (it is only signed)")
        return opened.data

    def open(self, data: bytes, *, passphrase: str | None = None) -> Opened:
        """Decrypt and/or unwrap a signed message (what ``gpg --decrypt`` does)."""
        result = self._gpg.decrypt(data, passphrase=passphrase, always_trust=True)
        signed = result.status in {"signature valid", "signature bad", "no public key"} or bool(
            getattr(result, "signature_id", None)
        )
        verdict = _verdict_from(result) if (signed or result.valid) else None
        if result.ok:
            return Opened(result.data, True, verdict)
        if verdict is not None and result.data:
            return Opened(result.data, False, verdict)
        raise GpgError(f"gpg could not open the message: {result.status or 'no status'}; {_last_error(result.stderr)}")

    # -- verification ---------------------------------------------------------------------
    def verify_detached(self, signature: bytes, data: bytes) -> Verdict:
        """Check a detached signature (armored or binary) over exactly ``data``."""
        handle, path = tempfile.mkstemp(prefix="sig", suffix=".asc", dir=self.home)
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(signature)
            result = self._gpg.verify_data(path, data)
        finally:
            os.unlink(path)
        return _verdict_from(result)

    def verify_clearsigned(self, text: str | bytes) -> Verdict:
        return _verdict_from(self._gpg.verify(text))


class _HomeUse:
    """One open keyring's share of its home: a shared flock held while it is open."""

    def __init__(self, home: Path) -> None:
        try:
            self._fd: int | None = os.open(home / USERS_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            fcntl.flock(self._fd, fcntl.LOCK_SH)
        except OSError:  # a read-only home: nobody to coordinate with
            self._fd = None

    def leave(self, last_one_out: Callable[[], None]) -> None:
        """Stop using the home; run ``last_one_out`` if no other keyring uses it."""
        if self._fd is None:
            last_one_out()
            return
        fd, self._fd = self._fd, None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # another keyring is open on this home: its agent stays
            last_one_out()
        finally:
            os.close(fd)  # releases whichever lock it holds

    def __del__(self) -> None:
        if self._fd is not None:
            os.close(self._fd)


def agent_pids(home: str | os.PathLike[str]) -> list[int]:
    """Process ids of gpg daemons (gpg-agent, dirmngr, ...) started for ``home`` (Linux /proc)."""
    wanted = os.fsencode(str(Path(home)))
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as file:
                argv = file.read().split(b"\0")
        except OSError:
            continue
        if wanted in argv and os.path.basename(argv[0]).decode(errors="replace") in _DAEMONS:
            found.append(int(name))
    return found


_DAEMONS = {"gpg-agent", "dirmngr", "scdaemon", "keyboxd"}


def stop_agents(home: str | os.PathLike[str], *, wait_seconds: float = 2.0) -> None:
    """Ask gpgconf to stop the daemons of ``home`` and wait until they are gone."""
    if not agent_pids(home):
        return
    subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "all"], check=False, capture_output=True)
    deadline = time.monotonic() + wait_seconds
    while agent_pids(home) and time.monotonic() < deadline:
        time.sleep(0.01)


@contextmanager
def scratch_home(prefix: str) -> Iterator[Path]:
    """A GnuPG home of its own for a while (under /tmp: its socket paths must stay short),
    its agents stopped and the folder removed on leaving."""
    home = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    try:
        yield home
    finally:
        stop_agents(home)
        shutil.rmtree(home, ignore_errors=True)


def stop_agents_if_unused(home: str | os.PathLike[str]) -> None:
    """Stop the daemons of ``home`` unless a keyring on it is open (in any process)."""
    home = Path(home)
    if home.is_dir():
        _HomeUse(home).leave(lambda: stop_agents(home))


def _last_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("gpg:")]
    return lines[-1] if lines else stderr.strip()


def _verdict_from(result: gnupg.Verify) -> Verdict:
    key_id = normalize_fingerprint(result.key_id) if result.key_id else None
    primary = getattr(result, "pubkey_fingerprint", None) or result.fingerprint
    fingerprint = normalize_fingerprint(primary) if primary else None
    if result.valid:
        who = result.username or fingerprint
        return Verdict(True, fingerprint, key_id, f"good signature by {who} (key {fingerprint})")
    status = result.status or ""
    if status == "no public key":
        return Verdict(False, None, key_id, f"unknown key: the signature was made by key id {key_id}, which is not registered")
    if status == "signature bad":
        return Verdict(
            False, fingerprint, key_id,
            "BAD signature: the data is not what was signed (even one changed character does this)",
        )
    detail = status or _last_error(result.stderr) or "no signature found"
    return Verdict(False, fingerprint, key_id, f"signature not valid: {detail}")
