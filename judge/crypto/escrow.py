"""The last-number escrow (reference 002, "last number message").

The player who reveals last (A) could withhold a number once all others are known.  So A
publishes, with the commitment S(M), the number M wrapped in nested layers::

    S(Ebg(S(Ebc(S(Ede(S(Eef(S(Efg(S(Ebcde(M))))))))))))

built from the inside out: encrypt to B,C,D,E, sign; encrypt to F+G, sign; E+F; D+E; C+B;
B+G, signing each stage.  Every layer is signed by A, so anyone can check that a published
layer is genuine; either member of a pair can open their layer, so one player who vanishes
cannot stop the peeling; the innermost layer is readable by four players, and M is
checked against S(M).

Player side: :func:`build_escrow`, :func:`peel_layer`.  Judge side: :func:`peel_step`
(inspect a layer), and :class:`EscrowPeeling` with :func:`start_peeling`,
:func:`whom_to_ask`, :func:`mark_vanished`, :func:`accept_peeled`, which decide whom to ask
next and check every answer.  Sending the mail and the deadlines belong to the commands (judge/commands/fair_escrow.py).
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from judge.crypto.armor import ArmorError, dearmor, enarmor
from judge.crypto.commitments import signed_variant, verify_reveal
from judge.crypto.gpg import GpgError, Keyring
from judge.crypto.packets import (
    TAG_COMPRESSED,
    TAG_ONE_PASS_SIGNATURE,
    TAG_SIGNATURE,
    PacketError,
    describe_tag,
    iter_packets,
    recipient_key_ids,
)
from judge.crypto.verdict import Verdict, normalize_fingerprint

# The reference's sequence, innermost stage first, for players B..G.
REFERENCE_LAYERS = "B,C,D,E;F+G;E+F;D+E;C+B;B+G"


class EscrowError(ValueError):
    """An escrow layer or answer that cannot be used; the message says why."""


# -- layer specification ------------------------------------------------------------------
def parse_layers(spec: str) -> list[list[str]]:
    """``"B,C,D,E;F+G;E+F"`` -> ``[["B","C","D","E"], ["F","G"], ["E","F"]]``.

    Stages are separated by ``;`` in build order (innermost first, as the reference lists
    them); the recipients of a stage by ``,`` or ``+``.  A recipient is any key spec gpg
    accepts (fingerprint, key id, address); ``+`` inside an address (``me+dip@x``) is kept,
    so separate addresses with ``,``.
    """
    stages: list[list[str]] = []
    for number, chunk in enumerate(spec.split(";"), start=1):
        recipients: list[str] = []
        for token in chunk.split(","):
            token = token.strip()
            if not token:
                continue
            parts = [token] if "@" in token else [p.strip() for p in token.split("+")]
            if any(not p for p in parts):
                raise EscrowError(f"stage {number} ({chunk.strip()!r}) has an empty recipient around '+'")
            recipients.extend(parts)
        if not recipients:
            raise EscrowError(
                f"stage {number} of {spec!r} names nobody: write stages separated by ';', "
                f"recipients by ',' or '+', e.g. {REFERENCE_LAYERS!r}"
            )
        if len(set(recipients)) != len(recipients):
            raise EscrowError(f"stage {number} ({chunk.strip()!r}) names a recipient twice")
        stages.append(recipients)
    return stages


# -- player side --------------------------------------------------------------------------
@dataclass(frozen=True)
class BuiltEscrow:
    escrow: str  # the armored nested message, to publish with the commitment
    commitment: bytes  # S(M): armored detached signature over the number file
    number_file: bytes  # M, to reveal later
    stages: tuple[tuple[str, ...], ...]  # recipients' fingerprints, build order (innermost first)


def number_file(number: int) -> bytes:
    return f"{number}\n".encode("ascii")


def build_escrow(
    keyring: Keyring,
    secret: bytes,
    signer: str,
    stages: Sequence[Sequence[str]],
    *,
    passphrase: str | None = None,
) -> BuiltEscrow:
    """Wrap ``secret`` (the number file M) in signed, encrypted layers, innermost stage first.

    ``stages`` hold key specs, resolved in ``keyring`` to exactly one key each.
    """
    signer_fingerprint = keyring.resolve(signer, secret=True)
    if not stages:
        raise EscrowError("an escrow needs at least one stage of recipients")
    resolved: list[tuple[str, ...]] = []
    for number, stage in enumerate(stages, start=1):
        fingerprints = tuple(keyring.resolve(spec) for spec in stage)
        if signer_fingerprint in fingerprints:
            raise EscrowError(
                f"stage {number} includes the signer's own key ({signer}): the escrow exists in "
                "case the signer vanishes, so only other players may open it"
            )
        resolved.append(fingerprints)
    layer = secret
    for fingerprints in resolved:
        encrypted = keyring.encrypt(layer, fingerprints, armor=False)
        layer = keyring.sign_attached(encrypted, signer_fingerprint, passphrase=passphrase, armor=False)
    commitment = keyring.sign_detached(secret, signer_fingerprint, passphrase=passphrase)
    return BuiltEscrow(enarmor(layer), commitment, secret, tuple(resolved))


@dataclass(frozen=True)
class Peeled:
    """What a player got out of a layer addressed to them."""

    signature: Verdict  # the escrower's signature on the layer that was opened
    data: bytes  # the next layer (binary signed message) or, innermost, the number file
    is_layer: bool  # True: another signed layer to publish; False: the escrowed number file

    def publishable(self) -> str:
        """Text to publish: the next layer armored, or the number file as it is."""
        return enarmor(self.data) if self.is_layer else self.data.decode("utf-8", "replace")


def _packets(data: bytes) -> bytes | None:
    """Binary OpenPGP data in ``data`` (armored or not), or None if it is not OpenPGP."""
    if b"-----BEGIN PGP" in data:
        try:
            return dearmor(data, expect=("MESSAGE",)).data
        except ArmorError as exc:
            raise EscrowError(f"the escrow layer is damaged: {exc}") from None
    if data and data[0] & 0x80:
        return data
    return None


def _open_signed_layer(keyring: Keyring, layer: bytes, escrower: str | None) -> tuple[Verdict, bytes]:
    packets = _packets(layer)
    if packets is None:
        raise EscrowError("this is not an escrow layer: expected '-----BEGIN PGP MESSAGE-----'")
    try:
        first_tag = next(iter_packets(packets)).tag
    except (PacketError, StopIteration) as exc:
        raise EscrowError(f"the escrow layer is damaged: {exc}") from None
    if first_tag not in (TAG_ONE_PASS_SIGNATURE, TAG_SIGNATURE, TAG_COMPRESSED):
        raise EscrowError(
            f"the layer is not a signed message S(E(...)) as the escrow protocol makes: it starts with {describe_tag(first_tag)}"
        )
    try:
        opened = keyring.open(packets)
    except GpgError as exc:
        raise EscrowError(f"the layer cannot be read: {exc}") from None
    if opened.decrypted or opened.signature is None:
        raise EscrowError("the layer is not a signed message S(E(...)) as the escrow protocol makes")
    verdict = opened.signature
    if not verdict.valid:
        raise EscrowError(f"the layer's signature does not check: {verdict.reason}")
    if escrower is not None and verdict.fingerprint != normalize_fingerprint(escrower):
        raise EscrowError(
            f"the layer is signed by {verdict.fingerprint}, not by the escrowing player {normalize_fingerprint(escrower)}"
        )
    return verdict, opened.data


def peel_layer(
    keyring: Keyring, layer: bytes, escrower: str | None = None, *, passphrase: str | None = None
) -> Peeled:
    """Check the escrower's signature on ``layer`` and decrypt it with the player's key."""
    verdict, encrypted = _open_signed_layer(keyring, layer, escrower)
    try:
        inner = keyring.open(encrypted, passphrase=passphrase)
    except GpgError as exc:
        raise EscrowError(f"this layer is not addressed to a key you hold ({exc})") from None
    if not inner.decrypted:
        raise EscrowError("the signed layer does not hold an encrypted message")
    return Peeled(verdict, inner.data, _packets(inner.data) is not None)


# -- judge side ---------------------------------------------------------------------------
@dataclass(frozen=True)
class EscrowLayer:
    """One signed layer as the judge sees it (it cannot decrypt it)."""

    signature: Verdict  # by the escrowing player
    recipients: tuple[str, ...]  # primary fingerprints able to open it (key ids if unknown)
    encrypted: bytes  # E(...), binary: what the recipients must decrypt
    digest: str  # sha256 of the signed layer's packets: identifies it

    def armored_encrypted(self) -> str:
        return enarmor(self.encrypted)


def peel_step(keyring: Keyring, layer_bytes: bytes, escrower: str) -> EscrowLayer:
    """Check that ``layer_bytes`` is a layer signed by ``escrower`` and say who can open it."""
    verdict, encrypted = _open_signed_layer(keyring, layer_bytes, escrower)
    try:
        key_ids = recipient_key_ids(encrypted)
    except PacketError as exc:
        raise EscrowError(f"the signed layer does not hold an encrypted message: {exc}") from None
    if not key_ids:
        raise EscrowError("the signed layer holds no encrypted message (no recipients)")
    recipients = tuple(keyring.primary_fingerprint(key_id) or key_id for key_id in key_ids)
    packets = _packets(layer_bytes) or b""
    return EscrowLayer(verdict, recipients, encrypted, hashlib.sha256(packets).hexdigest())


@dataclass(frozen=True)
class PeelAnswer:
    stage: int  # 0 = the outermost layer
    by: str | None  # fingerprint of the player who answered, when known
    accepted: bool
    reason: str


@dataclass(frozen=True)
class EscrowPeeling:
    """Where the peeling of one escrow stands; each step returns a new value."""

    escrower: str
    commitment: bytes  # S(M), published with the escrow
    plan: tuple[tuple[str, ...], ...] | None  # recipients per stage, outermost first, if known
    stage: int  # index of the current layer, 0 = outermost
    layer: EscrowLayer | None  # the layer now waiting to be opened (None once finished)
    vanished: frozenset[str] = frozenset()
    seen: frozenset[str] = frozenset()  # digests of layers already accepted
    answers: tuple[PeelAnswer, ...] = ()
    number_file: bytes | None = None  # M, once recovered and checked against S(M)
    failure: str | None = None

    @property
    def finished(self) -> bool:
        return self.number_file is not None or self.failure is not None


def start_peeling(
    keyring: Keyring,
    escrow: bytes,
    escrower: str,
    commitment: bytes,
    plan: Sequence[Sequence[str]] | None = None,
) -> EscrowPeeling:
    """Begin with the published escrow (outermost layer).  ``plan``, if given, lists the
    recipients' fingerprints in build order (innermost first, as ``--layers`` does)."""
    escrower = normalize_fingerprint(escrower)
    peel_plan = tuple(tuple(normalize_fingerprint(f) for f in stage) for stage in reversed(plan)) if plan else None
    layer = peel_step(keyring, escrow, escrower)
    peeling = EscrowPeeling(escrower, commitment, peel_plan, 0, layer, seen=frozenset({layer.digest}))
    problem = _plan_mismatch(peeling, layer, 0)
    if problem:
        raise EscrowError(problem)
    return peeling


