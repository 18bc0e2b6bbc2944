"""``judge serve``: run the daemon until SIGTERM."""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import Any

from judge.config import ConfigError
from judge.cli.options import add_config_argument, clock_from, settings_from, setup_logging, store_from
from judge.daemon.hooks import HookError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the judge daemon (SMTP intake, IMAP poller, worker, sender, scheduler)",
        description="Run the judge until SIGTERM/SIGINT.  With no configuration: SQLite "
                    "./judge.db, SMTP on 127.0.0.1:2525, judge@localhost, outgoing mail as "
                    ".eml files in ./outbox/.",
    )
    add_config_argument(parser)
    parser.add_argument(
        "--role", choices=("gm", "witness"), default="gm",
        help="gm (default): run games; witness: act only as the third party of blinded power "
             "assignment (RULE BLIND_ASSIGN) for other judges' games",
    )
    parser.add_argument("--clock-file", metavar="FILE",
                        help="TEST ONLY: take the current time from FILE (an ISO 8601 instant, "
                             "re-read on every use) so tests can move the judge through deadlines")
    parser.add_argument(WORKER_FLAG, action="store_true", help=argparse.SUPPRESS)  # judge.daemon.worker_process
    parser.add_argument(BOT_FLAG, action="store_true", help=argparse.SUPPRESS)  # judge.daemon.bot_worker
    parser.set_defaults(func=run)


WORKER_FLAG = "--worker-process"
BOT_FLAG = "--bot-process"


def worker_command(args: argparse.Namespace, flag: str = WORKER_FLAG, nice: int = 0) -> list[str]:
    """This ``judge serve`` as a worker (or bot) process: the same configuration and clock;
    with ``nice``, started at that niceness (its imports too do not compete with mail)."""
    command = [sys.executable, "-m", "judge.cli", "serve", "--role", getattr(args, "role", "gm"), flag]
    nice_program = shutil.which("nice") if nice > 0 else None
    if nice_program is not None:
        command = [nice_program, "-n", str(nice), *command]
    if args.config:
        command += ["--config", args.config]
    if getattr(args, "clock_file", None):
        command += ["--clock-file", args.clock_file]
    return command


def run(args: argparse.Namespace) -> int:
    from judge.daemon.allocator import keep_large_blocks_out_of_the_heap

    keep_large_blocks_out_of_the_heap()  # first: it holds for what is allocated after it
    # Imported here, not at the top: every `judge` command builds this parser, and the
    # store (SQLAlchemy) takes about a second to import.
    from judge.daemon.keyrecord import JudgeKeyRefused
    from judge.mailauth.keystore import DkimKeyRefused
    from judge.daemon.serve import Daemon

    settings = settings_from(args)
    if settings is None:
        return 2
    if getattr(args, "role", "gm") == "witness":
        import dataclasses

        from judge.daemon.hooks import WITNESS_WORKER

        settings = dataclasses.replace(settings, worker=dataclasses.replace(settings.worker, handler=WITNESS_WORKER))
    setup_logging()
    clock = clock_from(args, "serve")
    if clock is None:
        return 2
    if getattr(args, "worker_process", False):
        from judge.daemon.worker_process import run_child

        return run_child(settings, clock)
    if getattr(args, "bot_process", False):
        from judge.daemon.bot_worker import run_bot_child

        return run_bot_child(settings, clock)
    from judge.edge.smtp_in import check_port_free

    try:  # a busy port is the first thing said, before the database is touched (no stray judge.db)
        check_port_free(settings.smtp.host, settings.smtp.port)
    except OSError as exc:
        print(f"judge serve: cannot listen on {settings.smtp.host}:{settings.smtp.port}: {exc}", file=sys.stderr)
        return 1
    store = store_from(settings, "serve", initialise_empty=True)
    if store is None:
        return 1
    try:
        daemon = Daemon(settings, store, clock=clock, worker_command=worker_command(args),
                        bot_command=worker_command(args, BOT_FLAG, settings.bots.nice))
        daemon.serve_forever()
    except (HookError, ConfigError, JudgeKeyRefused, DkimKeyRefused) as exc:
        print(f"judge serve: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"judge serve: cannot listen on {settings.smtp.host}:{settings.smtp.port}: {exc}",
              file=sys.stderr)
        return 1
    finally:
        store.dispose()
    return 0
