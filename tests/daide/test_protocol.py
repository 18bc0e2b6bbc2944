"""The pure protocol package: tokens, framing, the message tree, orders both ways."""

from __future__ import annotations

import struct

import pytest

import maps
from adjudicator import api
from adjudicator.tables import tables_for
from daide import framing
from daide.framing import ErrorCode, FrameReader, FramingError, Kind
from daide.messages import DecodeError, Text, decode, encode, from_text, huh_for, to_text
from daide.orders import UnreadableOrder, ord_messages, read_order
from daide.render import mdf, now, phase_of, supply_centres, turn
from daide.tokens import TokenTable, integer_token, integer_value

VARIANT = maps.load("standard")
TABLE = TokenTable.for_variant(VARIANT)
START = api.initial_position(VARIANT)


def test_standard_map_gets_the_well_known_token_values() -> None:
    expected = {"AUS": 0x4100, "TUR": 0x4106, "BOH": 0x5000, "BUD": 0x5107, "ADR": 0x520E, "ECH": 0x5214,
                "ALB": 0x5421, "ANK": 0x5530, "BUL": 0x5748, "STP": 0x574A, "SUB": 0x4818, "MBV": 0x4400}
    assert {name: TABLE.by_name[name] for name in expected} == expected
    assert TABLE.province_names["ENG"] == "ECH" and TABLE.power_names["ENGLAND"] == "ENG"


@pytest.mark.parametrize("number", [0, 1, 1901, 8191, -1, -8192])
def test_integers_are_14_bit_twos_complement(number: int) -> None:
    assert integer_value(integer_token(number)) == number


def test_text_form_and_bytes_round_trip() -> None:
    text = 'SUB (SPR 1901) ((RUS FLT (STP SCS)) MTO GOB) ((ENG AMY LVP) CTO NWY VIA (NWG NTH))'
    message = from_text(text)
    assert to_text(message) == text
    assert decode(encode(message, TABLE), TABLE) == message
    name = from_text('NME ("Al ""the"" bot") ("v1")')
    assert name[1] == (Text('Al "the" bot'),) and to_text(name) == 'NME ("Al ""the"" bot") ("v1")'


def test_unknown_token_and_bad_brackets_are_told_apart() -> None:
    with pytest.raises(DecodeError) as unknown:
        decode(struct.pack(">HH", 0x4818, 0x5FFF), TABLE)
    assert unknown.value.unknown and unknown.value.index == 1
    with pytest.raises(DecodeError) as brackets:
        decode(struct.pack(">HH", 0x4818, 0x4000), TABLE)
    assert not brackets.value.unknown
    with pytest.raises(ValueError, match="not DAIDE text"):
        from_text("SUB (SPR 1901) ((ENG AMY LVP) MTO CL!)")


def test_huh_puts_err_before_the_offending_element() -> None:
    message = from_text("SUB ((ENG AMY LVP) XXX YOR)".replace("XXX", "MTO"))
    body = huh_for(message, (1, 1), TABLE)
    assert to_text(decode(body, TABLE)) == "HUH (SUB ((ENG AMY LVP) ERR MTO YOR))"


def test_frames_split_from_a_stream_in_pieces() -> None:
    data = framing.initial_message() + framing.pack(Kind.DM, encode(("MAP",), TABLE)) + framing.final_message()
    reader = FrameReader()
    frames = [f for i in range(0, len(data), 3) for f in reader.feed(data[i:i + 3])]
    assert [f.kind for f in frames] == [Kind.IM, Kind.DM, Kind.FM] and reader.pending == 0
    assert reader.feed(framing.pack(Kind.DM, b"\x48\x09")[:5]) == [] and reader.pending == 5


@pytest.mark.parametrize("body, code", [
    (struct.pack(">HH", 1, 0xDA11), ErrorCode.IM_WRONG_MAGIC),
    (struct.pack(">HH", 1, 0x10DA), ErrorCode.IM_WRONG_ENDIAN),
    (struct.pack(">HH", 2, 0xDA10), ErrorCode.VERSION_INCOMPATIBLE),
    (b"\x00", ErrorCode.MESSAGE_TOO_SHORT),
])
def test_bad_initial_messages_name_their_error_code(body: bytes, code: ErrorCode) -> None:
    with pytest.raises(FramingError) as error:
        framing.check_initial(body)
    assert error.value.code == code


