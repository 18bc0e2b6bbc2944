"""A DAIDE client connection over asyncio: what a machine player (or a test) uses.

    client = await DaideClient.connect("127.0.0.1", 16713)
    await client.send('NME ("mybot") ("v1")')          # text or a Message tree
    reply = await client.receive(timeout=5)            # a Message: ("YES", ("NME", ...))
    await client.close()                               # FM, then the socket closes

The client sends the IM, reads the server's RM and builds its token table from it
(the standard map's tokens, or ``default_table``, when the RM is empty).
``receive`` raises ``ConnectionClosed`` when the server ends the connection (FM, EM
with its code, or the socket closing).
"""

from __future__ import annotations

import asyncio
from typing import Union

from daide.framing import ErrorCode, FrameReader, Kind, final_message, initial_message, pack, read_representation
from daide.messages import DecodeError, Message, decode, encode, from_text, to_text
from daide.tokens import TokenTable


class ConnectionClosed(ConnectionError):
    """The server ended the connection; ``error`` is the EM code when it sent one."""

    def __init__(self, reason: str, error: ErrorCode | int | None = None) -> None:
        super().__init__(reason)
        self.error = error


class DaideClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, table: TokenTable) -> None:
        self._reader = reader
        self._writer = writer
        self._frames = FrameReader()
        self._pending: list = []
        self.table = table

    @classmethod
    async def connect(cls, host: str, port: int, *, timeout: float = 10.0,
                      default_table: TokenTable | None = None, local_address: str | None = None) -> "DaideClient":
        """``local_address``: the address to connect from (e.g. another loopback address)."""
        local = (local_address, 0) if local_address is not None else None
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=local), timeout)
        writer.write(initial_message())
        await writer.drain()
        client = cls(reader, writer, default_table or TokenTable.standard())
        frame = await asyncio.wait_for(client._next_frame(), timeout)
        if frame.kind != Kind.RM:
            raise ConnectionClosed(f"expected an RM first, got frame type {frame.kind}")
        entries = read_representation(frame.body)
        if entries:
            client.table = TokenTable.from_representation(entries)
        return client

    async def _next_frame(self):
        while not self._pending:
            data = await self._reader.read(65536)
            if not data:
                raise ConnectionClosed("the server closed the connection")
            self._pending.extend(self._frames.feed(data))
        return self._pending.pop(0)

    async def send(self, message: Union[Message, str]) -> None:
        tree = from_text(message) if isinstance(message, str) else message
        self._writer.write(pack(Kind.DM, encode(tree, self.table)))
        await self._writer.drain()

    async def send_raw(self, data: bytes) -> None:
        """Bytes as they are (tests of bad input)."""
        self._writer.write(data)
        await self._writer.drain()

    async def receive(self, timeout: float | None = None) -> Message:
        while True:
            frame = await asyncio.wait_for(self._next_frame(), timeout)
            if frame.kind == Kind.DM:
                try:
                    return decode(frame.body, self.table)
                except DecodeError:
                    if frame.body[:2] == self.table.by_name.get("PRN", 0x4813).to_bytes(2, "big"):
                        return ("PRN",)  # it quotes our unbalanced message: unbalanced itself
                    raise
            if frame.kind == Kind.EM:
                code = int.from_bytes(frame.body[:2], "big") if len(frame.body) >= 2 else None
                raise ConnectionClosed(f"the server sent EM 0x{code or 0:02X}", _code(code))
            if frame.kind == Kind.FM:
                raise ConnectionClosed("the server sent FM")

    async def receive_text(self, timeout: float | None = None) -> str:
        return to_text(await self.receive(timeout))

    async def close(self) -> None:
        try:
            self._writer.write(final_message())
            await self._writer.drain()
        except ConnectionError:
            pass
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except ConnectionError:
            pass


def _code(code: int | None) -> ErrorCode | int | None:
    try:
        return ErrorCode(code) if code is not None else None
    except ValueError:
        return code
