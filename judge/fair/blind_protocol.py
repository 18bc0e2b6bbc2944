"""The blinded assignment of reference 001 as three pure state machines.

:class:`GmSide` is the judge running the game, :class:`WitnessSide` the third party that
shuffles, :class:`PlayerSide` what a player (or the ``judge player blind`` helper) does.
Each ``receive(message, rng)`` returns a :class:`Step`: the next state and the messages to
send.  Randomness is injected (``secrets.SystemRandom()`` in real use).

Why nobody can bias the result: the GM blinds every power message with one GM blind, so a
player cannot tell which power it holds; each player adds its own secret blind; the witness
shuffles, so the GM cannot tell whose message is whose; the GM removes its blind and deals
the messages out while the player blinds are still secret, so it cannot see which power it
deals to whom.  A player's power is the one its final message reveals under some published
blind; the GM learns the whole assignment the same way.
"""

from __future__ import annotations

import enum
import hashlib
import random
from dataclasses import dataclass, replace
from typing import Generic, Sequence, TypeVar

from judge.fair.blind import (
    BlindError,
    MessageFormat,
    add_digits,
    check_digits,
    choose_format,
    random_digits,
    sub_digits,
    try_blinds,
)
from judge.fair.blind_messages import (
    GM,
    ROLES,
    WITNESS,
    BlindMessage,
    BlindReport,
    BlindRequest,
    BlindsCollected,
    BlindsPublished,
    FinalMessage,
    FinalReceipt,
    FormatPublished,
    GmBlinded,
    ListReceipt,
    PlayerBlinded,
    ReceiptsComplete,
    ReceiptsRejected,
    ShuffledList,
    ShuffleRequest,
)

DEFAULT_VERIFICATION_DIGITS = 12


class ProtocolError(ValueError):
    """A message that does not fit the protocol's current stage or carries bad data."""


Side = TypeVar("Side", bound="GmSide | WitnessSide | PlayerSide")


@dataclass(frozen=True)
class Step(Generic[Side]):
    """The state after a message (the same side's) and the messages it causes."""

    state: Side
    outgoing: tuple[BlindMessage, ...] = ()


def list_digest(messages: Sequence[str]) -> str:
    """What the GM echoes to show the witness which list arrived."""
    return hashlib.sha256("\n".join(messages).encode("ascii")).hexdigest()


def _check_players(players: Sequence[str]) -> tuple[str, ...]:
    result = tuple(players)
    if not result or len(set(result)) != len(result):
        raise ProtocolError(f"players must be named once each: {list(result)!r}")
    clashes = [player for player in result if player in ROLES]
    if clashes:
        raise ProtocolError(f"player names {clashes!r} clash with the roles {list(ROLES)!r}")
    return result


Expected = TypeVar("Expected")


def _expect(message: BlindMessage, kind: type[Expected], stage: enum.Enum, allowed: Sequence[str]) -> Expected:
    """``message`` itself, when it is a ``kind`` from one of the ``allowed`` senders; else
    ProtocolError."""
    if not isinstance(message, kind):
        raise ProtocolError(f"{type(message).__name__} is not expected now ({stage.value}); waiting for {kind.__name__}")
    if message.sender not in allowed:
        raise ProtocolError(f"{type(message).__name__} from {message.sender!r}, who has no part in this step")
    return message


def _set(pairs: tuple[tuple[str, str], ...], key: str, value: str) -> tuple[tuple[str, str], ...]:
    return tuple((k, v) for k, v in pairs if k != key) + ((key, value),)


# --- the GM ------------------------------------------------------------------------------


class GmStage(enum.Enum):
    AWAITING_LIST = "waiting for the witness's shuffled list"
    AWAITING_BLINDS_COLLECTED = "waiting for the witness to collect the player blinds"
    AWAITING_RECEIPTS = "waiting for every player to confirm its final message"
    AWAITING_BLINDS = "waiting for the witness to publish the blinds"
    DONE = "done"


@dataclass(frozen=True)
class GmRecord:
    """The GM's view once the blinds are out: who got which power, and anything amiss."""

    assignment: tuple[tuple[str, str], ...]
    problems: tuple[str, ...]

    @property
    def as_dict(self) -> dict[str, str]:
        return dict(self.assignment)


