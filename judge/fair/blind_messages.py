"""Every message of the blinded assignment (reference 001), as frozen values.

Parties are named by strings: :data:`GM` (the judge running the game), :data:`WITNESS`
(the third party that shuffles) and the players' own identifiers.  The commands render each
message as an email to ``recipients``; the fields are the data it carries.  In order:

1. ``ShuffleRequest``   GM -> witness      players and message length; the run begins
2. ``GmBlinded``        GM -> each player  a power message blinded with the GM's blind
3. ``PlayerBlinded``    player -> witness  that message plus the player's own blind
4. ``ShuffledList``     witness -> GM      all of them, shuffled, once all are in
5. ``ListReceipt``      GM -> witness      the GM confirms (digest of the list received)
6. ``BlindRequest``     witness -> players send your blinding factor
7. ``BlindReport``      player -> witness  the player's blind
8. ``BlindsCollected``  witness -> GM      every blind is in
9. ``FinalMessage``     GM -> each player  one listed message with the GM's blind removed
10. ``FinalReceipt``    player -> witness  the player confirms (echoes) what it received
11. ``ReceiptsComplete`` witness -> GM     every player confirmed; the echoes
    ``ReceiptsRejected`` GM -> witness     (only if an echo differs: the GM sends those
                                           players the same FinalMessage again, and the
                                           witness waits for their new receipts)
12. ``FormatPublished`` GM -> all          the format (e.g. ``4456x464``) and power order
13. ``BlindsPublished`` witness -> all     the players' blinds, sorted (no names)

Each player then tries the published blinds on its final message (``blind.try_blinds``).
The format and the blinds come out only after every player confirmed its final message,
so nobody can see a power and then claim the message was lost; the witness publishes the
blinds only after the GM published the format, i.e. accepted every receipt.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.fair.blind import MessageFormat

GM = "gm"
WITNESS = "witness"
ROLES = (GM, WITNESS)


@dataclass(frozen=True)
class ShuffleRequest:
    players: tuple[str, ...]
    length: int
    sender: str = GM
    recipients: tuple[str, ...] = (WITNESS,)


@dataclass(frozen=True)
class GmBlinded:
    recipients: tuple[str, ...]
    message: str
    sender: str = GM


@dataclass(frozen=True)
class PlayerBlinded:
    sender: str
    message: str
    recipients: tuple[str, ...] = (WITNESS,)


@dataclass(frozen=True)
class ShuffledList:
    messages: tuple[str, ...]
    sender: str = WITNESS
    recipients: tuple[str, ...] = (GM,)


@dataclass(frozen=True)
class ListReceipt:
    digest: str
    count: int
    sender: str = GM
    recipients: tuple[str, ...] = (WITNESS,)


@dataclass(frozen=True)
class BlindRequest:
    recipients: tuple[str, ...]
    sender: str = WITNESS


@dataclass(frozen=True)
class BlindReport:
    sender: str
    blind: str
    recipients: tuple[str, ...] = (WITNESS,)


@dataclass(frozen=True)
class BlindsCollected:
    count: int
    sender: str = WITNESS
    recipients: tuple[str, ...] = (GM,)


@dataclass(frozen=True)
class FinalMessage:
    recipients: tuple[str, ...]
    message: str
    sender: str = GM


@dataclass(frozen=True)
class FinalReceipt:
    sender: str
    message: str
    recipients: tuple[str, ...] = (WITNESS,)


@dataclass(frozen=True)
class ReceiptsComplete:
    confirmed: tuple[tuple[str, str], ...]  # (player, final message it echoed)
    sender: str = WITNESS
    recipients: tuple[str, ...] = (GM,)


@dataclass(frozen=True)
class ReceiptsRejected:
    rejected: tuple[tuple[str, str], ...]  # (player, its echo that differed); the message went again
    sender: str = GM
    recipients: tuple[str, ...] = (WITNESS,)


@dataclass(frozen=True)
class BlindsPublished:
    recipients: tuple[str, ...]
    blinds: tuple[str, ...]
    sender: str = WITNESS


@dataclass(frozen=True)
class FormatPublished:
    recipients: tuple[str, ...]
    format: MessageFormat
    sender: str = GM


BlindMessage = (
    ShuffleRequest
    | GmBlinded
    | PlayerBlinded
    | ShuffledList
    | ListReceipt
    | BlindRequest
    | BlindReport
    | BlindsCollected
    | FinalMessage
    | FinalReceipt
    | ReceiptsComplete
    | ReceiptsRejected
    | BlindsPublished
    | FormatPublished
)
