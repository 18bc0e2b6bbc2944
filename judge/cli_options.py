"""Options shared by the daemon's commands: ``--config`` and loading the settings."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from judge.config import ConfigError, Settings, load_settings


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", metavar="FILE", default=os.environ.get("JUDGE_CONFIG"),
        help="judge.toml to read (default: $JUDGE_CONFIG, else built-in defaults); "
             "JUDGE_<SECTION>_<KEY> variables override it",
    )


def settings_from(args: argparse.Namespace) -> Settings | None:
    """The settings, or None after printing why they cannot be read."""
    try:
        return load_settings(args.config)
    except ConfigError as exc:
        print(f"judge: configuration error: {exc}", file=sys.stderr)
        return None


def setup_logging() -> None:
    logging.basicConfig(
        level=os.environ.get("JUDGE_LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # aiosmtpd logs every connection at INFO, alembic every migration step.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
