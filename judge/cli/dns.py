"""``judge dns``: the DNS records the judge's mail needs, as zone-file lines.

The DKIM keys are made here when the database has none yet (as ``judge serve`` would at
its first start), so the records can be published before the first mail leaves.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from judge.cli.options import add_config_argument, settings_from, store_from


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dns", help="print the DNS records for the judge's mail: DKIM keys, SPF and DMARC suggestions",
        description="Print zone-file lines with full names: one TXT record per DKIM selector "
                    "(<selector>._domainkey.<domain>, split into 255-character strings), then a suggested "
                    "SPF record (v=spf1) and a suggested DMARC record (_dmarc.<domain>).  The DKIM keys "
                    "are made and kept in the database when it has none yet, as `judge serve` does.",
    )
    add_config_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from judge.mailauth.dns_records import zone_lines
    from judge.mailauth.keystore import DkimKeyRefused, settle_dkim_keys, signing_domain

    settings = settings_from(args)
    if settings is None:
        return 2
    store = store_from(settings, "dns", initialise_empty=True)
    if store is None:
        return 1
    try:
        keys = settle_dkim_keys(store, settings.dkim)
    except DkimKeyRefused as exc:
        print(f"judge dns: {exc}", file=sys.stderr)
        return 2
    finally:
        store.dispose()
    domain = signing_domain(settings.dkim, settings.judge)
    for line in zone_lines(domain, keys, settings.outbound.relay_host):
        print(line)
    if not settings.dkim.sign:
        print("judge dns: [dkim] sign is off: the judge sends these keys' signatures only once it is on",
              file=sys.stderr)
    return 0
