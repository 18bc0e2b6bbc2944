"""``judge tick``: one scheduler pass over the due games, then exit (for cron)."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from judge.cli.options import add_config_argument, clock_from, on_store, settings_from, setup_logging

if TYPE_CHECKING:  # imported when the command runs, not when `judge` starts
    from judge.config import Settings
    from judge.store.engine import Store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tick", help="run one scheduler pass (deadlines, reminders, processing) and exit",
        description="Look at every game that is due once: send reminders and late notices, "
                    "process the phases that are ready (making the judge's bot's moves "
                    "first where it plays), queue the results in the outbox "
                    "(`judge serve` sends them; it also runs this pass every "
                    "[scheduler] tick_seconds by itself).  Safe to run next to a daemon.",
    )
    add_config_argument(parser)
    parser.add_argument("--clock-file", metavar="FILE",
                        help="TEST ONLY: take the current time from FILE (an ISO 8601 instant)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if settings is None:
        return 2
    setup_logging()
    clock = clock_from(args, "tick")
    if clock is None:
        return 2
    return on_store(settings, "tick", lambda store: _tick(settings, store, clock()))


def _tick(settings: Settings, store: Store, now: datetime) -> int:
    from judge.daemon.bot_worker import run_waiting_jobs
    from judge.edge.scheduler import FAILED, run_pass
    from judge.daemon.keyrecord import JudgeKeyRefused, recorded_key, require_recorded_key

    record = recorded_key(store)
    if record is not None:
        try:
            require_recorded_key(settings.judge, record)  # sign with the judge's one key
        except JudgeKeyRefused as exc:
            print(f"judge tick: {exc}", file=sys.stderr)
            return 2
    report = run_pass(store, settings, now)
    print(f"judge tick: {report}")
    # A cron judge has no bot process: the moves the pass asked the judge's bot for are made
    # here, each phase processed once they are in.
    thought = run_waiting_jobs(store, settings, lambda: now)
    if thought:
        print(f"judge tick: the judge's bot made {thought} power(s)' moves")
    if settings.web_root is not None:  # without a daemon, the tick keeps the web archive current
        from judge.web.build import Archive

        Archive(store, settings.web_root, settings.judge.domain).refresh(now)
    return 1 if report.count(FAILED) else 0