@dataclass(frozen=True)
class GmSide:
    players: tuple[str, ...]
    format: MessageFormat
    gm_blind: str
    sent: tuple[tuple[str, str], ...]  # (player, GM-blinded message it was sent)
    stage: GmStage = GmStage.AWAITING_LIST
    shuffled: tuple[str, ...] = ()
    finals: tuple[tuple[str, str], ...] = ()  # (player, final message)
    record: GmRecord | None = None

    @classmethod
    def start(
        cls,
        players: Sequence[str],
        powers: Sequence[str],
        rng: random.Random,
        *,
        verification_digits: int = DEFAULT_VERIFICATION_DIGITS,
        message_format: MessageFormat | None = None,
        gm_blind: str | None = None,
    ) -> Step[GmSide]:
        """Begin a run: one power per player.  ``message_format`` and ``gm_blind`` may be
        given (to replay a known run); otherwise they are drawn from ``rng``."""
        names = _check_players(players)
        fmt = message_format or choose_format(tuple(powers), verification_digits, rng)
        if fmt.powers != tuple(powers):
            raise ProtocolError(f"format powers {list(fmt.powers)!r} differ from {list(powers)!r}")
        if len(fmt.powers) != len(names):
            raise ProtocolError(f"{len(names)} players for {len(fmt.powers)} powers: give one power per player")
        blind = check_digits(gm_blind, fmt.length, "GM blind") if gm_blind else random_digits(fmt.length, rng)
        powers_dealt = list(fmt.powers)
        rng.shuffle(powers_dealt)
        sent = tuple((player, add_digits(fmt.encode(power), blind)) for player, power in zip(names, powers_dealt))
        state = cls(names, fmt, blind, sent)
        request = ShuffleRequest(names, fmt.length)
        return Step(state, (request,) + tuple(GmBlinded((player,), message) for player, message in sent))

    @property
    def awaiting(self) -> tuple[str, ...]:
        """The parties the GM waits for (``stage.value`` says what for)."""
        return () if self.stage is GmStage.DONE else (WITNESS,)

    def _is_repeat(self, message: BlindMessage) -> bool:
        """A message already acted on, delivered again (email may duplicate)."""
        past = list(GmStage).index(self.stage)
        return (
            (isinstance(message, ShuffledList) and past > 0 and message.messages == self.shuffled)
            or (isinstance(message, BlindsCollected) and past > 1)
            or (isinstance(message, ReceiptsComplete) and past > 2)
            or (isinstance(message, BlindsPublished) and past > 3)
        ) and message.sender == WITNESS

    def receive(self, message: BlindMessage, rng: random.Random) -> Step[GmSide]:
        if self._is_repeat(message):
            return Step(self)
        if self.stage is GmStage.AWAITING_LIST:
            message = _expect(message, ShuffledList, self.stage, (WITNESS,))
            return self._on_list(message)
        if self.stage is GmStage.AWAITING_BLINDS_COLLECTED:
            message = _expect(message, BlindsCollected, self.stage, (WITNESS,))
            return self._deal(rng)
        if self.stage is GmStage.AWAITING_RECEIPTS:
            message = _expect(message, ReceiptsComplete, self.stage, (WITNESS,))
            return self._on_receipts(message)
        if self.stage is GmStage.AWAITING_BLINDS:
            message = _expect(message, BlindsPublished, self.stage, (WITNESS,))
            return Step(self._with_blinds(message))
        raise ProtocolError(f"the run is finished; {type(message).__name__} is not expected")

    def _on_list(self, message: ShuffledList) -> Step[GmSide]:
        if len(message.messages) != len(self.players):
            raise ProtocolError(f"the list holds {len(message.messages)} messages, expected {len(self.players)}")
        for item in message.messages:
            check_digits(item, self.format.length, "listed message")
        state = replace(self, shuffled=message.messages, stage=GmStage.AWAITING_BLINDS_COLLECTED)
        return Step(state, (ListReceipt(list_digest(message.messages), len(message.messages)),))

    def _deal(self, rng: random.Random) -> Step[GmSide]:
        unblinded = [sub_digits(item, self.gm_blind) for item in self.shuffled]
        rng.shuffle(unblinded)  # the GM cannot tell them apart anyway; dealing at random costs nothing
        finals = tuple(zip(self.players, unblinded))
        state = replace(self, finals=finals, stage=GmStage.AWAITING_RECEIPTS)
        return Step(state, tuple(FinalMessage((player,), text) for player, text in finals))

    def _on_receipts(self, message: ReceiptsComplete) -> Step[GmSide]:
        sent = dict(self.finals)
        echoed = dict(message.confirmed)
        differing = tuple(player for player in self.players if echoed.get(player) != sent[player])
        if differing:
            # the same message again, never a new one: nobody gains by claiming a loss
            resend = tuple(FinalMessage((player,), sent[player]) for player in differing)
            rejected = tuple((player, echoed.get(player, "")) for player in differing)
            return Step(self, resend + (ReceiptsRejected(rejected),))
        state = replace(self, stage=GmStage.AWAITING_BLINDS)
        return Step(state, (FormatPublished(self.players + (WITNESS,), self.format),))

    def _with_blinds(self, message: BlindsPublished) -> "GmSide":
        assignment: list[tuple[str, str]] = []
        problems: list[str] = []
        for player, text in self.finals:
            try:
                power = try_blinds(text, message.blinds, self.format)
            except BlindError as error:
                problems.append(f"{player}: {error}")
                continue
            if power is None:
                problems.append(f"{player}: message {text!r} matches no published blind")
            else:
                assignment.append((player, power))
        given = [power for _, power in assignment]
        if len(set(given)) != len(given):
            problems.append(f"a power was revealed twice: {sorted(given)!r}")
        return replace(self, stage=GmStage.DONE, record=GmRecord(tuple(assignment), tuple(problems)))


