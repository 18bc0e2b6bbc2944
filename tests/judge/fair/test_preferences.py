import pytest
from hypothesis import given
from hypothesis import strategies as st

from judge.fair.preferences import PreferenceError, PreferenceList, parse_preferences

STANDARD = "AEFGIRT"


def test_parentheses_mark_equal_preference() -> None:
    parsed = parse_preferences("AE(GI)R", STANDARD)
    assert parsed.groups == (("A",), ("E",), ("G", "I"), ("R",))
    assert not parsed.reserve


def test_njudge_square_brackets() -> None:
    assert parse_preferences("E[FGR][TAI]", STANDARD).groups == (("E",), ("F", "G", "R"), ("T", "A", "I"))


@pytest.mark.parametrize("text", ["*", "", "   ", " * "])
def test_no_preference(text: str) -> None:
    parsed = parse_preferences(text, STANDARD)
    assert parsed == PreferenceList((), False)
    assert not parsed.has_preference
    assert parsed.canonical() == "*"


def test_reserve_prefix() -> None:
    parsed = parse_preferences("%REG", STANDARD)
    assert parsed.reserve and parsed.groups == (("R",), ("E",), ("G",))
    assert parse_preferences("%", STANDARD) == PreferenceList((), True)
    assert parse_preferences("%*", STANDARD) == PreferenceList((), True)


def test_lower_case_and_spaces_are_accepted() -> None:
    assert parse_preferences(" ae (g i) r ", STANDARD) == parse_preferences("AE(GI)R", STANDARD)


def test_letters_come_from_the_variant() -> None:
    assert parse_preferences("(NS)W", "NSEW").groups == (("N", "S"), ("W",))
    with pytest.raises(PreferenceError, match="unknown power letter 'A'"):
        parse_preferences("NA", "NSEW")


def test_canonical_form_round_trips() -> None:
    assert parse_preferences("e[fgr][tai]", STANDARD).canonical() == "E(FGR)(TAI)"
    assert parse_preferences("%REG", STANDARD).canonical() == "%REG"


def test_unknown_letter_quotes_text_and_lists_accepted_letters() -> None:
    with pytest.raises(PreferenceError) as caught:
        parse_preferences("AEX", STANDARD)
    message = str(caught.value)
    assert "'AEX'" in message and "unknown power letter 'X'" in message
    assert "A, E, F, G, I, R, T" in message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("AEA", "power 'A' is named twice"),
        ("A(EA)", "power 'A' is named twice"),
        ("A(EF", "'(' is never closed"),
        ("AE)F", "')' closes nothing"),
        ("A(EF]", "'(' closed by ']'"),
        ("A(E[F])", "cannot nest"),
        ("A()E", "empty brackets"),
        ("A*", "must stand alone"),
        ("A%E", "may only stand first"),
        ("A-E", "unexpected character '-'"),
    ],
)
def test_bad_lists_say_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(PreferenceError) as caught:
        parse_preferences(text, STANDARD)
    assert problem in str(caught.value)
    assert repr(text) in str(caught.value)
    assert caught.value.text == text


def test_bad_letter_set_is_refused() -> None:
    with pytest.raises(ValueError):
        parse_preferences("A", ["A", "A"])


@st.composite
def preference_lists(draw: st.DrawFn) -> PreferenceList:
    order = draw(st.permutations(STANDARD))
    count = draw(st.integers(0, len(order)))
    groups: list[tuple[str, ...]] = []
    rest = list(order[:count])
    while rest:
        size = draw(st.integers(1, len(rest)))
        groups.append(tuple(rest[:size]))
        rest = rest[size:]
    return PreferenceList(tuple(groups), draw(st.booleans()))


@given(preference_lists())
def test_parse_of_canonical_is_identity(preference: PreferenceList) -> None:
    assert parse_preferences(preference.canonical(), STANDARD) == preference
