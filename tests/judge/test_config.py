from pathlib import Path

import pytest

from judge.config import ConfigError, all_keys, load_settings

REPO = Path(__file__).resolve().parents[2]


def test_defaults_run_a_local_judge():
    settings = load_settings(None, environ={"HOME": "/home/anna"})
    assert settings.judge.data_dir == "/home/anna/.local/share/dipjudge"  # never the working directory
    assert settings.store_url == "sqlite:////home/anna/.local/share/dipjudge/judge.db"
    assert (settings.smtp.host, settings.smtp.port) == ("127.0.0.1", 2525)
    assert settings.judge.address == "judge@localhost"
    assert settings.outbound.relay_host == ""
    assert settings.outbox_path == Path("/home/anna/.local/share/dipjudge/outbox")
    assert settings.imap.host == ""
    assert settings.scheduler.tick_seconds == 1200


def test_file_then_environment(tmp_path):
    path = tmp_path / "judge.toml"
    path.write_text(
        '[judge]\naddress = "dip@example.org"\n[smtp]\nport = 2600\n'
        '[imap]\nhost = "imap.example.org"\nidle = true\n[store]\nurl = "sqlite:///x.db"\n'
    )
    settings = load_settings(path, environ={"JUDGE_SMTP_PORT": "2700", "JUDGE_IMAP_SSL": "yes",
                                            "JUDGE_SCHEDULER_TICK_SECONDS": "5"})
    assert settings.judge.address == "dip@example.org"
    assert settings.smtp.port == 2700
    assert settings.imap.host == "imap.example.org" and settings.imap.idle and settings.imap.ssl
    assert settings.scheduler.tick_seconds == 5.0
    assert settings.store_url == "sqlite:///x.db"


def test_the_default_data_folder_follows_xdg_data_home():
    environ = {"HOME": "/home/anna", "XDG_DATA_HOME": "/data/anna"}
    assert load_settings(None, environ=environ).judge.data_dir == "/data/anna/dipjudge"
    relative = {"HOME": "/home/anna", "XDG_DATA_HOME": "data"}  # ignored, as the XDG spec says
    assert load_settings(None, environ=relative).judge.data_dir == "/home/anna/.local/share/dipjudge"
    configured = {"HOME": "/home/anna", "JUDGE_JUDGE_DATA_DIR": "/srv/judge"}
    assert load_settings(None, environ=configured).judge.data_dir == "/srv/judge"


def test_data_dir_holds_default_database_and_outbox():
    settings = load_settings(None, environ={"JUDGE_JUDGE_DATA_DIR": "/var/lib/judge"})
    assert settings.store_url == "sqlite:////var/lib/judge/judge.db"
    assert settings.outbox_path == Path("/var/lib/judge/outbox")


@pytest.mark.parametrize("text, quoted", [
    ('[smtp]\nport = "many"\n', "'many'"),
    ('[smtp]\nprot = 25\n', "'prot'"),
    ('[mail]\nhost = "x"\n', "[mail]"),
    ('[imap]\nidle = "sometimes"\n', "'sometimes'"),
    ('[judge]\naddress = 5\n', "5"),
    ('[judge\n', "not valid TOML"),
])
def test_bad_file_is_refused_with_the_offending_text(tmp_path, text, quoted):
    path = tmp_path / "judge.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})
    assert quoted in str(caught.value)


def test_bad_environment_value_is_refused():
    with pytest.raises(ConfigError, match="JUDGE_SMTP_.*'twenty'"):
        load_settings(None, environ={"JUDGE_SMTP_PORT": "twenty"})


def test_missing_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.toml", environ={})


def test_every_key_is_documented_in_readme_and_example():
    readme = (REPO / "README.md").read_text()
    example = (REPO / "deploy" / "judge.toml.example").read_text()
    for section, key, _type, _default in all_keys():
        env_name = f"JUDGE_{section.upper()}_{key.upper()}"
        assert env_name in readme, f"{env_name} is not in README.md"
        assert f"[{section}]" in example and f"{key} =" in example, f"{section}.{key} not in the example"


def test_example_configuration_loads():
    """An SQLite install takes the example as it is: no PostgreSQL password, no relay to blank."""
    settings = load_settings(REPO / "deploy" / "judge.toml.example", environ={})
    assert settings.store_url == "sqlite:////var/lib/judge/judge.db"
    assert settings.outbound.relay_host == ""
