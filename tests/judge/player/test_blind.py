"""``judge player blind``, run as the real command (``python -m judge.cli player blind``)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from judge.fair.blind import MessageFormat, add_digits
from judge.player.blind import main

POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")


JUDGE_PLAYER = (sys.executable, "-m", "judge.cli", "player")


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*JUDGE_PLAYER, "blind", *args], capture_output=True, text=True, input=stdin, timeout=60)


def test_add_and_sub_reproduce_the_reference_example() -> None:
    assert run("add", "44560464", "54646487").stdout.strip() == "98106841"
    assert run("add", "98106841", "87446534").stdout.strip() == "75542375"
    assert run("sub", "75542375", "54646487").stdout.strip() == "21906998"
    assert run("sub", "21906998", "87446534").stdout.strip() == "44560464"


def test_add_without_a_blind_draws_one_and_shows_it() -> None:
    result = run("add", "00000000")
    assert result.returncode == 0
    lines = dict(line.split(":", 1) for line in result.stdout.splitlines())
    blind, total = lines["blind"].split()[0], lines["result"].split()[0]
    assert len(blind) == 8 and total == blind  # 0 + blind = blind
    assert run("add", "00000000").stdout != result.stdout  # fresh each time


def test_try_finds_the_power_from_a_saved_blinds_email(tmp_path: Path) -> None:
    blinds = tmp_path / "blinds.txt"
    blinds.write_text(
        "Subject: blinds for game fairplay\n\nThe players' blinds, sorted:\n"
        "11111111\n23456789\n87446534\n90000001\nGame 42, 7 players.\n"
    )
    result = run("try", "--message", "21906998", "--format", "4456x464", "--blinds", str(blinds))
    assert result.returncode == 0, result.stderr
    assert "21906998 - 87446534 = 44560464" in result.stdout
    assert "power 0: AUSTRIA" in result.stdout


def test_try_reads_stdin_and_custom_power_orders() -> None:
    rng = random.Random(4)
    fmt = MessageFormat("93x1", ("NORTH", "SOUTH", "EAST"))
    message = add_digits(fmt.encode("EAST"), "5077")
    others = ["".join(str(rng.randrange(10)) for _ in range(4)) for _ in range(3)]
    result = run("try", "--message", message, "--format", "93x1", "--powers", "north,south,east",
                 "--blinds", "-", stdin="\n".join(others + ["5077"]))
    assert result.returncode == 0, result.stderr
    assert "power 2: EAST" in result.stdout


def test_try_reports_when_no_blind_fits() -> None:
    result = run("try", "--message", "21906998", "--format", "4456x464", "--blind", "11111111")
    assert result.returncode == 1
    assert "no power" in result.stderr and "21906998" in result.stderr


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("add", "4456046", "54646487"), "BLIND '54646487' has 8 digits, expected 7"),
        (("sub", "4456O464", "54646487"), "MESSAGE '4456O464' must consist of the digits 0-9 only"),
        (("try", "--message", "2190699", "--format", "4456x464", "--blind", "87446534"),
         "--message '2190699' has 7 digits, expected 8"),
        (("try", "--message", "21906998", "--format", "44560464", "--blind", "87446534"), "one run of 'x'"),
        (("try", "--message", "21906998", "--format", "4456x464"), "no 8-digit blinds given"),
        (("try", "--message", "21906998", "--format", "4456x464", "--blind", "8744653"),
         "blind '8744653' has 7 digits, expected 8"),
    ],
)
def test_bad_input_is_quoted(args: tuple[str, ...], problem: str, capsys: pytest.CaptureFixture[str]) -> None:
    # in-process through the same parser (register_blind) to keep the suite fast;
    # test_bad_input_from_the_real_command covers the real process
    assert main(["blind", *args]) == 2
    assert problem in capsys.readouterr().err


def test_bad_input_from_the_real_command() -> None:
    result = run("add", "4456046", "54646487")
    assert result.returncode == 2
    assert "BLIND '54646487' has 8 digits, expected 7" in result.stderr


def test_help_documents_the_options() -> None:
    text = run("try", "--help").stdout
    for option in ("--message", "--format", "--powers", "--blinds", "--blind"):
        assert option in text
    assert "without carry" in run("--help").stdout