def _plan_mismatch(peeling: EscrowPeeling, layer: EscrowLayer, stage: int) -> str | None:
    if peeling.plan is None:
        return None
    if stage >= len(peeling.plan):
        return f"the escrow has more layers than the {len(peeling.plan)} announced"
    if set(layer.recipients) != set(peeling.plan[stage]):
        return (f"layer {stage + 1} is addressed to {', '.join(layer.recipients)}, but the announced "
                f"plan says {', '.join(peeling.plan[stage])}")
    return None


def whom_to_ask(peeling: EscrowPeeling) -> tuple[str, ...]:
    """Everyone who can open the current layer and has not vanished: ask them all (either
    of a pair will do) and go on with whichever answers first."""
    if peeling.finished or peeling.layer is None:
        return ()
    return tuple(r for r in peeling.layer.recipients if r not in peeling.vanished)


def mark_vanished(peeling: EscrowPeeling, fingerprint: str) -> EscrowPeeling:
    """A player missed the deadline to answer; if nobody is left who can open the current
    layer, the peeling has broken down (the escrower can still reveal against S(M))."""
    vanished = peeling.vanished | {normalize_fingerprint(fingerprint)}
    peeling = replace(peeling, vanished=vanished)
    if not peeling.finished and not whom_to_ask(peeling):
        stage = peeling.stage + 1
        return replace(peeling, failure=(
            f"nobody left who can open layer {stage}: all of "
            f"{', '.join(peeling.layer.recipients if peeling.layer else ())} have vanished"
        ))
    return peeling


