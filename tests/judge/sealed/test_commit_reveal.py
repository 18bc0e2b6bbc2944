"""COMMIT and REVEAL in a RULE SEALED game: the attacks and bad input of issue 5, each a test."""

import json

from sqlalchemy import select

from judge.crypto.gpg import Keyring
from judge.crypto.pgpmime import split_signed, verify_message
from judge.publish.signing import ensure_judge_key
from judge.store.models_game import PhaseRecord
from judge.store.models_sealed import BAD_REVEAL, VERIFIED, SealedCommitment, SealedReveal, SealedVerdict
from tests.fixtures.gpg import remove_home, short_home
from tests.judge.sealed.harness import MASTER
from tests.judge.sealed.orders import SPRING, orders_file


def files(power):
    return orders_file(power, "S1901M", SPRING[power])


def commit_all(game, *, except_for=()):
    for power in SPRING:
        if power in except_for:
            continue
        outcome = game.commit(power, files(power))
        assert "ERROR" not in outcome.reply.body, outcome.reply.body


def test_a_commitment_signed_by_another_players_key_is_refused(game):
    outcome = game.commit("FRANCE", files("FRANCE"), signer="GERMANY")
    assert "ERROR" in outcome.reply.body
    assert "signed by another key" in outcome.reply.body and game.keys["GERMANY"].fingerprint in outcome.reply.body
    with game.judge.session() as session:
        assert session.execute(select(SealedCommitment)).first() is None


def test_a_forged_from_with_a_valid_looking_commitment_is_refused(game):
    """Someone who knows France's password writes as France (From: France's address) and
    signs with a key the judge knows: only France's registered key counts."""
    outcome = game.commit("FRANCE", files("FRANCE"), signer="ENGLAND", sender=game.keys["FRANCE"].email)
    assert "ERROR" in outcome.reply.body and "not your registered key" in outcome.reply.body
    with game.judge.session() as session:
        assert session.execute(select(SealedCommitment)).first() is None


def test_an_unknown_key_is_refused(game):
    home = short_home("u")
    try:
        with Keyring(home) as stranger:
            fingerprint = stranger.generate_key("Stranger", "stranger@example.net")
            signature = stranger.sign_detached(files("FRANCE"), fingerprint)
        outcome = game.judge.send(game.keys["FRANCE"].email, game.signon("FRANCE") + "COMMIT\n",
                                  attachments=[("orders.txt.asc", "application/pgp-signature", signature)])
    finally:
        remove_home(home)
    assert "ERROR" in outcome.reply.body and "unknown key" in outcome.reply.body
    assert fingerprint[-16:] in outcome.reply.body


def test_an_inline_armored_commitment_is_accepted(game):
    signature = game.sign("ITALY", files("ITALY")).decode("ascii")
    outcome = game.judge.send(game.keys["ITALY"].email, game.signon("ITALY") + "COMMIT\n" + signature)
    assert "ERROR" not in outcome.reply.body, outcome.reply.body
    assert "commitment of ITALY for S1901M recorded" in outcome.reply.body


def test_a_commitment_sent_twice_replaces_the_first_and_only_the_second_counts(game):
    first = game.commit("FRANCE", orders_file("FRANCE", "S1901M", ["A PAR H"]))
    second = game.commit("FRANCE", files("FRANCE"))
    assert "ERROR" not in first.reply.body and "replaces your earlier commitment" in second.reply.body
    with game.judge.session() as session:
        row = session.execute(select(SealedCommitment)).scalar_one()
        assert row.times == 2
    commit_all(game, except_for=("FRANCE",))
    old = game.reveal("FRANCE", orders_file("FRANCE", "S1901M", ["A PAR H"]))
    assert "do NOT match" in old.reply.body
    new = game.reveal("FRANCE", files("FRANCE"))
    assert "revealed orders verified" in new.reply.body, new.reply.body


