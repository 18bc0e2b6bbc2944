"""SET KEY and GET KEY over the real worker and gpg."""

from sqlalchemy import select

from judge.crypto.verdict import spaced
from judge.store.models_sealed import KEY_ACTIVE, KEY_PENDING, PlayerKey
from tests.judge.sealed.harness import MASTER


def test_set_key_reply_states_the_fingerprint(sealed_judge, seven_players):
    player = seven_players[0]
    reply = sealed_judge.send(player.email, "SET KEY\n" + player.public_key).reply
    assert "ERROR" not in reply.body
    assert spaced(player.fingerprint) in reply.body
    with sealed_judge.session() as session:
        row = session.execute(select(PlayerKey)).scalar_one()
        assert (row.address, row.fingerprint, row.status, row.game_id) == (player.email, player.fingerprint, KEY_ACTIVE, None)


def test_set_key_refuses_a_secret_key_and_garbage(sealed_judge):
    reply = sealed_judge.send("x@example.net", "SET KEY\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nAAAA\n-----END PGP PRIVATE KEY BLOCK-----\n").reply
    assert "ERROR" in reply.body
    with sealed_judge.session() as session:
        assert session.execute(select(PlayerKey)).first() is None


def test_get_key_returns_the_judge_key_that_signs_broadcasts(sealed_judge):
    reply = sealed_judge.send("x@example.net", "GET KEY\n").reply
    assert "-----BEGIN PGP PUBLIC KEY BLOCK-----" in reply.body
    from judge.publish.signing import ensure_judge_key

    fingerprint = ensure_judge_key(sealed_judge.settings)
    assert spaced(fingerprint) in reply.body


def test_key_change_after_the_start_waits_for_the_master(game):
    judge = game.judge
    france, england = game.keys["FRANCE"], game.keys["ENGLAND"]
    # France tries to register England's key for France once the game runs.
    outcome = judge.send(france.email, game.signon("FRANCE") + "SET KEY\n" + england.public_key)
    assert "waiting for the master's approval" in outcome.reply.body
    request = [m for m in outcome.mails if m.kind == "key_request"]
    assert len(request) == 1 and request[0].recipients == (MASTER,)
    with judge.session() as session:
        pending = session.execute(select(PlayerKey).where(PlayerKey.status == KEY_PENDING)).scalar_one()
        assert pending.fingerprint == england.fingerprint
    # Until approved, a commitment by the new key is refused.
    refused = game.commit("FRANCE", b"A PAR H\n", signer="ENGLAND")
    assert "ERROR" in refused.reply.body and "not your registered key" in refused.reply.body
    # The master approves by sending the same key back.
    approved = judge.send(MASTER, "SIGNON master@g1 masterpw\nSET KEY\n" + england.public_key).reply
    assert "approved" in approved.body, approved.body
    accepted = game.commit("FRANCE", b"A PAR H\n", signer="ENGLAND")
    assert "ERROR" not in accepted.reply.body, accepted.reply.body


def test_master_cannot_install_a_key_nobody_asked_for(game, seven_players):
    reply = game.judge.send(MASTER, "SIGNON master@g1 masterpw\nSET KEY\n" + seven_players[0].public_key).reply
    assert "ERROR" in reply.body and "no player" in reply.body
