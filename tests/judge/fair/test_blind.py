import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judge.fair.blind import (
    BlindError,
    MessageFormat,
    add_digits,
    choose_format,
    matching_blind,
    random_digits,
    sub_digits,
    try_blinds,
)

POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")


def test_reference_worked_example() -> None:
    assert add_digits("44560464", "54646487") == "98106841"  # GM blind: 4+7=1, no carry
    assert add_digits("98106841", "87446534") == "75542375"  # player blind
    assert sub_digits("75542375", "54646487") == "21906998"  # GM blind removed
    assert sub_digits("21906998", "87446534") == "44560464"  # player blind removed
    reference_format = MessageFormat("4456x464", POWERS)
    assert reference_format.decode("44560464") == "AUSTRIA"  # "This is power zero, i.e. Austria."


digit_pairs = st.integers(1, 20).flatmap(
    lambda n: st.tuples(st.text("0123456789", min_size=n, max_size=n), st.text("0123456789", min_size=n, max_size=n))
)


@given(digit_pairs)
def test_subtraction_undoes_addition(pair: tuple[str, str]) -> None:
    a, b = pair
    assert sub_digits(add_digits(a, b), b) == a
    assert add_digits(a, b) == add_digits(b, a)
    assert len(add_digits(a, b)) == len(a)


def test_leading_zeros_are_kept() -> None:
    assert add_digits("0005", "0005") == "0000"
    assert sub_digits("0000", "0001") == "0009"


@pytest.mark.parametrize(
    ("a", "b", "problem"),
    [
        ("4456046", "54646487", "second number '54646487' has 8 digits, expected 7"),
        ("44560464", "5464648", "second number '5464648' has 7 digits, expected 8"),
        ("4456O464", "54646487", "first number '4456O464' must consist of the digits 0-9 only"),
        ("44560464", "", "second number '' must consist"),
        ("4456046٣", "54646487", "digits 0-9 only"),
    ],
)
def test_bad_numbers_are_quoted(a: str, b: str, problem: str) -> None:
    with pytest.raises(BlindError) as caught:
        add_digits(a, b)
    assert problem in str(caught.value)


def test_format_encodes_the_power_number_in_place_of_x() -> None:
    fmt = MessageFormat("4456x464", POWERS)
    assert [fmt.encode(power) for power in POWERS[:3]] == ["44560464", "44561464", "44562464"]
    assert all(fmt.decode(fmt.encode(power)) == power for power in POWERS)
    assert fmt.decode("44570464") is None  # verification digit wrong
    assert fmt.decode("44569464") is None  # number 9: no such power
    with pytest.raises(BlindError, match="message '4456046' has 7 digits, expected 8"):
        fmt.decode("4456046")
    with pytest.raises(BlindError, match="'SPAIN' is not in the format's powers"):
        fmt.encode("SPAIN")


def test_two_digit_power_numbers() -> None:
    powers = tuple(f"P{i}" for i in range(12))
    fmt = MessageFormat("9xx1", powers)
    assert fmt.encode("P11") == "9111" and fmt.decode("9111") == "P11" and fmt.decode("9121") is None


@pytest.mark.parametrize(
    ("template", "problem"),
    [("44560464", "one run of 'x'"), ("4x5x", "one run of 'x'"), ("4a5x", "only digits"), ("44x", "room for 10 powers")],
)
def test_bad_formats(template: str, problem: str) -> None:
    powers = tuple(f"P{i}" for i in range(11)) if problem.startswith("room") else POWERS
    with pytest.raises(BlindError, match=problem):
        MessageFormat(template, powers)


def test_try_blinds_finds_the_power_only_with_the_right_blind() -> None:
    fmt = MessageFormat("4456x464", POWERS)
    others = ["11111111", "23456789", "90000001"]
    assert try_blinds("21906998", others + ["87446534"], fmt) == "AUSTRIA"
    assert matching_blind("21906998", others + ["87446534"], fmt) == "87446534"
    assert try_blinds("21906998", others, fmt) is None
    with pytest.raises(BlindError, match="blind '8744653' has 7 digits, expected 8"):
        try_blinds("21906998", ["8744653"], fmt)


def test_try_blinds_refuses_an_ambiguous_message() -> None:
    fmt = MessageFormat("4456x464", POWERS)
    message = add_digits(fmt.encode("ENGLAND"), "12345678")
    other = sub_digits(message, fmt.encode("FRANCE"))  # a blind that would reveal France
    with pytest.raises(BlindError, match="ambiguous"):
        try_blinds(message, ["12345678", other], fmt)


def test_chosen_format_has_the_verification_digits_and_room_for_every_power() -> None:
    rng = random.Random(7)
    fmt = choose_format(POWERS, 12, rng)
    assert fmt.length == 13 and fmt.template.count("x") == 1 and fmt.powers == POWERS
    assert {fmt.decode(fmt.encode(power)) for power in POWERS} == set(POWERS)
    assert choose_format(POWERS, 12, random.Random(7)) == fmt  # reproducible from the source
    assert len(random_digits(20, rng)) == 20