# --- the witness (third party) -----------------------------------------------------------


class WitnessStage(enum.Enum):
    COLLECTING_MESSAGES = "waiting for the players' blinded messages"
    AWAITING_LIST_RECEIPT = "waiting for the GM to confirm the list"
    COLLECTING_BLINDS = "waiting for the players' blinds"
    COLLECTING_RECEIPTS = "waiting for the players to confirm their final messages"
    AWAITING_FORMAT = "waiting for the GM to accept the receipts and publish the format"
    DONE = "done"


@dataclass(frozen=True)
class WitnessSide:
    players: tuple[str, ...]
    length: int
    stage: WitnessStage = WitnessStage.COLLECTING_MESSAGES
    blinded: tuple[tuple[str, str], ...] = ()
    shuffled: tuple[str, ...] = ()
    blinds: tuple[tuple[str, str], ...] = ()
    receipts: tuple[tuple[str, str], ...] = ()
    format: MessageFormat | None = None  # as the GM published it, kept for the record

    @classmethod
    def from_request(cls, request: ShuffleRequest) -> "WitnessSide":
        if request.length < 1:
            raise ProtocolError(f"message length {request.length!r} must be positive")
        return cls(_check_players(request.players), request.length)

    @property
    def awaiting(self) -> tuple[str, ...]:
        """The parties the witness waits for (players by name, or the GM)."""
        if self.stage in (WitnessStage.AWAITING_LIST_RECEIPT, WitnessStage.AWAITING_FORMAT):
            return (GM,)
        pending = {
            WitnessStage.COLLECTING_MESSAGES: self.blinded,
            WitnessStage.COLLECTING_BLINDS: self.blinds,
            WitnessStage.COLLECTING_RECEIPTS: self.receipts,
        }.get(self.stage)
        if pending is None:
            return ()
        done = {player for player, _ in pending}
        return tuple(player for player in self.players if player not in done)

    def receive(self, message: BlindMessage, rng: random.Random) -> Step[WitnessSide]:
        if self._is_repeat(message):
            return Step(self)
        if self.stage is WitnessStage.COLLECTING_MESSAGES:
            message = _expect(message, PlayerBlinded, self.stage, self.players)
            text = check_digits(message.message, self.length, "blinded message")
            state = replace(self, blinded=_set(self.blinded, message.sender, text))
            return state._forward_list(rng) if not state.awaiting else Step(state)
        if self.stage is WitnessStage.AWAITING_LIST_RECEIPT:
            message = _expect(message, ListReceipt, self.stage, (GM,))
            if message.digest != list_digest(self.shuffled):
                raise ProtocolError("the GM confirmed a different list from the one sent")
            state = replace(self, stage=WitnessStage.COLLECTING_BLINDS)
            return Step(state, (BlindRequest(self.players),))
        if self.stage is WitnessStage.COLLECTING_BLINDS:
            message = _expect(message, BlindReport, self.stage, self.players)
            blind = check_digits(message.blind, self.length, "blind")
            state = replace(self, blinds=_set(self.blinds, message.sender, blind))
            if state.awaiting:
                return Step(state)
            return Step(replace(state, stage=WitnessStage.COLLECTING_RECEIPTS), (BlindsCollected(len(self.players)),))
        if self.stage in (WitnessStage.COLLECTING_RECEIPTS, WitnessStage.AWAITING_FORMAT):
            if isinstance(message, ReceiptsRejected) and message.sender == GM:
                return self._on_rejected(message)
            if isinstance(message, FinalReceipt):
                message = _expect(message, FinalReceipt, self.stage, self.players)
                text = check_digits(message.message, self.length, "confirmed message")
                return replace(self, receipts=_set(self.receipts, message.sender, text))._report_receipts()
            if self.stage is WitnessStage.AWAITING_FORMAT:
                message = _expect(message, FormatPublished, self.stage, (GM,))
                return self._publish(message.format)
            message = _expect(message, FinalReceipt, self.stage, self.players)
        raise ProtocolError(f"the run is finished; {type(message).__name__} is not expected")

    def _on_rejected(self, message: ReceiptsRejected) -> Step[WitnessSide]:
        # drop an echo only if it is still the rejected one: a corrected receipt may overtake
        rejected = set(message.rejected)
        receipts = tuple(pair for pair in self.receipts if pair not in rejected)
        return replace(self, receipts=receipts, stage=WitnessStage.COLLECTING_RECEIPTS)._report_receipts()

    def _report_receipts(self) -> Step[WitnessSide]:
        """Once every player has confirmed, pass the echoes to the GM (once per round)."""
        if self.stage is not WitnessStage.COLLECTING_RECEIPTS or self.awaiting:
            return Step(self)
        receipts = dict(self.receipts)
        confirmed = tuple((player, receipts[player]) for player in self.players)
        return Step(replace(self, stage=WitnessStage.AWAITING_FORMAT), (ReceiptsComplete(confirmed),))

    def _is_repeat(self, message: BlindMessage) -> bool:
        """A message already acted on, delivered again (email may duplicate)."""
        past = list(WitnessStage).index(self.stage)
        if isinstance(message, PlayerBlinded):
            return past > 0 and (message.sender, message.message) in self.blinded
        if isinstance(message, ListReceipt):
            return past > 1 and message.sender == GM and message.digest == list_digest(self.shuffled)
        if isinstance(message, BlindReport):
            return past > 2 and (message.sender, message.blind) in self.blinds
        if isinstance(message, FinalReceipt):
            return past > 4 and (message.sender, message.message) in self.receipts
        return isinstance(message, FormatPublished) and past > 4 and message.sender == GM

    def _forward_list(self, rng: random.Random) -> Step[WitnessSide]:
        messages = [text for _, text in self.blinded]
        rng.shuffle(messages)
        state = replace(self, shuffled=tuple(messages), stage=WitnessStage.AWAITING_LIST_RECEIPT)
        return Step(state, (ShuffledList(tuple(messages)),))

    def _publish(self, fmt: MessageFormat) -> Step[WitnessSide]:
        blinds = tuple(sorted(blind for _, blind in self.blinds))  # sorted: no names, no order to read
        state = replace(self, format=fmt, stage=WitnessStage.DONE)
        return Step(state, (BlindsPublished(self.players + (GM,), blinds),))


