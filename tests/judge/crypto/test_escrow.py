"""The last-number escrow with seven real keys: build, peel, vanishing players, cheating."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import pytest

from judge.crypto.commitments import read_number, verify_reveal
from judge.crypto.escrow import (
    REFERENCE_LAYERS,
    BuiltEscrow,
    EscrowError,
    EscrowPeeling,
    accept_peeled,
    build_escrow,
    describe_plan,
    mark_vanished,
    number_file,
    parse_layers,
    parse_plan,
    peel_layer,
    peel_step,
    start_peeling,
    whom_to_ask,
)
from judge.crypto.gpg import GpgError, Keyring
from judge.crypto.armor import enarmor
from tests.fixtures.gpg import PlayerKey

NUMBER = 4


@dataclass(frozen=True)
class Table:
    """Players A..G of the reference: A escrows, B..G open the layers.  Each player's
    keyring stays open for the module (as a player's gpg-agent would), closed at the end."""

    players: dict[str, PlayerKey]
    rings: dict[str, Keyring]

    def __getitem__(self, letter: str) -> PlayerKey:
        return self.players[letter]

    def ring(self, letter: str) -> Keyring:
        return self.rings[letter]

    def by_fingerprint(self, fingerprint: str) -> str:
        return next(letter for letter, p in self.players.items() if p.fingerprint == fingerprint)

    def layers(self, spec: str = REFERENCE_LAYERS) -> list[list[str]]:
        return [[self.players[letter].email for letter in stage] for stage in parse_layers(spec)]


@pytest.fixture(scope="module")
def table(seven_players) -> Iterator[Table]:
    players = dict(zip("ABCDEFG", seven_players))
    rings = {letter: player.keyring() for letter, player in players.items()}
    yield Table(players, rings)
    for ring in rings.values():
        ring.close()


def build(table: Table, secret: bytes, spec: str = REFERENCE_LAYERS) -> BuiltEscrow:
    ring = table.ring("A")
    return build_escrow(ring, secret, table["A"].email, table.layers(spec))


@pytest.fixture(scope="module")
def escrow(table: Table) -> BuiltEscrow:
    return build(table, number_file(NUMBER))


def drive(judge_keyring, table: Table, built: BuiltEscrow, vanished: set[str] = frozenset()) -> tuple[EscrowPeeling, list[str]]:
    """The judge's side of the protocol: ask everyone who can open the current layer; a
    vanished player never answers (the deadline passes); whoever answers first is used."""
    peeling = start_peeling(judge_keyring, built.escrow.encode(), table["A"].fingerprint,
                            built.commitment, built.stages)
    published = built.escrow.encode()
    opened_by: list[str] = []
    while not peeling.finished:
        asked = whom_to_ask(peeling)
        assert asked, "nobody to ask but not finished"
        for fingerprint in asked:
            letter = table.by_fingerprint(fingerprint)
            if letter in vanished:
                peeling = mark_vanished(peeling, fingerprint)
                continue
            peeled = peel_layer(table.ring(letter), published, table["A"].fingerprint)
            published = peeled.publishable().encode()
            peeling, answer = accept_peeled(judge_keyring, peeling, published, fingerprint)
            assert answer.accepted, answer.reason
            opened_by.append(letter)
            break
    return peeling, opened_by


def test_parse_layers_reference_and_addresses() -> None:
    assert parse_layers(REFERENCE_LAYERS) == [
        ["B", "C", "D", "E"], ["F", "G"], ["E", "F"], ["D", "E"], ["C", "B"], ["B", "G"]]
    assert parse_layers("me+dip@x.org, you@y.org; F + G") == [["me+dip@x.org", "you@y.org"], ["F", "G"]]


@pytest.mark.parametrize("spec, reason", [
    ("B,C;;D", "stage 2 of 'B,C;;D' names nobody"),
    ("B+;C", "empty recipient"),
    ("B,B", "names a recipient twice"),
])
def test_bad_layer_specs(spec: str, reason: str) -> None:
    with pytest.raises(EscrowError, match=reason):
        parse_layers(spec)


def test_outer_layer_is_signed_by_A_and_opened_by_B_or_G(judge_keyring, table, escrow) -> None:
    layer = peel_step(judge_keyring, escrow.escrow.encode(), table["A"].fingerprint)
    assert layer.signature.valid and layer.signature.fingerprint == table["A"].fingerprint
    assert set(layer.recipients) == {table["B"].fingerprint, table["G"].fingerprint}
    # The judge holds no secret key of the players: it cannot open it itself.
    with pytest.raises(GpgError):
        judge_keyring.open(layer.encrypted)
    # Anyone else checking the layer against the wrong signer is refused.
    with pytest.raises(EscrowError, match="not by the escrowing player"):
        peel_step(judge_keyring, escrow.escrow.encode(), table["B"].fingerprint)


def test_commitment_is_S_of_M(judge_keyring, table, escrow) -> None:
    assert escrow.number_file == b"4\n"
    assert verify_reveal(judge_keyring, escrow.commitment, b"4\n", table["A"].fingerprint).valid


def test_full_peel_recovers_the_committed_number(judge_keyring, table, escrow) -> None:
    # A revealed "4" as usual; the background check peels the escrow and must agree.
    peeling, opened_by = drive(judge_keyring, table, escrow)
    assert peeling.failure is None and peeling.number_file == b"4\n"
    assert read_number(peeling.number_file, 7) == NUMBER
    assert opened_by == ["B", "C", "D", "E", "F", "B"]  # the first asked of each layer
    assert len(peeling.answers) == 6 and all(a.accepted for a in peeling.answers)


def test_last_player_vanishes_and_the_others_peel_the_number_out(judge_keyring, table) -> None:
    built = build(table, number_file(6))
    # A never reveals: the judge runs the peeling without A (A is not a recipient anyway).
    peeling, opened_by = drive(judge_keyring, table, built, vanished={"A"})
    assert read_number(peeling.number_file, 7) == 6
    assert "A" not in opened_by


def test_one_decrypter_of_a_pair_vanishes_the_other_opens(judge_keyring, table, escrow) -> None:
    # Both of the pair are asked first.
    start = start_peeling(judge_keyring, escrow.escrow.encode(), table["A"].fingerprint, escrow.commitment)
    assert set(whom_to_ask(start)) == {table["B"].fingerprint, table["G"].fingerprint}
    # B vanishes: G opens the outer layer (B+G) and C the C+B layer, ... to the number.
    peeling, opened_by = drive(judge_keyring, table, escrow, vanished={"B"})
    assert peeling.number_file == b"4\n"
    assert opened_by == ["G", "C", "D", "E", "F", "C"]
    assert peeling.vanished == {table["B"].fingerprint}


def test_a_pair_that_both_vanish_breaks_the_peeling(judge_keyring, table, escrow) -> None:
    peeling = start_peeling(judge_keyring, escrow.escrow.encode(), table["A"].fingerprint, escrow.commitment)
    peeling = mark_vanished(peeling, table["B"].fingerprint)
    assert not peeling.finished and whom_to_ask(peeling) == (table["G"].fingerprint,)
    peeling = mark_vanished(peeling, table["G"].fingerprint)
    assert peeling.finished and peeling.number_file is None
    assert "nobody left who can open layer 1" in (peeling.failure or "")
    assert whom_to_ask(peeling) == ()


def test_forged_and_replayed_layers_are_refused(judge_keyring, table, escrow) -> None:
    A = table["A"].fingerprint
    peeling = start_peeling(judge_keyring, escrow.escrow.encode(), A, escrow.commitment, escrow.stages)
    # G makes up a layer of its own: signed by G, not A.
    ring = table.ring("G")
    forged = ring.sign_attached(ring.encrypt(b"0\n", [table["C"].fingerprint], armor=False), table["G"].fingerprint)
    after, answer = accept_peeled(judge_keyring, peeling, forged, table["G"].fingerprint)
    assert not answer.accepted and "not by the escrowing player" in answer.reason
    assert after.stage == 0 and after.layer == peeling.layer
    # G replays the outer layer instead of opening it.
    after, answer = accept_peeled(judge_keyring, after, escrow.escrow.encode(), table["G"].fingerprint)
    assert not answer.accepted and "already opened" in answer.reason
    # G publishes a "number" in the middle of the peeling.
    after, answer = accept_peeled(judge_keyring, after, b"0\n", table["G"].fingerprint)
    assert not answer.accepted and "expected layer 2" in answer.reason
    # A damaged layer.
    damaged = escrow.escrow.replace("A", "B", 3).encode()
    after, answer = accept_peeled(judge_keyring, after, damaged, table["G"].fingerprint)
    assert not answer.accepted
    # B still can: the refusals changed nothing but the record.
    ring = table.ring("B")
    good = peel_layer(ring, escrow.escrow.encode(), A).publishable().encode()
    after, answer = accept_peeled(judge_keyring, after, good, table["B"].fingerprint)
    assert answer.accepted and after.stage == 1 and len(after.answers) == 5


def test_layers_out_of_plan_order_are_refused(judge_keyring, table, escrow) -> None:
    # Announce a plan whose second layer is addressed to D+E instead of C+B.
    plan = [list(stage) for stage in escrow.stages]
    plan[-2] = [table["D"].fingerprint, table["E"].fingerprint]
    peeling = start_peeling(judge_keyring, escrow.escrow.encode(), table["A"].fingerprint, escrow.commitment, plan)
    ring = table.ring("B")
    next_layer = peel_layer(ring, escrow.escrow.encode(), table["A"].fingerprint).publishable().encode()
    _, answer = accept_peeled(judge_keyring, peeling, next_layer, table["B"].fingerprint)
    assert not answer.accepted and "announced plan" in answer.reason


def test_escrowed_number_differing_from_the_commitment_is_caught(judge_keyring, table) -> None:
    # A commits to 4 but escrows 5: the innermost layer's readers publish 5, which fails S(M).
    cheat = build(table, number_file(5), "B,C,D,E;F+G")
    ring = table.ring("A")
    commitment_to_4 = ring.sign_detached(b"4\n", table["A"].fingerprint)
    A = table["A"].fingerprint
    peeling = start_peeling(judge_keyring, cheat.escrow.encode(), A, commitment_to_4)
    ring = table.ring("F")
    inner = peel_layer(ring, cheat.escrow.encode(), A).publishable().encode()
    peeling, answer = accept_peeled(judge_keyring, peeling, inner, table["F"].fingerprint)
    assert answer.accepted
    for letter in "BCDE":
        number = peel_layer(table.ring(letter), inner, A)
        assert not number.is_layer and number.data == b"5\n"
        peeling, answer = accept_peeled(judge_keyring, peeling, number.data, table[letter].fingerprint)
        assert not answer.accepted and "does not match the commitment" in answer.reason
        assert peeling.finished == (letter == "E")
    assert "differs from the committed one" in (peeling.failure or "")


def test_player_cannot_open_a_layer_not_addressed_to_them(table, escrow) -> None:
    with pytest.raises(EscrowError, match="not addressed to a key you hold"):
        peel_layer(table.ring("D"), escrow.escrow.encode(), table["A"].fingerprint)
    with pytest.raises(EscrowError, match="not by the escrowing player"):
        peel_layer(table.ring("B"), escrow.escrow.encode(), table["C"].fingerprint)


def test_signer_may_not_be_a_recipient(table) -> None:
    with pytest.raises(EscrowError, match="signer's own key"):
        build_escrow(table.ring("A"), b"1\n", table["A"].email, [[table["A"].email, table["B"].email]])


def test_plan_text_round_trip(escrow) -> None:
    text = describe_plan(escrow.stages)
    assert text.splitlines()[0].startswith("layer 1: ")
    assert parse_plan(text) == [list(stage) for stage in escrow.stages]
    with pytest.raises(EscrowError, match="not a 40-digit fingerprint"):
        parse_plan("layer 1: ABC or DEF")


def test_non_escrow_input_is_refused(judge_keyring, table) -> None:
    with pytest.raises(EscrowError, match="not an escrow layer"):
        peel_step(judge_keyring, b"hello", table["A"].fingerprint)
    encrypted_only = table.ring("A").encrypt(b"x", [table["B"].fingerprint])
    with pytest.raises(EscrowError, match="not a signed message"):
        peel_step(judge_keyring, encrypted_only, table["A"].fingerprint)
    signed_plain = table.ring("A").sign_attached(b"not encrypted", table["A"].fingerprint, armor=False)
    with pytest.raises(EscrowError, match="no encrypted message|does not hold"):
        peel_step(judge_keyring, enarmor(signed_plain).encode(), table["A"].fingerprint)


def test_peeling_state_round_trips_through_json(judge_keyring, table, escrow) -> None:
    import json

    from judge.crypto.escrow import peeling_from_dict, peeling_to_dict

    peeling = start_peeling(judge_keyring, escrow.escrow.encode(), table["A"].fingerprint,
                            escrow.commitment, escrow.stages)
    peeling = mark_vanished(peeling, table["G"].fingerprint)
    next_layer = peel_layer(table.ring("B"), escrow.escrow.encode(), table["A"].fingerprint).publishable().encode()
    peeling, _ = accept_peeled(judge_keyring, peeling, next_layer, table["B"].fingerprint)
    stored = json.loads(json.dumps(peeling_to_dict(peeling)))
    restored = peeling_from_dict(stored)
    assert restored == peeling
    # And the restored state carries on: C opens the next layer.
    third = peel_layer(table.ring("C"), next_layer, table["A"].fingerprint).publishable().encode()
    restored, answer = accept_peeled(judge_keyring, restored, third, table["C"].fingerprint)
    assert answer.accepted and restored.stage == 2
