"""Properties of the pure parts: armor round trips, and every mail mangling we claim to
undo is undone (without gpg: the original must be among the variants tried)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.crypto.armor import dearmor, enarmor
from judge.crypto.commitments import reveal_variants, salted_bytes, split_salted

line = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=30).map(str.rstrip)
orders = st.lists(line, min_size=1, max_size=8).map(lambda lines: ("\n".join(lines) + "\n").encode())


@given(st.binary(min_size=1, max_size=600), st.sampled_from(["MESSAGE", "SIGNATURE", "PUBLIC KEY BLOCK"]))
def test_armor_round_trip(data: bytes, label: str) -> None:
    assert dearmor(enarmor(data, label)).data == data


@settings(max_examples=200)
@given(orders, st.booleans(), st.booleans(), st.booleans())
def test_mail_mangling_is_undone(original: bytes, crlf: bool, drop_final: bool, trailing: bool) -> None:
    mangled = original
    if trailing:
        mangled = mangled.replace(b"\n", b"  \n")
    if crlf:
        mangled = mangled.replace(b"\n", b"\r\n")
    if drop_final:  # the last line ending only
        mangled = mangled[:-2] if mangled.endswith(b"\r\n") else mangled[:-1]
    tried = [data for _, data in reveal_variants(mangled)]
    assert tried[0] == mangled
    if mangled.strip(b"\r\n "):
        assert original in tried


@given(st.lists(line, max_size=6).map("\n".join), st.text(alphabet="abcdefXYZ0123456789", min_size=16, max_size=30))
def test_salted_reveal_splits_back(orders_text: str, secret: str) -> None:
    salt = "SALT " + secret
    revealed = salted_bytes(orders_text, salt).decode()
    text, salt_line = split_salted(revealed)
    assert salt_line == salt
    assert salted_bytes(text, salt_line).decode() == revealed
