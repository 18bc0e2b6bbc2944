"""A DAIDE message as a typed tree, and its two spellings: bytes and text.

A ``Message`` is a tuple of elements; an element is a token name (``str``), an
integer (``int``), a string (``Text``, a ``str`` subclass: consecutive text tokens),
or a bracketed sub-message (a ``tuple``).  ``NME ("Albert") ("v6")`` is
``("NME", (Text("Albert"),), (Text("v6"),))``.

The text form follows the DAIDE syntax document: names separated by spaces,
brackets, integers in decimal, strings in double quotes (a quote doubled inside).
"""

from __future__ import annotations

import re
import struct
from typing import Iterator, Sequence, Union

from daide.tokens import BRA, KET, TEXT, TokenTable, integer_token, integer_value, is_integer, is_text


class Text(str):
    """A DAIDE string (a run of text tokens), as opposed to a token name."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Text({str.__repr__(self)})"


Element = Union[str, int, Text, tuple]
Message = tuple  # tuple[Element, ...]


class DecodeError(ValueError):
    """Bytes that are no DAIDE message.  ``index`` is the token at fault (for HUH's ERR);
    ``unknown`` says whether that token is not in the table (EM 0x0E) rather than a
    bracket or shape problem (HUH)."""

    def __init__(self, problem: str, index: int, unknown: bool = False) -> None:
        super().__init__(f"{problem} (token {index})")
        self.problem = problem
        self.index = index
        self.unknown = unknown


def words(data: bytes) -> list[int]:
    """The 2-byte words of a DM body (big-endian); an odd length is a DecodeError."""
    if len(data) % 2:
        raise DecodeError("a DM body has an odd number of bytes", len(data) // 2)
    return list(struct.unpack(f">{len(data) // 2}H", data))


def decode(data: bytes, table: TokenTable) -> Message:
    """DM body -> Message; DecodeError on an unknown token or unbalanced brackets."""
    return build_tree(words(data), table)


def build_tree(values: Sequence[int], table: TokenTable) -> Message:
    stack: list[list[Element]] = [[]]
    text: list[str] = []
    opened: list[int] = []

    def flush() -> None:
        if text:
            stack[-1].append(Text("".join(text)))
            text.clear()

    known = table.by_value
    for index, value in enumerate(values):
        if is_text(value):
            text.append(chr(value & 0xFF))
            continue
        flush()
        if value == BRA:
            stack.append([])
            opened.append(index)
        elif value == KET:
            if len(stack) == 1:
                raise DecodeError("a closing bracket without an opening one", index)
            inner = tuple(stack.pop())
            opened.pop()
            stack[-1].append(inner)
        elif is_integer(value):
            stack[-1].append(integer_value(value))
        else:
            name = known.get(value)
            if name is None:
                raise DecodeError(f"unknown token 0x{value:04X}", index, unknown=True)
            stack[-1].append(name)
    flush()
    if len(stack) != 1:
        raise DecodeError("an opening bracket is never closed", opened[-1])
    return tuple(stack[0])


def flatten(message: Message, table: TokenTable) -> Iterator[int]:
    by_name = table.by_name
    for element in message:
        if type(element) is tuple:
            yield BRA
            yield from flatten(element, table)
            yield KET
        elif type(element) is Text:
            for char in element:
                code = ord(char)
                if code > 0xFF:
                    raise ValueError(f"DAIDE text is 8-bit: {char!r} in {element!r}")
                yield (TEXT << 8) | code
        elif type(element) is int:
            yield integer_token(element)
        else:
            value = by_name.get(element)
            if value is None:
                raise KeyError(f"no DAIDE token named {element!r}")
            yield value


def encode(message: Message, table: TokenTable) -> bytes:
    values = list(flatten(message, table))
    return struct.pack(f">{len(values)}H", *values)


def to_text(message: Message) -> str:
    return " ".join(_element_text(e) for e in message)


def _element_text(element: Element) -> str:
    if type(element) is tuple:
        return "(" + to_text(element) + ")"
    if type(element) is Text:
        return '"' + element.replace('"', '""') + '"'
    return str(element)


_LEXEME = re.compile(r'\s*(?:(\()|(\))|"((?:[^"]|"")*)"|(-?\d+)|([A-Za-z]{3}))')


def from_text(source: str) -> Message:
    """Text form -> Message; ValueError quoting where the text stops making sense."""
    stack: list[list[Element]] = [[]]
    position = 0
    source = source.rstrip()
    while position < len(source):
        match = _LEXEME.match(source, position)
        if match is None:
            raise ValueError(f"not DAIDE text at {source[position:position + 20]!r} (expected a bracket, "
                             'a 3-letter token, a number or a "string")')
        opening, closing, string, number, name = match.groups()
        if opening:
            stack.append([])
        elif closing:
            if len(stack) == 1:
                raise ValueError(f"unbalanced ')' at {source[position:position + 20]!r}")
            inner = tuple(stack.pop())
            stack[-1].append(inner)
        elif string is not None:
            stack[-1].append(Text(string.replace('""', '"')))
        elif number is not None:
            stack[-1].append(int(number))
        else:
            stack[-1].append(name.upper())
        position = match.end()
    if len(stack) != 1:
        raise ValueError(f"unbalanced '(' in {source!r}")
    return tuple(stack[0])


def with_error_mark(values: Sequence[int], index: int, table: TokenTable) -> bytes:
    """The body of ``HUH (message)`` with ERR before token ``index`` of ``values``."""
    marked = [table.by_name["HUH"], BRA, *values[:index], table.by_name["ERR"], *values[index:], KET]
    return struct.pack(f">{len(marked)}H", *marked)


def element_at(message: Message, path: Sequence[int]) -> Element:
    element: Element = message
    for step in path:
        element = element[step]  # type: ignore[index]
    return element


def token_index(message: Message, path: Sequence[int], table: TokenTable) -> int:
    """The flat token index where the element at ``path`` starts (for HUH's ERR)."""
    index = 0
    current: Message = message
    for depth, step in enumerate(path):
        for element in current[:step]:
            index += _width(element, table)
        if depth < len(path) - 1:
            index += 1  # the bracket that opens current[step]
            current = current[step]
    return index


def _width(element: Element, table: TokenTable) -> int:
    if type(element) is tuple:
        return 2 + sum(_width(e, table) for e in element)
    if type(element) is Text:
        return len(element)
    return 1


def huh_for(message: Message, path: Sequence[int], table: TokenTable) -> bytes:
    values = list(flatten(message, table))
    return with_error_mark(values, token_index(message, path, table), table)
