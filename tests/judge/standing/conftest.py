"""The scheduler harness (a judge on a SQLite file driven mail by mail) for the standings."""

from tests.judge.scheduler.conftest import judge  # noqa: F401
