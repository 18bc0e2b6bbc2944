"""``judge serve`` as a real process under a low open-file limit: a flood of idle DAIDE
connections is capped below the limit (the rest closed at once), mail keeps its latency
meanwhile, the log stays short, and a bot is served after (the idle ones told OFF when
their time to name themselves is up: tests/daide/test_doors.py); SIGTERM with bots connected tells each OFF
and stops without a traceback."""

from __future__ import annotations

import email
import smtplib
import socket
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

from daide import framing
from daide.framing import Kind
from daide.messages import encode, from_text
from daide.tokens import TokenTable
from tests.fixtures.judge_process import JudgeProcess, JudgeRunner
from tests.fixtures.ports import free_port, wait_for_port
from tests.judge.storage import make_mail

JUDGE = "judge@example.org"
IM = framing.initial_message()
NME = framing.pack(Kind.DM, encode(from_text('NME ("bot") ("v1")'), TokenTable.standard()))
OFF = framing.pack(Kind.DM, encode(("OFF",), TokenTable.standard()))


def _environment(port: int) -> dict[str, str]:
    return {"JUDGE_JUDGE_ADDRESS": JUDGE, "JUDGE_JUDGE_DOMAIN": "example.org",
            "JUDGE_DAIDE_PORT_RANGE": f"{port}-{port}", "JUDGE_DAIDE_POLL_SECONDS": "0.1",
            "JUDGE_OUTBOUND_POLL_SECONDS": "0.1", "JUDGE_WORKER_POLL_SECONDS": "0.1",
            "JUDGE_DAIDE_FD_RESERVE": "100", "JUDGE_DAIDE_CONNECTIONS_PER_ADDRESS": "10000",
            "JUDGE_DAIDE_CONNECTIONS_PER_GAME": "10000", "JUDGE_DAIDE_NAME_SECONDS": "30"}


def _replies(workdir: Path) -> list[EmailMessage]:
    folder = workdir / "outbox" / "new"
    return [email.message_from_bytes(path.read_bytes(), policy=default_policy)  # type: ignore[misc]
            for path in sorted(folder.glob("*.eml"))] if folder.is_dir() else []


def _mail(judge: JudgeProcess, sender: str, body: str, timeout: float = 30) -> tuple[str, float]:
    """``body`` over SMTP; the reply's text and the seconds from sending to the reply in the outbox."""
    raw = make_mail(subject="commands", body=body, sender=sender, to=JUDGE)
    message_id = email.message_from_bytes(raw, policy=default_policy)["Message-ID"]
    started = time.monotonic()
    with smtplib.SMTP("127.0.0.1", judge.smtp_port, timeout=10) as client:
        client.sendmail(sender, [JUDGE], raw)
    while time.monotonic() - started < timeout:
        found = [m for m in _replies(judge.workdir) if m["In-Reply-To"] == message_id]
        if found:
            return found[0].get_body(("plain",)).get_content(), time.monotonic() - started
        time.sleep(0.02)
    raise AssertionError(f"no reply to {body!r}:\n{judge.log}")


def _machine_game(judge_runner: JudgeRunner, workdir: Path, open_files: int | None = None) -> tuple[JudgeProcess, int]:
    port = free_port()
    judge = judge_runner.start(workdir, _environment(port), open_files=open_files)
    reply, _ = _mail(judge, "master@example.net", "CREATE g1 masterpw\nRULE MACHINES\nFORM\n")
    assert f"port {port} of the judge's host" in reply, reply
    wait_for_port(port, timeout=20)
    return judge, port


def _frames_until_closed(sock: socket.socket, timeout: float) -> bytes:
    sock.settimeout(timeout)
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def _idle_connection(port: int) -> tuple[socket.socket, bytes]:
    """A connection that sends the IM and nothing else; the first bytes it hears (b"": closed at once)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        sock.sendall(IM)
        return sock, sock.recv(4)
    except ConnectionResetError:  # closed before anything was read
        return sock, b""


def test_a_flood_of_idle_connections_is_capped_below_the_open_file_limit_and_mail_goes_on(
        judge_runner: JudgeRunner, tmp_path: Path) -> None:
    judge, port = _machine_game(judge_runner, tmp_path, open_files=200)
    cap = 200 - 100  # the open-file limit less [daide] fd_reserve
    with ThreadPoolExecutor(32) as pool:  # at once, as an attacker would
        flood = list(pool.map(_idle_connection, [port] * 400))
    admitted = [sock for sock, first in flood if first[:1] == b"\x01"]  # the RM: served
    closed = [sock for sock, first in flood if first == b""]
    assert len(admitted) + len(closed) == len(flood) and cap - 20 <= len(admitted) <= cap, len(admitted)
    # while the flood holds every connection it may, mail is taken in and answered as ever
    latencies = [_mail(judge, f"player{n}@example.net", "LIST\n")[1] for n in range(4)]
    assert statistics.median(latencies) < 1.0 and max(latencies) < 2.0, latencies
    for sock, _ in flood:
        sock.close()
    time.sleep(0.5)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as bot:  # a bot is served after
        bot.sendall(IM)
        assert bot.recv(4)[:1] == b"\x01"
    log = judge.log
    assert "Too many open files" not in log
    assert log.count("closed at once") <= 10, log.count("closed at once")  # the rest counted, not written
    reply, _ = _mail(judge, "late@example.net", "LIST\n")
    assert "g1" in reply
    assert _peak_rss_mb(judge.process.pid) < 300  # issue 24's goal, under the flood
    assert judge.terminate() == 0


def _peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (VmHWM) so far, in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    [line] = [row for row in status.splitlines() if row.startswith("VmHWM:")]
    return int(line.split()[1]) / 1024


def test_sigterm_with_bots_connected_tells_each_off_and_stops_quietly(
        judge_runner: JudgeRunner, tmp_path: Path) -> None:
    judge, port = _machine_game(judge_runner, tmp_path)
    bots = []
    for _ in range(3):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(IM)
        sock.sendall(NME)
        bots.append(sock)
    judge.wait_for_log("DAIDE machine players")
    time.sleep(0.5)
    assert judge.terminate() == 0
    for sock in bots:
        heard = _frames_until_closed(sock, 10)
        assert heard.endswith(OFF), heard[-12:]
        sock.close()
    assert "Traceback" not in judge.log and "CancelledError" not in judge.log, judge.log