def test_mdf_lists_every_province_once_with_coasts_for_fleets() -> None:
    message = mdf(VARIANT, TABLE)
    powers, (centres, others), adjacencies = message[1], message[2], message[3]
    assert powers == ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
    named = [p for group in centres for p in group[1:]] + list(others)
    assert len(named) == len(set(named)) == len(VARIANT.provinces)
    stp = next(a for a in adjacencies if a[0] == "STP")
    assert ("AMY", "FIN", "LVN", "MOS", "NWY") in stp and ("FLT", "NCS") in [e[0] for e in stp[1:]]


def test_now_and_sco_show_the_start() -> None:
    assert turn(START.phase) == ("SPR", 1901) and phase_of(("SPR", 1901)) == START.phase
    assert ("RUS", "FLT", ("STP", "SCS")) in now(TABLE, START)
    assert ("ENG", "EDI", "LON", "LVP") in supply_centres(VARIANT, TABLE, START.centers)


@pytest.mark.parametrize("order, power, note", [
    ("(ENG FLT LON) MTO NTH", "ENGLAND", "MBV"),
    ("(ENG FLT LON) MTO BEL", "ENGLAND", "FAR"),
    ("(FRA AMY PAR) HLD", "ENGLAND", "NYU"),
    ("(ENG AMY LON) HLD", "ENGLAND", "NSU"),
    ("(ENG AMY LVP) RTO YOR", "ENGLAND", "NRS"),
    ("(ENG FLT EDI) CVY (ENG AMY LVP) CTO NWY", "ENGLAND", "NAS"),
    ("(ENG AMY LVP) CTO NWY VIA (NTH)", "ENGLAND", "NSF"),
    ("(RUS FLT (STP SCS)) MTO GOB", "RUSSIA", "MBV"),
    ("(ENG AMY LVP) SUP (ENG FLT EDI) MTO YOR", "ENGLAND", "MBV"),
    ("(ENG AMY LVP) SUP (ENG FLT LON) MTO NTH", "ENGLAND", "FAR"),
])
def test_sub_notes(order: str, power: str, note: str) -> None:
    verdict = read_order(TABLE, tables_for(VARIANT), START, power, from_text(f"({order})")[0])
    assert verdict.note == note
    assert (verdict.order is not None) == (note == "MBV")


def test_unreadable_order_points_at_the_element() -> None:
    with pytest.raises(UnreadableOrder) as error:
        read_order(TABLE, tables_for(VARIANT), START, "ENGLAND", from_text("((ENG FLT LON) FLY NTH)")[0])
    assert error.value.path == (1,)


def test_ord_lines_carry_the_real_results() -> None:
    board = api.prepare(VARIANT, START)
    result = api.adjudicate(board, {
        "ENGLAND": api.parse_orders(board, "ENGLAND", ["F LON - NTH", "F EDI - NTH", "A LVP H"]),
        "FRANCE": api.parse_orders(board, "FRANCE", ["A PAR - BUR", "A MAR - BUR"]),
    })
    lines = {to_text(m) for m in ord_messages(TABLE, tables_for(VARIANT), START, result.results, result.dislodged)}
    assert "ORD (SPR 1901) ((ENG FLT LON) MTO NTH) (BNC)" in lines
    assert "ORD (SPR 1901) ((FRA AMY PAR) MTO BUR) (BNC)" in lines
    assert "ORD (SPR 1901) ((ENG AMY LVP) HLD) (SUC)" in lines
    assert len(lines) == 22


@pytest.mark.parametrize("name", maps.available())
def test_every_shipped_map_gets_distinct_names_and_an_mdf_that_round_trips(name: str) -> None:
    variant = maps.load(name)
    table = TokenTable.for_variant(variant)
    names = list(table.power_names.values()) + list(table.province_names.values())
    assert len(set(names)) == len(names) and all(len(n) == 3 and n.isalpha() for n in names)
    message = mdf(variant, table)
    assert decode(encode(message, table), table) == message
    assert len(message[1]) == len(variant.powers)
    start = api.initial_position(variant)
    assert decode(encode(now(table, start), table), table) == now(table, start)
