"""The registry's pure words (judge/registry/profile.py): what each line accepts."""

import pytest

from judge.registry.profile import FieldChange, parse_field, parse_name
from mailcmds.values import ValueSyntaxError


@pytest.mark.parametrize("line, change", [
    ("REALNAME  Anna   Karenina", FieldChange("realname", "Anna Karenina")),
    ("realname", FieldChange("realname", "")),
    ("ZONE europe/paris", FieldChange("zone", "Europe/Paris")),
    ("LEVEL Expert", FieldChange("level", "expert")),
    ("PUBLIC record realname", FieldChange("public", "realname record")),
    ("PUBLIC none", FieldChange("public", "")),
    ("ADDRESS <Anna@Example.NET>", FieldChange("address", "anna@example.net")),
])
def test_good_lines(line, change):
    assert parse_field(line) == change


@pytest.mark.parametrize("line, says", [
    ("ZONE Mars/Olympus", "Mars/Olympus"),
    ("PUBLIC everything", "PUBLIC realname country zone level addresses record"),
    ("LEVEL 3", "LEVEL novice|intermediate|advanced|expert"),
    ("COUNTRY me@example.net", "no addresses after COUNTRY"),
    ("UNLINK nobody", "not an e-mail address"),
    ("ADDRESS " + "a" * 300 + "@example.net", "at most 254 characters"),
])
def test_bad_lines_say_what_is_accepted(line, says):
    with pytest.raises(ValueSyntaxError) as raised:
        parse_field(line)
    assert says in str(raised.value) and len(str(raised.value)) < 300


@pytest.mark.parametrize("name", ["a", "1abc", "x" * 25, "DELETE", "confirm", "an na"])
def test_names_refused(name):
    with pytest.raises(ValueSyntaxError):
        parse_name(name)
