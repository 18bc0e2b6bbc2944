"""The guide's PostgreSQL steps on a real server (the tests' throwaway cluster): the setup
script creates the role and the database (twice: nothing breaks), the judge upgrades the
schema as that role, and the backup's `pg_dump` line makes a dump pg_restore can read."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.judge_process import run_judge
from tests.fixtures.postgres import SUPERUSER_PASSWORD

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
pytestmark = pytest.mark.skipif(shutil.which("psql") is None or shutil.which("pg_dump") is None,
                                reason="needs psql and pg_dump")


def as_superuser(server) -> dict[str, str]:
    return dict(os.environ, PGHOST=server.host, PGPORT=str(server.port), PGUSER="postgres",
                PGPASSWORD=SUPERUSER_PASSWORD)


def test_role_database_upgrade_and_dump(postgres_server, tmp_path: Path) -> None:
    env = dict(as_superuser(postgres_server), JUDGE_DB_USER="deployjudge", JUDGE_DB_NAME="deployjudge",
               JUDGE_DB_PASSWORD="s3cret'quote")
    for _ in range(2):
        done = subprocess.run(["sh", str(DEPLOY / "postgres-setup.sh")], env=env, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        assert "role deployjudge and database deployjudge are ready" in done.stdout
    missing = subprocess.run(["sh", str(DEPLOY / "postgres-setup.sh")], env=as_superuser(postgres_server),
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "set JUDGE_DB_PASSWORD" in missing.stderr

    url = postgres_server.url("deployjudge", user="deployjudge", password="s3cret%27quote")
    upgraded = run_judge(["db", "upgrade"], tmp_path, {"JUDGE_STORE_URL": url})
    assert upgraded.returncode == 0, upgraded.stderr
    status = run_judge(["db", "status"], tmp_path, {"JUDGE_STORE_URL": url})
    assert status.returncode == 0 and "deployjudge" in status.stdout and "s3cret" not in status.stdout

    dump = tmp_path / "judge.pgdump"  # as judge-backup.service runs it
    dumped = subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", "deployjudge"],
                            env=dict(as_superuser(postgres_server), PGUSER="deployjudge",
                                     PGPASSWORD="s3cret'quote"), capture_output=True, text=True, timeout=60)
    assert dumped.returncode == 0, dumped.stderr
    listing = subprocess.run(["pg_restore", "--list", str(dump)], capture_output=True, text=True, timeout=60)
    assert listing.returncode == 0 and "TABLE public game" in listing.stdout
