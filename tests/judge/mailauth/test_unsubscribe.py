"""One-click unsubscribe (RFC 8058) through the running judge: each copy of a game's mail
carries its recipient's own signed links; a POST to the https one (the real listener)
makes an observer leave and tells a player how to resign; forged and repeated clicks."""

from __future__ import annotations

import http.client
import re
import time
from urllib.parse import unquote

import pytest
from sqlalchemy import select

from judge.mailauth.keystore import recorded_keys
from judge.store.models_game import Membership
from judge.store.models_mail import InboundMessage
from tests.judge.mailauth.daemon_game import files, header, running_daemon, send
from tests.judge.mailauth.dkim_checks import dkimpy_verdicts

BASE = "https://dip.example.org/u"


@pytest.fixture
def daemon(tmp_path):
    yield from running_daemon(tmp_path, {"JUDGE_UNSUBSCRIBE_BASE_URL": BASE, "JUDGE_UNSUBSCRIBE_PORT": "0"})


def post(daemon, path: str, body: bytes = b"List-Unsubscribe=One-Click") -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", daemon.unsubscribe.port, timeout=10)
    connection.request("POST", path, body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
    answer = connection.getresponse()
    text = answer.read().decode()
    connection.close()
    return answer.status, text


def links(raw: bytes) -> tuple[str, str]:
    value = header(raw, "List-Unsubscribe") or ""
    https, mailto = re.findall(r"<([^>]+)>", value)
    return https, mailto


def status_of(daemon, address: str) -> str:
    with daemon.store.unit_of_work() as session:
        return session.execute(select(Membership.status).where(Membership.address == address)).scalar_one()


def mails_to(daemon, address: str, count: int) -> list[bytes]:
    deadline = time.monotonic() + 20
    while True:
        found = [r for r in files(daemon, 0) if header(r, "To") == address]
        if len(found) >= count:
            return found
        assert time.monotonic() < deadline, f"{len(found)} of {count} mails to {address}"
        time.sleep(0.05)


def test_one_click_for_an_observer_and_a_player(daemon):
    send(daemon, "gm@example.net", "CREATE un1 masterpw\nFORM\n")
    files(daemon, 1)
    send(daemon, "watcher@example.net", "OBSERVE watcher@un1 pw\n")
    mails_to(daemon, "watcher@example.net", 1)
    started, power_of = start_game_after(daemon)
    keys = tuple(recorded_keys(daemon.store).values())

    [seen] = [r for r in started if header(r, "To") == "watcher@example.net" and "game started" in header(r, "Subject")]
    https, mailto = links(seen)
    assert https.startswith(BASE + "/u") and mailto.startswith("mailto:judge@example.org?subject=UNSUBSCRIBE%20u")
    assert header(seen, "List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"
    assert dkimpy_verdicts(seen, "example.org", keys) == [True, True]  # the links are signed
    token = https.rsplit("/", 1)[1]
    assert unquote(mailto).endswith(f"UNSUBSCRIBE {token}")

    player = next(iter(power_of))
    [theirs] = [r for r in started if header(r, "To") == player and "game started" in header(r, "Subject")]
    player_token = links(theirs)[0].rsplit("/", 1)[1]
    assert player_token != token  # everyone's own link

    # Forged: a changed hash, another game's number, the observer's hash on the player's game number.
    forged = [token[:-1] + ("a" if token[-1] != "a" else "b"), "u999" + token[token.index("-"):], "nonsense"]
    with daemon.store.unit_of_work() as session:
        before = session.execute(select(InboundMessage.id)).all()
    for bad in forged:
        assert post(daemon, f"/u/{bad}")[0] == 404
    with daemon.store.unit_of_work() as session:
        assert session.execute(select(InboundMessage.id)).all() == before  # nothing stored for them

    # GET never acts (a link scanner): a page with a button
    connection = http.client.HTTPConnection("127.0.0.1", daemon.unsubscribe.port, timeout=10)
    connection.request("GET", f"/u/{token}")
    page = connection.getresponse()
    assert page.status == 200 and "<form method=post" in page.read().decode()
    assert status_of(daemon, "watcher@example.net") == "active"

    count = len(mails_to(daemon, "watcher@example.net", 2))
    assert post(daemon, f"/u/{token}")[0] == 200
    [*_, answer] = mails_to(daemon, "watcher@example.net", count + 1)
    assert "you no longer observe game 'un1'" in answer.decode()
    assert status_of(daemon, "watcher@example.net") == "resigned"
    assert post(daemon, f"/u/{token}")[0] == 200  # a second click: the same mail, not processed again
    time.sleep(1.0)
    assert len(mails_to(daemon, "watcher@example.net", count + 1)) == count + 1

    # The player: asked by mail, never resigned by the click.
    mine = len(mails_to(daemon, player, 1))
    assert post(daemon, f"/u/{player_token}")[0] == 200
    [*_, told] = mails_to(daemon, player, mine + 1)
    text = told.decode()
    assert "one click never resigns a player" in text and "RESIGN" in text and "secret" not in text
    assert status_of(daemon, player) == "active"

    # The mailto link: the Subject a mail program sends.
    send(daemon, player, "", subject=f"UNSUBSCRIBE {player_token}")
    [*_, again] = mails_to(daemon, player, mine + 2)
    assert "one click never resigns a player" in again.decode() and status_of(daemon, player) == "active"


def start_game_after(daemon):
    """The seven JOINs of un1 (created by the test) and the mails by then."""
    written = len(files(daemon, 0))
    for i in range(7):
        send(daemon, f"p{i}@example.net", f"JOIN un1 secret{i}\n")
    started = files(daemon, written + 7 + 9)  # the replies; start notices to 7 players, master, observer
    power_of = {header(r, "To"): (header(r, "Subject") or "").rsplit(" ", 1)[1] for r in started
                if "game started, you play" in (header(r, "Subject") or "")}
    return started, power_of
