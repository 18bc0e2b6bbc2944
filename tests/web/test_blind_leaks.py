"""A blind-assignment game (RULE BLIND_ASSIGN alone, no GUNBOAT) in the archive: who plays
which power is the secret the whole protocol keeps (each player learns only its own power),
so no file of the archive may pair a player with a power before the game ends; once it has
ended, the powers' players are shown as in any game."""

from __future__ import annotations

import random
from pathlib import Path

from sqlalchemy import select

from judge.lifecycle import ENDED, move
from judge.store.models_game import PLAYER, Game, Membership
from judge.web.build import Archive
from tests.judge.commands import test_fair_blind as blind
from tests.judge.commands.test_fair_blind import (  # noqa: F401  (judge_keys: the judges' GnuPG homes)
    MASTER, PLAYERS, Network, Node, Player, judge_keys, process_mail, process_witness_mail)
from tests.web.test_no_leaks import _texts

NAMES = tuple(f"Blind Player {index}" for index in range(7))


def _blind_game(tmp_path: Path) -> Network:
    # blind.GM and blind.WITNESS as judge_keys set them for this test: each with its own GnuPG home.
    gm = Node(tmp_path / "gm", blind.GM, process_mail)
    witness = Node(tmp_path / "witness", blind.WITNESS, process_witness_mail)
    rng = random.Random(30)
    net = Network(gm, witness, {a: Player(a, random.Random(rng.random())) for a in PLAYERS})
    net.send(MASTER, blind.GM.address, f"CREATE g1 masterpw\nRULE BLIND_ASSIGN\nWITNESS {blind.WITNESS.address}\nFORM\n")
    for index, address in enumerate(PLAYERS):
        net.send(f'"{NAMES[index]}" <{address}>', blind.GM.address, f"JOIN g1 pw{index}\n")
    return net


def test_no_file_pairs_a_player_with_a_power_before_the_end(tmp_path: Path) -> None:
    net = _blind_game(tmp_path)
    with net.gm.store.unit_of_work() as session:
        game = session.execute(select(Game)).scalar_one()
        assert game.status == "active" and "BLIND_ASSIGN" in game.rules and "GUNBOAT" not in game.rules
        members = session.scalars(select(Membership).where(Membership.role == PLAYER)).all()
        seats = {m.name: m.power for m in members}
    assert set(seats) == set(NAMES) and all(seats.values())  # the secret is in the store
    root = tmp_path / "web"
    archive = Archive(net.gm.store, root, "gm.example")
    assert archive.rebuild().games == ["g1"]
    found = [(str(path.relative_to(root)), secret) for path, text in _texts(root)
             for secret in (*NAMES, *PLAYERS, "pw0", "masterpw") if secret in text]
    assert found == []
    page = (root / "games" / "g1" / "index.html").read_text()
    assert "Who plays which power is secret until the game ends." in page

    with net.gm.store.unit_of_work() as session:  # the game ends: now the players may be named
        move(session.execute(select(Game)).scalar_one(), ENDED)
    archive.refresh()
    page = (root / "games" / "g1" / "index.html").read_text()
    for name, power in seats.items():
        assert f'<th scope="row">{power}</th><td><bdi>{name}</bdi></td>' in page
