"""The IMAP poller against a real Dovecot: PEEK, store, commit, then \\Seen or move."""

import time
from datetime import datetime, timezone

import pytest
from imapclient import IMAPClient
from sqlalchemy import select

from judge.config import ImapSettings, load_settings
from judge.edge.imap_in import ImapPoller
from judge.daemon.serve import Daemon, open_store
from judge.store.models_mail import InboundMessage, OutboxMessage
from tests.fixtures.ports import free_port
from tests.judge.handlers import echo
from tests.judge.storage import make_mail

pytestmark = pytest.mark.dovecot
NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)


def imap_settings(account, **overrides):
    values = dict(host=account.host, port=account.port, username=account.username,
                  password=account.password, poll_seconds=0.5)
    values.update(overrides)
    return ImapSettings(**values)


def mailbox(account, folder="INBOX"):
    """{subject: flags} of ``folder``, read without touching \\Seen."""
    with IMAPClient(account.host, port=account.port, ssl=False, timeout=10) as client:
        client.login(account.username, account.password)
        if not client.folder_exists(folder):
            return {}
        client.select_folder(folder, readonly=True)
        uids = client.search(["ALL"])
        data = client.fetch(uids, ["FLAGS", "BODY.PEEK[HEADER.FIELDS (SUBJECT)]"]) if uids else {}
        return {
            bytes(d[b"BODY[HEADER.FIELDS (SUBJECT)]"]).decode().strip().removeprefix("Subject: "):
                set(d[b"FLAGS"]) for d in data.values()
        }


def stored(store):
    with store.unit_of_work() as session:
        return session.execute(select(InboundMessage).order_by(InboundMessage.id)).scalars().all()


def test_poll_stores_then_flags_seen(store, dovecot_server, imap_account):
    dovecot_server.deliver(imap_account, make_mail(subject="one"), sender="anna@example.net")
    dovecot_server.deliver(imap_account, make_mail(subject="two"), sender="")
    poller = ImapPoller(imap_settings(imap_account), store, clock=lambda: NOW, timeout=10)
    assert poller.poll_once() == 2
    rows = stored(store)
    assert [(r.source, r.mail_from, r.status) for r in rows] == [("imap", None, "received")] * 2
    assert b"Subject: one" in rows[0].raw
    assert mailbox(imap_account) == {"one": {b"\\Seen"}, "two": {b"\\Seen"}}
    assert poller.poll_once() == 0  # nothing unseen is left


def test_only_the_first_max_bytes_of_a_big_mail_are_fetched(store, dovecot_server, imap_account):
    """IMAP has no size limit of its own: a mail of any size must not cost more memory than
    SMTP lets in (issue 12.1).  The start is stored; the worker says the rest was not read."""
    big = make_mail(subject="big", body="HELP\n" * 4000)
    dovecot_server.deliver(imap_account, big, sender="anna@example.net")
    dovecot_server.deliver(imap_account, make_mail(subject="small"), sender="anna@example.net")
    poller = ImapPoller(imap_settings(imap_account), store, clock=lambda: NOW, timeout=10, max_bytes=5000)
    assert poller.poll_once() == 2
    first, second = stored(store)
    assert len(first.raw) == 5000 and b"Subject: big" in first.raw
    assert b"Subject: small" in second.raw and len(second.raw) < 5000
    assert mailbox(imap_account) == {"big": {b"\\Seen"}, "small": {b"\\Seen"}}


def test_mail_stored_but_not_flagged_is_not_stored_twice(store, dovecot_server, imap_account):
    """A crash between the commit and the \\Seen flag: the next poll fetches it again."""
    dovecot_server.deliver(imap_account, make_mail(subject="again"))
    poller = ImapPoller(imap_settings(imap_account), store, clock=lambda: NOW, timeout=10)
    marked = []
    poller._mark_done = lambda client, uids: marked.append(uids)  # the crash: never flagged
    assert poller.poll_once() == 1
    assert mailbox(imap_account) == {"again": set()}
    del poller._mark_done
    assert poller.poll_once() == 0  # recognised as stored
    assert len(stored(store)) == 1
    assert mailbox(imap_account) == {"again": {b"\\Seen"}}


def test_nothing_is_flagged_when_the_store_fails(tmp_path, dovecot_server, imap_account):
    from sqlalchemy.exc import OperationalError

    from judge.store.engine import Store

    dovecot_server.deliver(imap_account, make_mail(subject="keep me"))
    broken = Store(f"sqlite:///{tmp_path / 'no-tables.db'}")  # never migrated: inserts fail
    poller = ImapPoller(imap_settings(imap_account), broken, clock=lambda: NOW, timeout=10)
    with pytest.raises(OperationalError):
        poller.poll_once()
    broken.dispose()
    assert mailbox(imap_account) == {"keep me": set()}


def test_move_to_folder(store, dovecot_server, imap_account):
    dovecot_server.deliver(imap_account, make_mail(subject="move me"))
    poller = ImapPoller(imap_settings(imap_account, move_to="Judged"), store, clock=lambda: NOW, timeout=10)
    assert poller.poll_once() == 1
    assert mailbox(imap_account) == {}
    assert set(mailbox(imap_account, "Judged")) == {"move me"}
    assert poller.poll_once() == 0