def test_nobody_learns_who_committed_before_all_are_in(game):
    mails = []
    for power in list(SPRING)[:6]:
        outcome = game.commit(power, files(power))
        mails.extend(outcome.mails)
    # Only the committing player heard anything: no broadcast, nothing to the master.
    assert {m.kind for m in mails} == {"reply"}
    assert all(m.recipients == (game.keys[p].email,) for m, p in zip(mails, list(SPRING)[:6]))
    summary = game.judge.send(MASTER, "SIGNON master@g1 masterpw\nSUMMARY\n").reply.body
    assert "commit" not in summary.lower()
    last = game.commit("TURKEY", files("TURKEY"))
    published = last.of_kind("commitments")
    # One signed body shared by every copy (the list, the master, observers).
    assert published and len({split_signed(m.raw)[0] for m in published}) == 1
    names = published[0].attachments()
    assert {f"g1-S1901M-{p}.asc" for p in SPRING} <= set(names)
    listing = json.loads(names["g1-S1901M-commitments.json"])
    assert sorted(listing["commitments"]) == sorted(SPRING)


def test_a_reveal_before_all_commitments_are_in_is_refused_and_not_kept(game):
    game.commit("FRANCE", files("FRANCE"))
    outcome = game.reveal("FRANCE", files("FRANCE"))
    assert "ERROR" in outcome.reply.body and "not all in" in outcome.reply.body
    with game.judge.session() as session:
        assert session.execute(select(SealedReveal)).first() is None


def test_plain_orders_are_refused_in_a_sealed_game_each_line_quoted(game):
    reply = game.judge.send(game.keys["FRANCE"].email,
                            game.signon("FRANCE") + "A PAR - BUR\nA MAR - SPA\n").reply
    assert "2 lines could not be accepted" in reply.body and "sealed orders" in reply.body
    assert "ERROR line 2: A PAR - BUR" in reply.body and "ERROR line 3: A MAR - SPA" in reply.body
    assert "for the reason given at line 2" in reply.body


def test_reveals_one_character_off_crlf_and_no_charset(game):
    commit_all(game)
    # One character changed: not verified, the power's units hold.
    tampered = files("ENGLAND").replace(b"NTH", b"NTB")
    bad = game.reveal("ENGLAND", tampered)
    assert "do NOT match" in bad.reply.body and "BAD signature" in bad.reply.body
    # CRLF line endings (a Windows mail program): verified.
    crlf = game.reveal("FRANCE", files("FRANCE").replace(b"\n", b"\r\n"))
    assert "revealed orders verified" in crlf.reply.body, crlf.reply.body
    assert "CRLF" in crlf.reply.body
    # A text/plain attachment without a charset: byte-exact (8-bit text: see the next test).
    no_charset = game.reveal("GERMANY", files("GERMANY"), content_type="text/plain")
    assert "revealed orders verified" in no_charset.reply.body
    # Inline text reveals for three more; Italy reveals nothing.
    for power in ("AUSTRIA", "RUSSIA", "TURKEY"):
        outcome = game.judge.send(game.keys[power].email,
                                  game.signon(power) + "REVEAL\n" + files(power).decode() + "ENDREVEAL\n")
        assert "revealed orders verified" in outcome.reply.body, outcome.reply.body
    # The reveal deadline passes: the scheduler processes the phase.
    game.judge.advance(days=2)
    from judge.config import Settings
    from judge.edge.scheduler import run_pass

    last = game.judge.last_outbox_id()
    run_pass(game.judge.store, Settings(judge=game.judge.settings), game.judge.now)
    results = game.judge.outbox_since(last).of_kind("results")
    assert results, "the phase was not processed at the reveal deadline"
    body = results[0].body
    assert "ENGLAND" in body and "bad reveal" in body and "ITALY" in body and "no reveal" in body
    with game.judge.session() as session:
        verdicts = {v.power: v for v in session.execute(select(SealedVerdict)).scalars()}
        assert verdicts["ENGLAND"].outcome == BAD_REVEAL and verdicts["ENGLAND"].orders == []
        assert verdicts["FRANCE"].outcome == VERIFIED and "A PAR - BUR" in verdicts["FRANCE"].orders
        record = session.execute(select(PhaseRecord)).scalar_one()
        assert "ENGLAND" not in record.orders and record.orders["FRANCE"]
    attachments = results[0].attachments()
    document = json.loads(attachments["g1-S1901M.json"])
    assert document["sealed"]["ENGLAND"]["outcome"] == BAD_REVEAL
    english = [r for r in document["output"]["results"] if r["power"] == "ENGLAND"]
    assert english and all(r["result"] == "holds" for r in english)
    # The published France file is the bytes France signed: gpg --verify works on it.
    fingerprint = ensure_judge_key(game.judge.settings)
    with Keyring(game.judge.settings.gnupg_home) as ring:
        assert verify_message(ring, results[0].raw, fingerprint).valid
        assert ring.verify_detached(attachments["g1-S1901M-FRANCE.asc"], attachments["g1-S1901M-FRANCE-orders.txt"]).valid


