"""deploy/install-systemd.sh run for real under a temporary PREFIX: the configuration, the
data folder, the judge in a venv under opt/ (it runs, and `judge db upgrade` works as the
guide says), and units that `systemd-analyze verify` accepts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
ANALYZE = shutil.which("systemd-analyze")


def source_copy(into: Path) -> Path:
    """The working tree without .git and build leftovers: building writes into it."""
    shutil.copytree(REPO, into, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", "build",
                                                                ".pytest_cache", ".hypothesis"))
    return into


def verify(unit: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("deploy")
    prefix = work / "root"
    opt = prefix / "opt" / "dipjudge"
    env = dict(os.environ, PREFIX=str(prefix), SRC=str(source_copy(work / "src")), PYTHON=sys.executable,
               # offline: the venv sees this Python's setuptools and wheel, pip builds without an index
               VENV_OPTIONS="--system-site-packages --without-pip",
               PIP=f"{sys.executable} -m pip --python {opt / 'bin' / 'python'}",
               PIP_OPTIONS="--no-deps --no-build-isolation --no-index")
    done = subprocess.run(["sh", str(DEPLOY / "install-systemd.sh")], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "judge (dipjudge)" in done.stdout  # the installed command answered --version
    assert f"sudo -u judge {opt}/bin/judge db upgrade --config {prefix}/etc/judge/judge.toml" in done.stdout
    again = subprocess.run(["sh", str(DEPLOY / "install-systemd.sh")], env=env, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr  # safe to run again (an upgrade does that)
    return prefix


def test_configuration_and_data_folder_are_private(installed: Path) -> None:
    config = installed / "etc" / "judge" / "judge.toml"
    assert config.read_text() == (DEPLOY / "judge.toml.example").read_text()
    assert config.stat().st_mode & 0o777 == 0o640
    assert (installed / "etc" / "judge").stat().st_mode & 0o777 == 0o750
    assert (installed / "var" / "lib" / "judge").stat().st_mode & 0o777 == 0o700


def test_the_venv_judge_upgrades_a_database_as_the_guide_says(installed: Path, tmp_path: Path) -> None:
    judge = installed / "opt" / "dipjudge" / "bin" / "judge"
    data = installed / "var" / "lib" / "judge"
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_") and k != "PYTHONPATH"}
    # The installed example as it is: SQLite in the data folder, nothing to blank by hand.
    env.update(JUDGE_CONFIG=str(installed / "etc" / "judge" / "judge.toml"), JUDGE_JUDGE_DATA_DIR=str(data))
    done = subprocess.run([str(judge), "db", "upgrade"], env=env, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    status = subprocess.run([str(judge), "db", "status"], env=env, capture_output=True, text=True, timeout=120,
                            cwd=tmp_path)
    assert status.returncode == 0 and str(data / "judge.db") in status.stdout


@pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verifies_the_installed_unit(installed: Path) -> None:
    unit = installed / "etc" / "systemd" / "system" / "judge.service"
    text = unit.read_text()
    assert f"ExecStart={installed}/opt/dipjudge/bin/judge serve" in text
    assert f"JUDGE_JUDGE_DATA_DIR={installed}/var/lib/judge" in text
    result = verify(unit)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verifies_the_backup_service_and_timer(tmp_path: Path) -> None:
    for name in ("judge-backup.service", "judge-backup.timer"):
        shutil.copy(DEPLOY / name, tmp_path / name)
    for name in ("judge-backup.service", "judge-backup.timer"):
        result = verify(tmp_path / name)
        assert result.returncode == 0, result.stderr
