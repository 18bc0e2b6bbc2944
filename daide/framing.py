"""The DAIDE client-server framing: a 4-byte header (type, pad, big-endian length)
and a body.  IM opens (version, magic), RM carries the representation, DM a
diplomacy message, FM ends the connection, EM reports an error and ends it.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

MAGIC = 0xDA10
VERSION = 1
HEADER = struct.Struct(">BxH")
MAX_BODY = 0xFFFF


class Kind(enum.IntEnum):
    IM = 0
    RM = 1
    DM = 2
    FM = 3
    EM = 4


class ErrorCode(enum.IntEnum):
    """The EM codes of the protocol document."""

    IM_TIMER_POPPED = 0x01
    IM_NOT_FIRST = 0x02
    IM_WRONG_ENDIAN = 0x03
    IM_WRONG_MAGIC = 0x04
    VERSION_INCOMPATIBLE = 0x05
    IM_REPEATED = 0x06
    IM_FROM_SERVER = 0x07
    UNKNOWN_MESSAGE = 0x08
    MESSAGE_TOO_SHORT = 0x09
    DM_BEFORE_RM = 0x0A
    RM_NOT_FIRST = 0x0B
    RM_REPEATED = 0x0C
    RM_FROM_CLIENT = 0x0D
    INVALID_TOKEN = 0x0E


@dataclass(frozen=True, slots=True)
class Frame:
    kind: int  # a Kind, or an unknown type byte as received
    body: bytes


class FramingError(ValueError):
    """A frame the protocol forbids; ``code`` is the EM to send before closing."""

    def __init__(self, code: ErrorCode, problem: str) -> None:
        super().__init__(f"{problem} (EM 0x{code:02X})")
        self.code = code
        self.problem = problem


def pack(kind: Kind, body: bytes = b"") -> bytes:
    if len(body) > MAX_BODY:
        raise ValueError(f"a DAIDE frame body holds at most {MAX_BODY} bytes, not {len(body)}")
    return HEADER.pack(kind, len(body)) + body


def initial_message() -> bytes:
    return pack(Kind.IM, struct.pack(">HH", VERSION, MAGIC))


def error_message(code: ErrorCode) -> bytes:
    return pack(Kind.EM, struct.pack(">H", code))


def final_message() -> bytes:
    return pack(Kind.FM)


def representation(entries: list[tuple[int, str]]) -> bytes:
    """RM body: 6 bytes an entry, the token and its name NUL-terminated."""
    return pack(Kind.RM, b"".join(struct.pack(">H", value) + name.encode("ascii") + b"\0" for value, name in entries))


def read_representation(body: bytes) -> list[tuple[int, str]]:
    if len(body) % 6:
        raise FramingError(ErrorCode.MESSAGE_TOO_SHORT, "an RM body is a whole number of 6-byte entries")
    return [(struct.unpack_from(">H", body, i)[0], body[i + 2:i + 5].decode("ascii")) for i in range(0, len(body), 6)]


def check_initial(body: bytes) -> None:
    """Raise FramingError unless ``body`` is a good IM (version 1, the magic number)."""
    if len(body) < 4:
        raise FramingError(ErrorCode.MESSAGE_TOO_SHORT, f"an IM body has 4 bytes, not {len(body)}")
    version, magic = struct.unpack_from(">HH", body)
    if magic == 0x10DA:
        raise FramingError(ErrorCode.IM_WRONG_ENDIAN, "the IM is little-endian")
    if magic != MAGIC:
        raise FramingError(ErrorCode.IM_WRONG_MAGIC, f"the IM's magic number is 0x{magic:04X}, not 0xDA10")
    if version != VERSION:
        raise FramingError(ErrorCode.VERSION_INCOMPATIBLE, f"protocol version {version}, this server speaks 1")


class FrameReader:
    """Splits a byte stream into frames (incremental: feed what arrives, take whole frames)."""

    def __init__(self, max_buffer: int = 4 * (MAX_BODY + HEADER.size)) -> None:
        self._buffer = bytearray()
        self._max = max_buffer

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        frames: list[Frame] = []
        while len(self._buffer) >= HEADER.size:
            kind, length = HEADER.unpack_from(self._buffer)
            if len(self._buffer) < HEADER.size + length:
                break
            frames.append(Frame(kind, bytes(self._buffer[HEADER.size:HEADER.size + length])))
            del self._buffer[:HEADER.size + length]
        return frames

    def waiting_header(self) -> tuple[int, int] | None:
        """(type, length) of the incomplete frame at the front, to refuse garbage before its body."""
        if len(self._buffer) < HEADER.size:
            return None
        return HEADER.unpack_from(self._buffer)

    @property
    def pending(self) -> int:
        """Bytes of a frame not yet complete (a truncated frame at the end of a stream)."""
        return len(self._buffer)