def test_daemon_with_imap_idle_processes_and_answers(tmp_path, dovecot_server, imap_account):
    settings = load_settings(None, environ={
        "JUDGE_JUDGE_DATA_DIR": str(tmp_path), "JUDGE_JUDGE_ADDRESS": "judge@example.org",
        "JUDGE_SMTP_PORT": str(free_port()),
        "JUDGE_IMAP_HOST": imap_account.host, "JUDGE_IMAP_PORT": str(imap_account.port),
        "JUDGE_IMAP_USERNAME": imap_account.username, "JUDGE_IMAP_PASSWORD": imap_account.password,
        "JUDGE_IMAP_IDLE": "true", "JUDGE_IMAP_POLL_SECONDS": "30",
        "JUDGE_WORKER_POLL_SECONDS": "0.2", "JUDGE_OUTBOUND_POLL_SECONDS": "0.2",
    })
    store = open_store(settings, initialise_empty=True)
    daemon = Daemon(settings, store, process=echo)
    daemon.start()
    try:
        time.sleep(0.5)  # the poller is in IDLE now; the mail below must wake it
        dovecot_server.deliver(imap_account, make_mail(subject="via imap", message_id="<i1@example.net>"),
                               sender="anna@example.net")
        dovecot_server.deliver(imap_account, make_mail(subject="bounce", sender="MAILER-DAEMON@x.org"),
                               sender="")
        deadline = time.monotonic() + 15
        while True:
            with store.unit_of_work() as session:
                statuses = session.execute(select(InboundMessage.status)).scalars().all()
                sent = session.execute(select(OutboxMessage).where(OutboxMessage.status == "sent")).scalars().all()
            if statuses == ["processed", "processed"] and sent:
                break
            assert time.monotonic() < deadline, f"inbound {statuses}, sent {len(sent)}"
            time.sleep(0.1)
    finally:
        daemon.stop()
        store.dispose()
    assert [o.recipients for o in sent] == [["anna@example.net"]]
    assert b"In-Reply-To: <i1@example.net>" in sent[0].raw
    assert mailbox(imap_account) == {"via imap": {b"\\Seen"}, "bounce": {b"\\Seen"}}


def test_poll_over_implicit_tls_trusting_the_servers_certificate(store, dovecot_server, imap_account):
    """[imap] ssl with ca_file: the poller talks TLS to Dovecot's IMAPS port and verifies the
    self-signed certificate (and the host name) against the file it is given."""
    dovecot_server.deliver(imap_account, make_mail(subject="over tls"), sender="anna@example.net")
    settings = imap_settings(imap_account, port=dovecot_server.ssl_port, ssl=True,
                             ca_file=str(dovecot_server.ca_file))
    poller = ImapPoller(settings, store, clock=lambda: NOW, timeout=10)
    client = poller.connect()
    try:
        assert client._imap.sock.version() in ("TLSv1.2", "TLSv1.3")  # the socket is TLS, not plain
        assert poller.poll_once(client) == 1
    finally:
        client.logout()
    assert b"Subject: over tls" in stored(store)[0].raw
    assert mailbox(imap_account) == {"over tls": {b"\\Seen"}}


def test_a_certificate_the_poller_does_not_trust_is_refused(store, dovecot_server, imap_account):
    """Without ca_file the system's CAs are trusted, which do not include the test server's
    self-signed certificate: no login, nothing stored, the mail stays unseen."""
    import ssl

    dovecot_server.deliver(imap_account, make_mail(subject="untrusted"))
    settings = imap_settings(imap_account, port=dovecot_server.ssl_port, ssl=True)
    with pytest.raises(ssl.SSLCertVerificationError):
        ImapPoller(settings, store, clock=lambda: NOW, timeout=10).poll_once()
    assert stored(store) == []
    assert b"\\Seen" not in mailbox(imap_account)["untrusted"]


def test_an_imap_error_names_the_server_user_and_folder(store, dovecot_server, imap_account, caplog):
    """An operator reading the log learns which server refused, not only why (issue 29.12)."""
    import logging
    import threading

    settings = imap_settings(imap_account, password="wrong password", poll_seconds=0.2)
    stop = threading.Event()
    poller = ImapPoller(settings, store, clock=lambda: NOW, timeout=10)
    with caplog.at_level(logging.WARNING, logger="judge.imap_in"):
        thread = threading.Thread(target=poller.run, args=(stop,))
        thread.start()
        deadline = time.monotonic() + 20
        while not any("IMAP server" in r.getMessage() for r in caplog.records) and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        thread.join(timeout=10)
    [message, *_] = [r.getMessage() for r in caplog.records if "IMAP server" in r.getMessage()]
    assert f"{imap_account.host}:{imap_account.port}" in message
    assert repr(imap_account.username) in message and "INBOX" in message
    assert "wrong password" not in message  # the secret is never logged