def accept_peeled(
    keyring: Keyring, peeling: EscrowPeeling, published: bytes, by: str | None = None
) -> tuple[EscrowPeeling, PeelAnswer]:
    """Check what a player published for the current layer.

    A signed layer must be the escrower's, new, and (with a plan) addressed as announced;
    anything else is taken as the number file and must verify against S(M).  A refused
    answer leaves the peeling where it was (ask the other member of the pair).
    """
    if peeling.finished:
        raise EscrowError("the peeling is already finished")
    by = normalize_fingerprint(by) if by else None
    stage = peeling.stage
    try:
        packets = _packets(published)
    except EscrowError as exc:
        return _refuse(peeling, stage, by, str(exc))
    if packets is not None:
        try:
            layer = peel_step(keyring, published, peeling.escrower)
        except EscrowError as exc:
            return _refuse(peeling, stage, by, str(exc))
        if layer.digest in peeling.seen:
            return _refuse(peeling, stage, by, "this layer was already opened: it is not the next one")
        problem = _plan_mismatch(peeling, layer, stage + 1)
        if problem:
            return _refuse(peeling, stage, by, problem)
        answer = PeelAnswer(stage, by, True, f"layer {stage + 2} published, signed by the escrowing player")
        return replace(
            peeling, stage=stage + 1, layer=layer, seen=peeling.seen | {layer.digest},
            answers=peeling.answers + (answer,),
        ), answer
    if peeling.plan is not None and stage + 1 < len(peeling.plan):
        return _refuse(peeling, stage, by, f"expected layer {stage + 2} (a signed message), got plain text")
    verdict = verify_reveal(keyring, peeling.commitment, published, peeling.escrower)
    if not verdict.valid:
        refused, answer = _refuse(peeling, stage, by, f"the number does not match the commitment S(M): {verdict.reason}")
        answered = {a.by for a in refused.answers if a.stage == stage}
        if peeling.layer is not None and set(whom_to_ask(peeling)) <= answered:
            refused = replace(refused, failure=(
                "every remaining recipient of the innermost layer published a number that does not "
                "match the commitment: the escrowed number differs from the committed one"))
        return refused, answer
    answer = PeelAnswer(stage, by, True, f"number recovered and verified against the commitment ({verdict.variant})")
    number = signed_variant(published, verdict.variant or "exact")
    return replace(peeling, layer=None, number_file=number, answers=peeling.answers + (answer,)), answer


