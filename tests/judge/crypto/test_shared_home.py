"""Several processes sign with one GnuPG home at once (two daemons, worker processes,
`judge tick`): nobody stops the gpg-agent another is using, and a failed signature is
tried again."""

from __future__ import annotations

import stat
import subprocess
import sys
import textwrap

import pytest

from judge.config import JudgeSettings
from judge.crypto.gpg import Keyring, agent_pids
from judge.crypto.pgpmime import verify_message
from judge.publish.signing import ensure_judge_key
from tests.fixtures.gpg import remove_home, short_home
from tests.fixtures.judge_process import judge_environment

pytestmark = pytest.mark.gpg

SIGNER = textwrap.dedent("""
    import sys
    from judge.config import JudgeSettings
    from judge.publish.signing import broadcast_mime
    judge = JudgeSettings(data_dir=sys.argv[1], gnupg_home=sys.argv[1])
    for n in range(int(sys.argv[2])):
        text, mime = broadcast_mime(judge, f"results {n}\\n")
        assert mime is not None and mime.get_content_type() == "multipart/signed", mime
        sys.stdout.buffer.write(mime.as_bytes() + b"\\0")
""")


def test_three_processes_sign_on_one_home_without_breaking_each_other():
    home = short_home("sh")
    try:
        judge = JudgeSettings(data_dir=str(home), gnupg_home=str(home))
        fingerprint = ensure_judge_key(judge)
        signers = [subprocess.Popen([sys.executable, "-c", SIGNER, str(home), "12"], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=judge_environment({})) for _ in range(3)]
        outputs = [signer.communicate(timeout=120) for signer in signers]
        for signer, (_, errors) in zip(signers, outputs):
            assert signer.returncode == 0, errors.decode()
            assert b"trying again" not in errors, errors.decode()  # no agent was stopped under anyone
        signed = [part for out, _ in outputs for part in out.split(b"\0") if part]
        assert len(signed) == 36
        with Keyring(home) as ring:
            assert all(verify_message(ring, raw, fingerprint).valid for raw in signed)
        assert agent_pids(home) == []  # the last one out stopped the agent
    finally:
        remove_home(home)


def test_an_open_keyring_keeps_the_agent_for_others(keyring):
    fingerprint = keyring.generate_key("Judge", "judge@x.test")
    keyring.clearsign("warm up\n", fingerprint)  # the agent runs
    with Keyring(keyring.home) as other:
        other.clearsign("second user\n", fingerprint)
    assert agent_pids(keyring.home) != []  # `other` closed while `keyring` is open: agent kept
    keyring.close()
    assert agent_pids(keyring.home) == []


def test_a_failed_signature_is_tried_again(tmp_path, gpg_home):
    """A gpg that fails once (as when the agent is stopped mid-signature), then works."""
    marker = tmp_path / "failed-once"
    flaky = tmp_path / "flaky-gpg"
    flaky.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        case " $* " in
          *" -s "*|*" --sign "*|*" --detach-sign "*|*" --clearsign "*)
            if [ ! -e {marker} ]; then touch {marker}; echo "gpg: signing failed: Broken pipe" >&2; exit 2; fi;;
        esac
        exec gpg "$@"
    """))
    flaky.chmod(flaky.stat().st_mode | stat.S_IEXEC)
    ring = Keyring(gpg_home, gpg_binary=str(flaky))
    try:
        fingerprint = ring.generate_key("Judge", "judge@x.test")
        signed = ring.clearsign("orders\n", fingerprint)
        assert marker.exists(), "the flaky gpg was not used: the test would prove nothing"
        assert ring.verify_clearsigned(signed).valid
    finally:
        ring.close()
