"""Configuration errors are one clear line, never a traceback (issue 12.7), through the CLI."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest


def judge(*args: str, env: dict[str, str] | None = None, cwd=None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], capture_output=True, text=True,
                          env=environment, cwd=cwd, timeout=60)


def one_clear_line(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if " ERROR " not in line and " INFO " not in line]
    assert len(lines) == 1, done.stderr
    assert all(word in lines[0] for word in words), lines[0]


@pytest.mark.parametrize("content, words", [
    ("\ufeff[smtp]\nport = 2525\n".encode("utf-16"), ("not UTF-8 text",)),
    (b"\x00\x01\x02\xff\xfe binary", ("not UTF-8 text",)),
])
def test_a_config_file_that_is_not_text(tmp_path, content, words):
    path = tmp_path / "judge.toml"
    path.write_bytes(content)
    one_clear_line(judge("tick", "--config", str(path), cwd=tmp_path), "configuration error", *words)


@pytest.mark.parametrize("name, value, words", [
    ("JUDGE_SMTP_PORT", "-5", ("[smtp] port = -5", "0 to 65535")),
    ("JUDGE_SMTP_PORT", "99999", ("[smtp] port = 99999",)),
    ("JUDGE_SMTP_MAX_MESSAGE_BYTES", "-1", ("[smtp] max_message_bytes = -1", "at least 1")),
    ("JUDGE_OUTBOUND_MAX_ATTEMPTS", "0", ("[outbound] max_attempts = 0", "at least 1")),
    ("JUDGE_WORKER_MAX_ATTEMPTS", "0", ("[worker] max_attempts = 0", "at least 1")),
])
def test_numbers_out_of_range_are_refused(tmp_path, name, value, words):
    one_clear_line(judge("tick", env={name: value}, cwd=tmp_path), "configuration error", *words)


def test_an_unknown_store_url(tmp_path):
    one_clear_line(judge("tick", env={"JUDGE_STORE_URL": "foo://somewhere/db"}, cwd=tmp_path),
                   "is not a database URL this judge can use")
    one_clear_line(judge("db", "status", env={"JUDGE_STORE_URL": "foo://somewhere/db"}, cwd=tmp_path),
                   "is not a database URL")


def test_a_read_only_database(tmp_path):
    path = tmp_path / "judge.db"
    sqlite3.connect(path).close()  # empty: serving would create the schema
    url = f"sqlite:///file:{path}?mode=ro&uri=true"
    one_clear_line(judge("db", "upgrade", env={"JUDGE_STORE_URL": url}, cwd=tmp_path), "cannot use the database",
                   "readonly")


def test_a_busy_port_is_said_first_and_no_database_is_made(tmp_path):
    """Issue 17.15: a second judge serve on a busy port fails before touching the database."""
    import socket

    with socket.socket() as busy:
        busy.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = judge("serve", env={"JUDGE_SMTP_PORT": str(port), "JUDGE_DAIDE_HOST": ""}, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0].startswith(f"judge serve: cannot listen on 127.0.0.1:{port}")
    assert list(tmp_path.iterdir()) == []