def _refuse(peeling: EscrowPeeling, stage: int, by: str | None, reason: str) -> tuple[EscrowPeeling, PeelAnswer]:
    answer = PeelAnswer(stage, by, False, reason)
    return replace(peeling, answers=peeling.answers + (answer,)), answer


def describe_plan(stages: Sequence[Sequence[str]]) -> str:
    """One line per stage in peeling order, for the escrow announcement."""
    lines = []
    for number, stage in enumerate(reversed(list(stages)), start=1):
        lines.append(f"layer {number}: " + " or ".join(stage))
    return "\n".join(lines)


_FINGERPRINT = re.compile(r"^[0-9A-F]{40}$")


def parse_plan(text: str) -> list[list[str]]:
    """The inverse of :func:`describe_plan`: fingerprints in build order (innermost first)."""
    stages: list[list[str]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        match = re.match(r"^layer \d+: (.+)$", line.strip())
        if not match:
            raise EscrowError(f"plan line {line.strip()!r} is not 'layer N: FPR or FPR ...'")
        fingerprints = [normalize_fingerprint(f) for f in match.group(1).split(" or ")]
        for fingerprint in fingerprints:
            if not _FINGERPRINT.match(fingerprint):
                raise EscrowError(f"{fingerprint!r} in the plan is not a 40-digit fingerprint")
        stages.append(fingerprints)
    stages.reverse()
    return stages


# -- persistence --------------------------------------------------------------------------
def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _verdict_dict(verdict: Verdict) -> dict[str, object]:
    return {"valid": verdict.valid, "fingerprint": verdict.fingerprint, "key_id": verdict.key_id,
            "reason": verdict.reason, "variant": verdict.variant}


def peeling_to_dict(peeling: EscrowPeeling) -> dict[str, object]:
    """A JSON-ready dict of the peeling state, so it can wait in the store between mails."""
    layer = peeling.layer
    return {
        "escrower": peeling.escrower,
        "commitment": _b64(peeling.commitment),
        "plan": [list(stage) for stage in peeling.plan] if peeling.plan is not None else None,
        "stage": peeling.stage,
        "layer": None if layer is None else {
            "signature": _verdict_dict(layer.signature), "recipients": list(layer.recipients),
            "encrypted": _b64(layer.encrypted), "digest": layer.digest,
        },
        "vanished": sorted(peeling.vanished),
        "seen": sorted(peeling.seen),
        "answers": [{"stage": a.stage, "by": a.by, "accepted": a.accepted, "reason": a.reason}
                    for a in peeling.answers],
        "number_file": None if peeling.number_file is None else _b64(peeling.number_file),
        "failure": peeling.failure,
    }


def peeling_from_dict(data: Mapping[str, Any]) -> EscrowPeeling:
    layer = data["layer"]
    return EscrowPeeling(
        escrower=data["escrower"],
        commitment=base64.b64decode(data["commitment"]),
        plan=tuple(tuple(stage) for stage in data["plan"]) if data["plan"] is not None else None,
        stage=data["stage"],
        layer=None if layer is None else EscrowLayer(
            Verdict(**layer["signature"]), tuple(layer["recipients"]),
            base64.b64decode(layer["encrypted"]), layer["digest"],
        ),
        vanished=frozenset(data["vanished"]),
        seen=frozenset(data["seen"]),
        answers=tuple(PeelAnswer(**answer) for answer in data["answers"]),
        number_file=None if data["number_file"] is None else base64.b64decode(data["number_file"]),
        failure=data["failure"],
    )
