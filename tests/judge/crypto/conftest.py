from tests.gpgkeys import gpg_home, judge_keyring, keyring, seven_players  # noqa: F401