def test_a_no_charset_attachment_with_8bit_text_verifies_byte_for_byte(game):
    german = orders_file("GERMANY", "S1901M", SPRING["GERMANY"]).replace(b"Here are", "Befehle für".encode("latin-1"))
    for power in SPRING:
        data = german if power == "GERMANY" else files(power)
        assert "ERROR" not in game.commit(power, data).reply.body
    outcome = game.reveal("GERMANY", german, content_type="text/plain")
    assert "revealed orders verified" in outcome.reply.body and "matches the revealed bytes exactly" in outcome.reply.body
    with game.judge.session() as session:
        assert session.execute(select(SealedReveal)).scalar_one().data == german


def test_no_gpg_agent_outlives_a_mail(game):
    """Each use of the judge's keyring stops the gpg-agent it started: none is left running
    between mails (the fixture also checks at teardown)."""
    from judge.crypto.gpg import agent_pids

    assert "recorded" in game.commit("FRANCE", files("FRANCE")).reply.body
    assert agent_pids(game.judge.settings.gnupg_home) == []


def test_commit_sha256_only_where_the_rule_allows_it(game):
    from judge.crypto.commitments import sha256_commitment

    digest = sha256_commitment("A PAR - BUR\n", "SALT 7fQ2kL9zR4mW1xBcQ")
    reply = game.judge.send(game.keys["FRANCE"].email, game.signon("FRANCE") + f"COMMIT SHA256 {digest}\n").reply
    assert "ERROR" in reply.body and "SEALED_SHA256" in reply.body


def test_a_sha256_commitment_verifies_its_salted_reveal(sealed_judge, seven_players):
    from judge.crypto.commitments import sha256_commitment
    from tests.judge.sealed.harness import SealedGame

    game = SealedGame.start(sealed_judge, seven_players, rules=("SEALED_SHA256",))
    text = "\n".join(SPRING["FRANCE"]) + "\n"
    salt = "SALT 7fQ2kL9zR4mW1xBcQ"
    digest = sha256_commitment(text, salt)
    reply = sealed_judge.send(game.keys["FRANCE"].email, game.signon("FRANCE") + f"COMMIT SHA256 {digest}\n").reply
    assert "ERROR" not in reply.body, reply.body
    commit_all(game, except_for=("FRANCE",))
    wrong = game.reveal("FRANCE", (text + "SALT not-the-same-salt-xx\n").encode())
    assert "do NOT match" in wrong.reply.body
    right = game.reveal("FRANCE", (text + salt + "\n").encode())
    assert "revealed orders verified" in right.reply.body and "A PAR - BUR" in right.reply.body


def test_the_masters_process_and_preview_in_a_sealed_game(game):
    master = "SIGNON master@g1 masterpw\n"
    game.commit("FRANCE", files("FRANCE"))
    early = game.judge.send(MASTER, master + "PROCESS\n").reply.body
    assert "ERROR" in early and "not all in" in early and "FRANCE" not in early
    assert "ERROR" in game.judge.send(MASTER, master + "PREVIEW\n").reply.body
    forced = game.judge.send(MASTER, master + "PROCESS!\n")
    assert "commitments for S1901M published" in forced.reply.body
    assert forced.of_kind("commitments")
    # France, the only power that committed, reveals: nothing else to wait for, processed.
    revealed = game.reveal("FRANCE", files("FRANCE"))
    assert "revealed orders verified" in revealed.reply.body
    document = json.loads(revealed.of_kind("results")[0].attachments()["g1-S1901M.json"])
    assert document["sealed"]["FRANCE"]["outcome"] == VERIFIED
    assert document["sealed"]["ENGLAND"]["outcome"] == "no_commitment"
    assert sorted(document["input"]["orders"]) == ["FRANCE"]
    # F1901M: nobody commits; PROCESS! publishes an empty list and processes at once.
    done = game.judge.send(MASTER, master + "PROCESS!\n")
    assert "nothing to reveal, so F1901M was processed" in done.reply.body, done.reply.body
