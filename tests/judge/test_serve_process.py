"""``judge serve`` as a real process: defaults, SIGKILL between intake and commit, SIGTERM."""

import email
import smtplib
import time
from email.policy import default
from pathlib import Path

from sqlalchemy import select, text

from judge.store.engine import Store
from judge.store.models_mail import InboundMessage, OutboxMessage
from tests.fixtures.judge_process import run_judge
from tests.judge.storage import make_mail

ECHO = {"JUDGE_WORKER_HANDLER": "tests.judge.handlers:echo", "JUDGE_WORKER_POLL_SECONDS": "0.2",
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.2"}


def send(port, raw, mail_from="anna@example.net"):
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.sendmail(mail_from, ["judge@localhost"], raw)


def eml_files(workdir: Path):
    directory = workdir / "outbox" / "new"
    return sorted(directory.iterdir()) if directory.exists() else []


def wait_for(condition, timeout=15.0, what="condition"):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def db_rows(workdir: Path):
    store = Store(f"sqlite:///{workdir / 'judge.db'}")
    try:
        with store.unit_of_work() as session:
            inbound = [(m.id, m.status) for m in session.execute(select(InboundMessage)).scalars()]
            outbox = [(o.inbound_id, o.status) for o in session.execute(select(OutboxMessage)).scalars()]
        return inbound, outbox
    finally:
        store.dispose()


def test_serve_with_no_configuration(tmp_path, judge_runner):
    workdir = tmp_path / "checkout"
    workdir.mkdir()
    data = tmp_path / "xdg" / "dipjudge"  # the per-user data folder, $XDG_DATA_HOME/dipjudge
    judge = judge_runner.start(workdir, {"JUDGE_JUDGE_DATA_DIR": "", "XDG_DATA_HOME": str(tmp_path / "xdg")})
    send(judge.smtp_port, make_mail(subject="hello judge", message_id="<first@example.net>"))
    wait_for(lambda: eml_files(data), what="a reply in outbox/new of the data folder")
    assert judge.terminate() == 0
    assert f"data folder {data} (SQLite store, outbox, the judge's key)" in judge.log
    assert (data / "judge.db").exists() and data.stat().st_mode & 0o777 == 0o700
    assert list(workdir.iterdir()) == []  # nothing of the judge's data in the working directory
    [reply_path] = eml_files(data)
    reply = email.message_from_bytes(reply_path.read_bytes(), policy=default)
    assert reply["To"] == "anna@example.net"
    assert reply["In-Reply-To"] == "<first@example.net>"
    assert reply["From"].addresses[0].addr_spec == "judge@localhost"
    assert reply["Auto-Submitted"] == "auto-replied"
    assert "stopped" in judge.log


def test_sigkill_between_intake_and_commit_then_restart_processes_once(tmp_path, judge_runner):
    paused = judge_runner.start(tmp_path, {**ECHO, "JUDGE_WORKER_PAUSE_BEFORE_COMMIT_SECONDS": "60"})
    raw = make_mail(subject="orders", message_id="<crash@example.net>")
    send(paused.smtp_port, raw)  # 250: the message is stored
    paused.wait_for_log("pausing")  # processed, not committed
    paused.kill()
    inbound, outbox = db_rows(tmp_path)
    assert inbound == [(1, "received")] and outbox == []
    assert eml_files(tmp_path) == []

    restarted = judge_runner.start(tmp_path, ECHO)
    wait_for(lambda: eml_files(tmp_path), what="the reply after the restart")
    send(restarted.smtp_port, raw)  # the client's MTA retrying: recognised, not redone
    send(restarted.smtp_port, make_mail(subject="later"))
    wait_for(lambda: len(eml_files(tmp_path)) >= 2, what="the reply to the later mail")
    assert restarted.terminate() == 0
    inbound, outbox = db_rows(tmp_path)
    assert inbound == [(1, "processed"), (2, "processed")]
    assert outbox == [(1, "sent"), (2, "sent")]
    bodies = [email.message_from_bytes(p.read_bytes(), policy=default).get_content() for p in eml_files(tmp_path)]
    assert sorted(bodies) == ["processed #1\n", "processed #2\n"]


def test_sigterm_finishes_the_message_in_hand(tmp_path, judge_runner):
    judge = judge_runner.start(tmp_path, {**ECHO, "JUDGE_WORKER_PAUSE_BEFORE_COMMIT_SECONDS": "1.5"})
    send(judge.smtp_port, make_mail(subject="in hand"))
    judge.wait_for_log("pausing")
    assert judge.terminate() == 0  # exits only after the commit of the message in hand
    inbound, outbox = db_rows(tmp_path)
    assert inbound == [(1, "processed")]
    assert [row[0] for row in outbox] == [1]


def test_serve_refuses_an_old_schema_naming_the_command(tmp_path, judge_runner):
    assert run_judge(["db", "upgrade"], tmp_path).returncode == 0
    store = Store(f"sqlite:///{tmp_path / 'judge.db'}")
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0000old'"))
    store.dispose()
    judge = judge_runner.start(tmp_path, wait=False)
    assert judge.process.wait(timeout=30) == 1
    judge._reader.join(timeout=5)
    assert "judge db upgrade" in judge.log and "0000old" in judge.log


def test_db_upgrade_and_status(tmp_path):
    status = run_judge(["db", "status"], tmp_path)
    assert status.returncode == 1 and "none (empty)" in status.stdout
    first = run_judge(["db", "upgrade"], tmp_path)
    assert first.returncode == 0 and "upgraded from an empty database" in first.stdout
    again = run_judge(["db", "upgrade"], tmp_path)
    assert again.returncode == 0 and "already at revision" in again.stdout
    assert run_judge(["db", "status"], tmp_path).returncode == 0


def test_bad_configuration_is_reported(tmp_path):
    config = tmp_path / "judge.toml"
    config.write_text("[smtp]\nport = \"twenty-five\"\n")
    result = run_judge(["serve", "--config", str(config)], tmp_path)
    assert result.returncode == 2
    assert "'twenty-five'" in result.stderr and "whole number" in result.stderr


def test_busy_port_is_reported(tmp_path, judge_runner):
    import socket

    with socket.socket() as occupant:
        occupant.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        occupant.bind(("127.0.0.1", 0))
        occupant.listen()
        port = occupant.getsockname()[1]
        judge = judge_runner.start(tmp_path, {"JUDGE_SMTP_PORT": str(port)}, wait=False)
        assert judge.process.wait(timeout=60) == 1
    judge._reader.join(timeout=5)
    assert f"cannot listen on 127.0.0.1:{port}" in judge.log