# --- a player ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerSide:
    """What a player does; a person does the same with ``judge player blind``.

    ``blind`` may be chosen beforehand; otherwise it is drawn from ``rng`` on arrival of
    the GM-blinded message."""

    name: str
    blind: str | None = None
    sent: str | None = None  # the blinded message sent to the witness
    final: str | None = None
    format: MessageFormat | None = None
    published_blinds: tuple[str, ...] | None = None

    @property
    def power(self) -> str | None:
        """The player's power, once the final message, the format and the blinds are in."""
        if self.final is None or self.format is None or self.published_blinds is None:
            return None
        return try_blinds(self.final, self.published_blinds, self.format)

    def receive(self, message: BlindMessage, rng: random.Random) -> Step[PlayerSide]:
        if isinstance(message, GmBlinded):
            if self.sent is not None:
                if self.blind is not None and add_digits(message.message, self.blind) == self.sent:
                    return Step(self)  # the same message again
                raise ProtocolError(f"{self.name} already blinded another message")
            blind = self.blind or random_digits(len(message.message), rng)
            sent = add_digits(message.message, blind)
            return Step(replace(self, blind=blind, sent=sent), (PlayerBlinded(self.name, sent),))
        if isinstance(message, BlindRequest):
            if self.blind is None or self.sent is None:
                raise ProtocolError(f"{self.name} has no blind to report yet")
            return Step(self, (BlindReport(self.name, self.blind),))
        if isinstance(message, FinalMessage):
            return Step(replace(self, final=message.message), (FinalReceipt(self.name, message.message),))
        if isinstance(message, FormatPublished):
            return Step(replace(self, format=message.format))
        if isinstance(message, BlindsPublished):
            return Step(replace(self, published_blinds=message.blinds))
        raise ProtocolError(f"a player does not expect {type(message).__name__}")
