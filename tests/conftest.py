"""Fixtures every test package may use (see tests/fixtures/ for what each one does)."""

from tests.fixtures.dovecot import dovecot_server, imap_account  # noqa: F401
from tests.fixtures.judge_process import judge_runner  # noqa: F401
from tests.fixtures.postgres import postgres_server, postgres_url  # noqa: F401
from tests.fixtures.smtp_sink import smtp_sink  # noqa: F401
from tests.fixtures.gpg import _judge_template, gpg_home, judge_keyring, keyring, seven_players  # noqa: F401
