import random
from collections import Counter, deque
from dataclasses import replace

import pytest

from judge.fair.blind import BlindError, MessageFormat, try_blinds
from judge.fair.blind_messages import (
    GM,
    WITNESS,
    BlindReport,
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
from judge.fair.blind_protocol import GmSide, GmStage, PlayerSide, ProtocolError, WitnessSide, list_digest

POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
SEVEN = ("ann", "bob", "cat", "dan", "eve", "fay", "gus")


class Network:
    """Delivers every message to each recipient's state machine, in sending order."""

    def __init__(self, gm_step, players: dict[str, PlayerSide], rng: random.Random,
                 copies: int = 1, delayed: tuple[type, ...] = ()) -> None:
        self.parties: dict[str, object] = {GM: gm_step.state, **players}
        self.rng = rng
        self.log: list[object] = []
        self.queue: deque = deque()
        self.copies = copies  # each message delivered this many times, as email may do
        self.delayed = delayed  # kinds held back until nothing else is in flight
        self.held: deque = deque()
        self.send(gm_step.outgoing)

    def send(self, messages) -> None:
        for message in messages:
            self.log.append(message)
            for recipient in message.recipients:
                for _ in range(self.copies):
                    target = self.held if isinstance(message, self.delayed) else self.queue
                    target.append((recipient, message))

    def run(self) -> None:
        while self.queue or self.held:
            recipient, message = (self.queue or self.held).popleft()
            if isinstance(message, ShuffleRequest):
                self.parties[WITNESS] = WitnessSide.from_request(message)
                continue
            step = self.parties[recipient].receive(message, self.rng)
            self.parties[recipient] = step.state
            self.send(step.outgoing)

    def index(self, kind: type) -> list[int]:
        return [i for i, message in enumerate(self.log) if isinstance(message, kind)]


def test_reference_worked_example_end_to_end() -> None:
    rng = random.Random(1)
    fmt = MessageFormat("4456x464", ("AUSTRIA",))
    start = GmSide.start(["reader"], ("AUSTRIA",), rng, message_format=fmt, gm_blind="54646487")
    net = Network(start, {"reader": PlayerSide("reader", blind="87446534")}, rng)
    net.run()
    sent = {type(message).__name__: message for message in net.log}
    assert sent["GmBlinded"].message == "98106841"
    assert sent["PlayerBlinded"].message == "75542375"
    assert sent["ShuffledList"].messages == ("75542375",)
    assert sent["FinalMessage"].message == "21906998"
    assert sent["BlindsPublished"].blinds == ("87446534",)
    assert sent["FormatPublished"].format.template == "4456x464"
    assert net.parties["reader"].power == "AUSTRIA"
    assert net.parties[GM].record.as_dict == {"reader": "AUSTRIA"}
    assert net.parties[GM].record.problems == ()


def seven_player_run(seed: int) -> Network:
    rng = random.Random(seed)
    start = GmSide.start(SEVEN, POWERS, rng)
    net = Network(start, {name: PlayerSide(name) for name in SEVEN}, rng)
    net.run()
    return net


def test_seven_players_each_learn_exactly_their_own_power_and_the_gm_record_matches() -> None:
    net = seven_player_run(2026)
    gm = net.parties[GM]
    assert gm.stage is GmStage.DONE and gm.record.problems == ()
    learned = {name: net.parties[name].power for name in SEVEN}
    assert learned == gm.record.as_dict
    assert sorted(learned.values()) == sorted(POWERS)
    blinds = next(m for m in net.log if isinstance(m, BlindsPublished)).blinds
    fmt = gm.format
    for name in SEVEN:
        final = net.parties[name].final
        fitting = [b for b in blinds if try_blinds(final, [b], fmt) is not None]
        assert len(fitting) == 1  # exactly one blind opens a player's message
    # every private message goes to one player only, and no player sees another's final message
    for message in net.log:
        if isinstance(message, (GmBlinded, FinalMessage)):
            assert len(message.recipients) == 1 and message.recipients[0] in SEVEN


def test_secrets_come_out_only_after_the_dealing_and_every_receipt() -> None:
    net = seven_player_run(5)
    last_final = max(net.index(FinalMessage))
    last_receipt = max(net.index(FinalReceipt))
    assert last_final < min(net.index(FinalReceipt))
    assert min(net.index(BlindsPublished)) > min(net.index(FormatPublished)) > min(net.index(ReceiptsComplete))
    assert min(net.index(ReceiptsComplete)) > last_receipt
    assert min(net.index(BlindReport)) > min(net.index(ListReceipt)) > min(net.index(ShuffledList))
    assert max(net.index(PlayerBlinded)) < min(net.index(ShuffledList))


def test_assignment_varies_with_the_random_source() -> None:
    seen = Counter()
    for seed in range(40):
        record = seven_player_run(seed).parties[GM].record
        assert record.problems == ()
        seen[record.as_dict["ann"]] += 1
    assert set(seen) == set(POWERS)  # ann got every power in some run


def test_a_garbled_receipt_gets_the_same_message_again_before_anything_is_revealed() -> None:
    net = garbling_run(11)
    rejected = [m for m in net.log if isinstance(m, ReceiptsRejected)]
    assert [m.rejected for m in rejected] == [(("dan", "9" * gm_format_length(net)),)]
    to_dan = [m.message for m in net.log if isinstance(m, FinalMessage) and m.recipients == ("dan",)]
    assert len(to_dan) == 2 and to_dan[0] == to_dan[1]  # the same message, not a new deal
    assert min(net.index(FormatPublished)) > net.log.index(rejected[0])
    gm = net.parties[GM]
    assert gm.record.problems == ()
    assert {name: net.parties[name].power for name in SEVEN} == gm.record.as_dict


def gm_format_length(net: Network) -> int:
    return net.parties[GM].format.length


def garbling_run(seed: int, **network_options) -> Network:
    """dan's first receipt echoes a garbled message; everything else is honest."""
    rng = random.Random(seed)
    start = GmSide.start(SEVEN, POWERS, rng)
    players = {name: PlayerSide(name) for name in SEVEN}
    garbled: list[str] = []

    class Garbler(PlayerSide):
        def receive(self, message, rng):
            step = PlayerSide.receive(self, message, rng)
            if isinstance(message, FinalMessage) and not garbled:
                garbled.append(message.message)
                return replace(step, outgoing=(FinalReceipt(self.name, "9" * len(message.message)),))
            return step

    players["dan"] = Garbler("dan")
    net = Network(start, players, rng, **network_options)
    net.run()
    return net


def test_every_message_delivered_twice_changes_nothing() -> None:
    net = garbling_run(21, copies=2)
    gm = net.parties[GM]
    assert gm.stage is GmStage.DONE and gm.record.problems == ()
    dealt = {(m.recipients, m.message) for m in net.log if isinstance(m, FinalMessage)}
    assert len(dealt) == 7  # never dealt twice, whatever arrives twice
    assert len(net.index(GmBlinded)) == 7 and len(net.index(ShuffledList)) == 1
    assert {name: net.parties[name].power for name in SEVEN} == gm.record.as_dict


def test_a_corrected_receipt_may_overtake_the_rejection() -> None:
    net = garbling_run(22, delayed=(ReceiptsRejected,))
    gm = net.parties[GM]
    assert gm.stage is GmStage.DONE and gm.record.problems == ()
    assert len(net.index(ReceiptsComplete)) == 2
    assert {name: net.parties[name].power for name in SEVEN} == gm.record.as_dict


def test_a_player_who_reports_a_wrong_blind_is_detected() -> None:
    rng = random.Random(3)
    start = GmSide.start(SEVEN, POWERS, rng)
    players = {name: PlayerSide(name) for name in SEVEN}

    class Liar(PlayerSide):
        def receive(self, message, rng):
            step = PlayerSide.receive(self, message, rng)
            lied = tuple(BlindReport(o.sender, "0" * len(o.blind)) if isinstance(o, BlindReport) else o for o in step.outgoing)
            return replace(step, outgoing=lied)

    players["cat"] = Liar("cat")
    net = Network(start, players, rng)
    net.run()
    problems = net.parties[GM].record.problems
    assert problems and any("matches no published blind" in problem for problem in problems)


def witness_with_messages() -> WitnessSide:
    witness = WitnessSide.from_request(ShuffleRequest(("a", "b"), 4))
    witness = witness.receive(PlayerBlinded("a", "1234"), random.Random(0)).state
    assert witness.awaiting == ("b",)
    return witness


def test_witness_refuses_wrong_length_unknown_senders_and_early_blinds() -> None:
    witness = witness_with_messages()
    with pytest.raises(BlindError, match="blinded message '123' has 3 digits, expected 4"):
        witness.receive(PlayerBlinded("b", "123"), random.Random(0))
    with pytest.raises(ProtocolError, match="from 'mallory'"):
        witness.receive(PlayerBlinded("mallory", "1234"), random.Random(0))
    with pytest.raises(ProtocolError, match="BlindReport is not expected now"):
        witness.receive(BlindReport("a", "1111"), random.Random(0))


def test_witness_refuses_a_gm_receipt_for_another_list() -> None:
    step = witness_with_messages().receive(PlayerBlinded("b", "9876"), random.Random(0))
    assert isinstance(step.outgoing[0], ShuffledList)
    with pytest.raises(ProtocolError, match="different list"):
        step.state.receive(ListReceipt(list_digest(["0000", "1111"]), 2), random.Random(0))
    good = step.state.receive(ListReceipt(list_digest(step.outgoing[0].messages), 2), random.Random(0))
    assert good.state.awaiting == ("a", "b")


def test_gm_refuses_bad_setups_and_out_of_turn_messages() -> None:
    rng = random.Random(0)
    with pytest.raises(ProtocolError, match="6 players for 7 powers"):
        GmSide.start(SEVEN[:6], POWERS, rng)
    with pytest.raises(ProtocolError, match="clash with the roles"):
        GmSide.start(["gm", "b"], POWERS[:2], rng)
    with pytest.raises(BlindError, match="GM blind '123' has 3 digits, expected 8"):
        GmSide.start(["a"], ("AUSTRIA",), rng, message_format=MessageFormat("4456x464", ("AUSTRIA",)), gm_blind="123")
    gm = GmSide.start(SEVEN, POWERS, rng).state
    with pytest.raises(ProtocolError, match="FinalReceipt is not expected now"):
        gm.receive(FinalReceipt("ann", "1"), rng)
    with pytest.raises(ProtocolError, match="holds 1 messages, expected 7"):
        gm.receive(ShuffledList(("1" * gm.format.length,)), rng)
    with pytest.raises(ProtocolError, match="from 'ann'"):
        gm.receive(ShuffledList(("1",) * 7, sender="ann"), rng)
