"""At game start each player's game key is their address key (SET KEY without SIGNON),
unless they registered a key for the game: the game keeps the keys it started with."""

from __future__ import annotations

from sqlalchemy import select

from judge.store.models_game import Membership
from judge.store.models_sealed import KEY_ACTIVE, PlayerKey
from tests.judge.sealed.harness import MASTER, SealedGame

NEW_ADDRESS = "france-new@example.net"


def test_address_keys_are_copied_into_the_game_at_its_start(game: SealedGame) -> None:
    with game.judge.session() as session:
        for member in session.execute(select(Membership).where(Membership.role == "player")).scalars():
            pinned = session.execute(select(PlayerKey).where(
                PlayerKey.membership_id == member.id, PlayerKey.status == KEY_ACTIVE)).scalar_one()
            assert pinned.game_id == member.game_id
            assert pinned.fingerprint == member.key_fingerprint == game.keys[member.power].fingerprint

    # France moves to an address with no key on this judge: the game still knows its key.
    moved = game.judge.send(game.keys["FRANCE"].email, game.signon("FRANCE") + f"SET ADDRESS {NEW_ADDRESS}\n").reply
    assert "ERROR" not in moved.body, moved.body
    accepted = game.commit("FRANCE", b"A PAR H\n", sender=NEW_ADDRESS)
    assert "ERROR" not in accepted.reply.body, accepted.reply.body


def test_a_key_registered_for_the_game_wins_over_the_address_key(sealed_judge, seven_players) -> None:
    england, france = seven_players[1], seven_players[2]
    reply = sealed_judge.send(MASTER, "CREATE g1 masterpw\nRULE SEALED\nFORM\n").reply
    assert "ERROR" not in reply.body, reply.body
    for index, player in enumerate(seven_players):
        assert "ERROR" not in sealed_judge.send(player.email, "SET KEY\n" + player.public_key).reply.body
    # The first player registers England's key for this game before it starts.
    first = seven_players[0]
    joined = sealed_judge.send(first.email, "JOIN g1 pw0\nSET KEY\n" + england.public_key).reply
    assert "ERROR" not in joined.body, joined.body
    for index, player in enumerate(seven_players[1:], start=1):
        sealed_judge.send(player.email, f"JOIN g1 pw{index}\n")
    with sealed_judge.session() as session:
        members = {m.address: m for m in session.execute(select(Membership).where(Membership.role == "player")).scalars()}
        assert members[first.email].key_fingerprint == england.fingerprint
        keys = session.execute(select(PlayerKey.fingerprint).where(
            PlayerKey.membership_id == members[first.email].id, PlayerKey.status == KEY_ACTIVE)).scalars().all()
        assert keys == [england.fingerprint]  # not replaced by the address key
        assert members[france.email].key_fingerprint == france.fingerprint
