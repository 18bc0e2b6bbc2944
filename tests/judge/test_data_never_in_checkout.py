"""The judge's data never lands in a git checkout or an image: every file a judge keeps
(database, WAL and lock files, outbox, secret key, backups) is ignored by the repository's
.gitignore, checked with git itself, and named by .dockerignore."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA_FILES = [
    "judge.db", "judge.db-wal", "judge.db-shm", "judge.db-journal", "judge.db.writer-lock",
    "outbox/new/1764000000.M1P2.host.eml", "outbox/tmp/x.eml",
    "gnupg/private-keys-v1.d/ABCDEF.key", "gnupg/pubring.kbx",
    "judge-secret.asc", "judge-backup-2026-11-25/judge.db", "nightly.judge-backup",
]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_ignores_every_data_file_even_inside_the_checkout(tmp_path):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copy(REPO / ".gitignore", checkout / ".gitignore")
    subprocess.run(["git", "init", "-q"], cwd=checkout, check=True)
    for name in DATA_FILES:
        for where in (checkout / name, checkout / "data_dir_here" / name):
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_bytes(b"secret")
    shown = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=checkout,
                           capture_output=True, text=True, check=True).stdout.split("\n")
    assert [line for line in shown if line.strip()] == ["?? .gitignore"]


def test_dockerignore_names_every_kind_of_data_file():
    patterns = [line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    for wanted in ("**/*.db", "**/*.db-wal", "**/*.db-shm", "**/*.db-journal", "**/*.db.writer-lock",
                   "**/outbox", "**/gnupg", "**/*secret*.asc", "**/judge-backup*", ".git"):
        assert wanted in patterns
