"""`judge player escrow build|peel|inspect` with seven players' own keyrings."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from judge.cli import main
from judge.crypto.commitments import read_number, verify_reveal
from judge.crypto.escrow import accept_peeled, mark_vanished, parse_plan, start_peeling, whom_to_ask
from judge.crypto.gpg import agent_pids

LETTERS = "ABCDEFG"


@pytest.fixture(scope="module")
def players(seven_players):
    return dict(zip(LETTERS, seven_players))


def layers_by_address(players, spec: str = "B,C,D,E;F+G;E+F;D+E;C+B;B+G") -> str:
    return ";".join(",".join(players[letter].email for letter in stage.replace("+", ",").split(","))
                    for stage in spec.split(";"))


def run(*argv: str) -> int:
    return main(["player", "escrow", *argv])


@pytest.fixture(scope="module")
def built(players, tmp_path_factory) -> Path:
    prefix = tmp_path_factory.mktemp("escrow") / "austria-lottery1"
    code = run("build", "--gnupghome", str(players["A"].home), "--signer", players["A"].email,
               "--number", "3", "--outcomes", "7", "--layers", layers_by_address(players),
               "--prefix", str(prefix))
    assert code == 0
    return prefix


def files(prefix: Path) -> dict[str, Path]:
    return {kind: prefix.with_name(prefix.name + suffix) for kind, suffix in
            {"number": ".txt", "commitment": ".asc", "escrow": "-escrow.asc", "plan": "-plan.txt"}.items()}


def test_build_writes_number_commitment_escrow_and_plan(judge_keyring, players, built, capsys) -> None:
    paths = files(built)
    assert paths["number"].read_bytes() == b"3\n"
    assert verify_reveal(judge_keyring, paths["commitment"].read_bytes(), b"3\n", players["A"].fingerprint).valid
    assert paths["escrow"].read_text().startswith("-----BEGIN PGP MESSAGE-----")
    plan = parse_plan(paths["plan"].read_text())
    assert plan[-1] == [players["B"].fingerprint, players["G"].fingerprint]  # opened first
    assert plan[0] == [players[x].fingerprint for x in "BCDE"]  # opened last


def test_inspect_shows_signer_and_who_can_open(players, built, capsys) -> None:
    code = run("inspect", "--gnupghome", str(players["D"].home), "--escrower", players["A"].email,
               "--in", str(files(built)["escrow"]))
    out = capsys.readouterr().out
    assert code == 0 and "good signature by Austria" in out
    assert "England <england@players.test> or Turkey <turkey@players.test>" in out


def peel_chain(judge_keyring, players, built: Path, tmp: Path, vanished: set[str]):
    """The judge asks; each asked player who has not vanished runs `judge player escrow peel`
    on the last published layer and publishes the output."""
    paths = files(built)
    peeling = start_peeling(judge_keyring, paths["escrow"].read_bytes(), players["A"].fingerprint,
                            paths["commitment"].read_bytes(), parse_plan(paths["plan"].read_text()))
    published = paths["escrow"]
    by_fingerprint = {p.fingerprint: letter for letter, p in players.items()}
    opened_by = []
    while not peeling.finished:
        for fingerprint in whom_to_ask(peeling):
            letter = by_fingerprint[fingerprint]
            if letter in vanished:
                peeling = mark_vanished(peeling, fingerprint)
                continue
            output = tmp / f"layer{peeling.stage + 2}-by-{letter}.asc"
            code = run("peel", "--gnupghome", str(players[letter].home), "--escrower", players["A"].fingerprint,
                       "--in", str(published), "--out", str(output))
            assert code == 0
            peeling, answer = accept_peeled(judge_keyring, peeling, output.read_bytes(), fingerprint)
            assert answer.accepted, answer.reason
            published = output
            opened_by.append(letter)
            break
    return peeling, opened_by


def test_last_player_vanishes_others_peel_with_the_command(judge_keyring, players, built, tmp_path) -> None:
    peeling, opened_by = peel_chain(judge_keyring, players, built, tmp_path, vanished={"A"})
    assert read_number(peeling.number_file, 7) == 3
    assert opened_by == ["B", "C", "D", "E", "F", "B"]


def test_one_of_a_pair_vanishes_the_other_peels(judge_keyring, players, built, tmp_path) -> None:
    peeling, opened_by = peel_chain(judge_keyring, players, built, tmp_path, vanished={"F", "B"})
    # F+G and E+F: G and E stand in; B+G and C+B: G and C; the innermost: C, D or E.
    assert read_number(peeling.number_file, 7) == 3
    assert opened_by == ["G", "C", "D", "E", "G", "C"]


def test_peel_by_a_player_the_layer_is_not_for(players, built, tmp_path, capsys) -> None:
    code = run("peel", "--gnupghome", str(players["C"].home), "--escrower", players["A"].email,
               "--in", str(files(built)["escrow"]), "--out", str(tmp_path / "x.asc"))
    assert code == 1 and "not addressed to a key you hold" in capsys.readouterr().err
    assert not (tmp_path / "x.asc").exists()


@pytest.mark.parametrize("argv, message", [
    (["--number", "7", "--outcomes", "7", "--layers", "B,C"], "--number 7 is outside 0..6"),
    (["--number", "1", "--layers", "B,C;;D"], "names nobody"),
    (["--number", "1", "--layers", "nobody@nowhere.test"], "no key matches 'nobody@nowhere.test'"),
])
def test_build_bad_input(players, tmp_path, capsys, argv, message) -> None:
    code = run("build", "--gnupghome", str(players["A"].home), "--signer", players["A"].email,
               "--prefix", str(tmp_path / "n"), *argv)
    assert code == 2 and message in capsys.readouterr().err


def test_installed_command_peels_from_stdin(players, built) -> None:
    judge = shutil.which("judge")
    assert judge, "the judge console script is installed with the project"
    result = subprocess.run(
        [judge, "player", "escrow", "peel", "--gnupghome", str(players["G"].home),
         "--escrower", players["A"].email],
        input=files(built)["escrow"].read_bytes(), capture_output=True, check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.startswith(b"-----BEGIN PGP MESSAGE-----")
    assert b"publish the output" in result.stderr


def test_no_agent_left_for_player_homes(players) -> None:
    for letter, player in players.items():
        assert agent_pids(player.home) == [], letter


def test_player_command_wires_blind_too(capsys) -> None:
    # judge/player/cli.py registers the blind helper next to escrow.
    assert main(["player", "blind", "add", "44560464", "54646487"]) == 0
    assert "98106841" in capsys.readouterr().out
