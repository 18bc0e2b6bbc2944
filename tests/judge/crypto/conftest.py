from tests.gpgkeys import _judge_template, gpg_home, judge_keyring, keyring, seven_players  # noqa: F401
