"""Every mail of a game, as the running judge writes it, passes OpenDKIM with both of its
signatures, and fails once changed: the daemon in-process, mail in over real SMTP, the
keys the judge made at its first start read back from its database."""

from __future__ import annotations

import pytest

from judge.mailauth.keystore import recorded_keys
from tests.judge.mailauth.daemon_game import files, running_daemon, send, start_game
from tests.judge.mailauth.dkim_checks import dkimpy_verdicts, only_signature, opendkim_passes

ORDERS = {
    "AUSTRIA": "A VIE - GAL\nA BUD - SER\nF TRI - ALB", "ENGLAND": "F LON - NTH\nF EDI - NWG\nA LVP - YOR",
    "FRANCE": "A PAR - BUR\nA MAR S A PAR - BUR\nF BRE - MAO", "GERMANY": "A BER - KIE\nF KIE - DEN\nA MUN - RUH",
    "ITALY": "A VEN H\nA ROM - APU\nF NAP - ION", "RUSSIA": "A MOS - UKR\nA WAR - GAL\nF SEV - BLA\nF STP/SC - BOT",
    "TURKEY": "F ANK - BLA\nA CON - BUL\nA SMY - ARM",
}


@pytest.fixture
def daemon(tmp_path):
    yield from running_daemon(tmp_path)


def test_every_mail_of_a_game_passes_opendkim_and_fails_it_when_changed(daemon, tmp_path):
    started, power_of = start_game(daemon, "dk1", rules="RULE NO_SETTLE\n")
    for address, power in power_of.items():
        password = f"secret{int(address[1])}"
        send(daemon, address, f"SIGNON {power[0]}dk1 {password}\n{ORDERS[power]}\n")
    every = files(daemon, len(started) + 7 + 8)  # the results to every player and the master
    assert sum(b"\nSubject: dk1 S1901M results" in raw for raw in every) == 8  # with the map as pictures

    keys = tuple(recorded_keys(daemon.store).values())
    assert sorted(k.algorithm for k in keys) == ["ed25519", "rsa"]
    for raw in every:
        assert raw.startswith(b"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.org;")
        assert dkimpy_verdicts(raw, "example.org", keys) == [True, True]
        changed = raw.replace(b"\n\n", b"\n\nX", 1)  # one character more in the body
        for algorithm in ("rsa-sha256", "ed25519-sha256"):
            assert opendkim_passes(only_signature(raw, algorithm), "example.org", keys, tmp_path), raw[:400]
            assert not opendkim_passes(only_signature(changed, algorithm), "example.org", keys, tmp_path)
