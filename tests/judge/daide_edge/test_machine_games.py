"""Machine players in the judge's games: real AiClient bots over DAIDE, the judge's store,
its scheduler passes and its mail path (tests.judge.commands.harness)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from adjudicator import api
from adjudicator.jsonio import position_from_json
from adjudicator.tables import tables_for
from daide.messages import from_text, to_text
from daide.orders import ord_messages
from daide.render import now as now_message, supply_centres
from daide.tokens import TokenTable
from judge.store.queries import variant_of
from judge.store.models_game import Game, Membership, PhaseRecord
from judge.store.models_mail import OutboxMessage
from judge.store.models_daide import MachineSeat
from tests.judge.daide_edge.machines import MachineJudge, Watcher, bot_path, sent_and_thanked, wait_until
from tests.judge.daide_edge.smtp_judge import SmtpMachineJudge
from tests.judge.commands.conftest import MASTER
from adjudicator.types import Phase


def reached(machine: MachineJudge | SmtpMachineJudge, phase: str) -> bool:
    game = machine.game()
    return game.status == "ended" or (game.phase is not None and Phase.parse(game.phase) >= Phase.parse(phase))


def test_seven_dumbbots_play_to_winter_1905_and_every_broadcast_matches_our_adjudication(tmp_path: Path) -> None:
    bot_path("dumbbot")
    machine = MachineJudge(tmp_path)
    try:
        watcher = Watcher(machine.port)
        for _ in range(7):
            machine.start_bot("dumbbot")
        wait_until(lambda: reached(machine, "W1905A"), "the bots' game to reach Winter 1905", timeout=90)
        game = machine.game()
        variant = variant_of(game)
        table, tables = TokenTable.for_variant(variant), tables_for(variant)
        with machine.judge.store.sessions() as session:
            records = session.scalars(select(PhaseRecord).order_by(PhaseRecord.id)).all()
        assert len(records) >= 10
        wait_until(lambda: sum(m[0] == "NOW" for m in watcher.messages) > len(records), "the observer's NOWs")  # one NOW at the start
        heard = [to_text(m) for m in watcher.messages]
        for record in records:
            before = position_from_json(variant, record.position_before)
            after = position_from_json(variant, record.position_after)
            board = api.prepare(variant, before)
            again = api.adjudicate(board, {p: api.parse_orders(board, p, lines) for p, lines in record.orders.items()})
            assert {(r.power, r.order, r.result) for r in again.results} == \
                   {(r["power"], r["order"], r["result"]) for r in record.results}, record.phase
            assert api.position_digest(again.position) == api.position_digest(after)
            for line in ord_messages(table, tables, before, again.results, again.dislodged):
                assert to_text(line) in heard, f"{record.phase}: {to_text(line)} not broadcast"
            assert to_text(now_message(table, after)) in heard
            assert to_text(supply_centres(variant, table, after.centers)) in heard
        for bot in machine.bots:
            submitted, notes = sent_and_thanked(bot)
            assert len(notes) == submitted, bot.folder
            _every_order_accepted(bot)
            assert not [line for line in bot.log() if line.startswith((">> HUH", ">> REJ", ">> PRN"))]
    finally:
        machine.close()


def _every_order_accepted(bot) -> None:
    """Every order the bot sent was accepted (MBV), but for those answered once their phase
    was over (the bot had heard the next NOW first): NRS, as DAIDE says.  The phase did not
    wait for them: a late waive when the others' orders completed it, or a restarted bot's
    first orders for a phase its killed predecessor had already ordered."""
    phase = None  # the turn of the last NOW heard
    sent_in: dict[tuple, object] = {}  # order -> the turn it was last sent in
    notes = []
    for line in bot.log():
        if line.startswith(">> NOW"):
            phase = from_text(line[3:])[1]
        elif line.startswith("<< SUB"):
            sent_in.update((tuple(order), phase) for order in from_text(line[3:])[1:]
                           if type(order) is tuple and order[0] not in ("SPR", "SUM", "FAL", "AUT", "WIN"))
        elif line.startswith(">> THX"):
            message = from_text(line[3:])
            order, note = tuple(message[1]), str(message[-1][0])
            notes.append(note)
            assert note == "MBV" or (note == "NRS" and sent_in.get(order) != phase), (bot.folder, line)
    assert "MBV" in notes, bot.folder


def _human_orders(variant, position, power: str) -> list[str]:
    need = api.requirements(api.prepare(variant, position)).get(power)
    if need is None:
        return []
    if need.phase_kind.name == "ADJUSTMENT":
        if need.removals:
            return [f"{unit} D" for unit in sorted(u for u in position.units if u.power == power)[:need.removals]]
        return ["WAIVE"] * need.builds
    if need.phase_kind.name == "RETREAT":
        return [f"{unit} D" for unit in need.units]
    return [f"{unit} H" for unit in need.units]


def test_three_humans_by_mail_and_four_bots_play_to_fall_1902(tmp_path: Path) -> None:
    """The humans' mail goes through the daemon's real SMTP listener (aiosmtpd) and worker;
    the replies come back as the outbox's .eml files; the bots play over the DAIDE edge."""
    bot_path("dumbbot")
    judge = SmtpMachineJudge(tmp_path)
    try:
        created = judge.send(MASTER, "CREATE g1 masterpw\nRULE MACHINES\nFORM\n")
        assert f"port {judge.port} of the judge's host" in created and "ERROR" not in created
        humans = {f"human{i}@example.net": f"pw{i}" for i in range(3)}
        for address, password in humans.items():
            assert "ERROR" not in judge.send(address, f"JOIN g1 {password}\n")
        for _ in range(4):
            judge.start_bot("dumbbot")
        wait_until(lambda: judge.game().status == "active", "the game to start when the fourth bot sits")
        with judge.store.sessions() as session:
            seats = {m.address: m.power for m in session.scalars(select(Membership).where(Membership.role == "player"))}
        assert sorted(a for a in seats if a.endswith("@machines.invalid")) == \
               [f"machine{n}.g1@machines.invalid" for n in range(1, 5)]
        while not reached(judge, "F1902M"):
            game = judge.game()
            variant, position = variant_of(game), position_from_json(variant_of(game), game.position)
            for address, password in humans.items():
                lines = _human_orders(variant, position, seats[address])
                if lines:
                    power = seats[address]
                    reply = judge.send(address, f"SIGNON {power.lower()}@g1 {password}\n" + "\n".join(lines) + "\n")
                    assert "ERROR" not in reply, reply
            wait_until(lambda: judge.game().phase != game.phase or _all_in(judge), "the bots' orders", 30)
            for _ in range(2):  # the settle window (DELAY 1) after the humans' last orders
                judge.scheduler_pass()
            wait_until(lambda: judge.game().phase != game.phase, f"{game.phase} to be processed", 30)
        wait_until(lambda: any(m["Subject"] == "g1 S1902M results" for m in judge.outbox()),
                   "the S1902M results mail in the outbox", 30)
        recipients = {r.strip() for m in judge.outbox() for r in str(m["To"]).split(",")}
        assert not [r for r in recipients if r.endswith("@machines.invalid")]
        assert set(humans) <= recipients
    finally:
        judge.close()


def _all_in(machine: MachineJudge | SmtpMachineJudge) -> bool:
    from judge.phases.turnstate import turn_state

    store, now = (machine.store, machine.now) if isinstance(machine, SmtpMachineJudge) else \
        (machine.judge.store, machine.judge.now)
    with store.sessions() as session:
        game = session.get(Game, machine.game().id)
        return not turn_state(session, game, now).missing


def test_a_killed_bot_restarted_with_its_passcode_plays_its_power_again(tmp_path: Path) -> None:
    bot_path("dumbbot")
    machine = MachineJudge(tmp_path)
    try:
        for _ in range(7):
            machine.start_bot("dumbbot")
        wait_until(lambda: reached(machine, "F1901M"), "the game to reach Fall 1901")
        victim = machine.bots[0]
        victim.stop()
        hello = from_text(next(line for line in victim.log() if line.startswith(">> HLO"))[3:])
        token, passcode = hello[1][0], hello[2][0]
        with machine.judge.store.sessions() as session:  # the judge keeps the passcode it gave
            seats = {session.get(Membership, s.membership_id).power: s.passcode
                     for s in session.scalars(select(MachineSeat))}
        power = next(p for p in seats if p.startswith(token))
        assert seats[power] == passcode
        stopped_at = machine.game().phase
        restarted = machine.start_bot("dumbbot", f"-r{token}:{passcode}")
        wait_until(lambda: _later_by(machine, stopped_at, 3), "three more phases after the restart", 60)
        log = restarted.log()
        assert any(line.startswith(">> YES ( IAM") for line in log), log[:10]
        _every_order_accepted(restarted)
    finally:
        machine.close()


def _later_by(machine: MachineJudge, phase: str, steps: int) -> bool:
    with machine.judge.store.sessions() as session:
        done = [r.phase for r in session.scalars(select(PhaseRecord))]
    return sum(Phase.parse(p) >= Phase.parse(phase) for p in done) >= steps


def test_a_bot_that_never_orders_goes_into_civil_disorder_and_the_others_hear_ccd(tmp_path: Path) -> None:
    bot_path("holdbot")
    machine = MachineJudge(tmp_path, "RULE CIVIL_DISORDER")
    try:
        silent = Silent(machine.port)
        watcher = Watcher(machine.port)
        for _ in range(6):
            machine.start_bot("holdbot")
        wait_until(lambda: machine.game().status == "active", "the game to start")
        wait_until(lambda: _missing(machine) == {silent.power()}, "every bot but the silent one to order")
        silent.leave()
        machine.judge.advance(days=30)  # past the deadline: the silent machine is late
        wait_until(lambda: ("CCD", (silent.power()[:3],)) in watcher.messages, "CCD for the silent power")
        machine.scheduler_pass()
        wait_until(lambda: machine.game().phase != "S1901M", "the phase processed in civil disorder")
        with machine.judge.store.sessions() as session:
            record = session.scalars(select(PhaseRecord)).one()
            kinds = {row.kind for row in session.scalars(select(OutboxMessage))}
        assert silent.power() not in record.orders or not record.orders[silent.power()]
        assert {r["result"] for r in record.results if r["power"] == silent.power()} == {"holds"}
        assert "civil_disorder" in kinds
    finally:
        machine.close()


def _missing(machine: MachineJudge) -> set[str]:
    from judge.phases.turnstate import turn_state

    with machine.judge.store.sessions() as session:
        return set(turn_state(session, session.get(Game, machine.game().id), machine.judge.now).missing)


class Silent:
    """A machine that takes a seat, accepts the map and never orders; then leaves."""

    def __init__(self, port: int) -> None:
        import asyncio
        import threading

        from daide.client import DaideClient

        self._hello: list = []
        self._leave = threading.Event()

        async def run() -> None:
            client = await DaideClient.connect("127.0.0.1", port)
            await client.send('NME ("silent") ("v0")')
            await client.receive(10)
            await client.receive(10)
            await client.send('YES (MAP ("standard"))')
            while not self._hello:
                message = await client.receive(60)
                if message[0] == "HLO":
                    self._hello.append(message)
            while not self._leave.is_set():
                await asyncio.sleep(0.05)
            await client.close()

        self._thread = threading.Thread(target=lambda: asyncio.run(run()), daemon=True)
        self._thread.start()

    def power(self) -> str:
        wait_until(lambda: self._hello, "the silent machine's HLO")
        token = self._hello[0][1][0]
        return next(p for p in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
                    if p.startswith(token))

    def leave(self) -> None:
        self._leave.set()
        self._thread.join(10)


def test_list_tells_the_daide_port_and_a_full_game_refuses_nme(tmp_path: Path) -> None:
    import asyncio

    from daide.client import DaideClient

    machine = MachineJudge(tmp_path)
    try:
        listing = machine.judge.send("someone@example.net", "LIST g1\n").reply.body
        assert f"DAIDE:    machine players connect to port {machine.port} of the judge's host" in listing
        for index in range(7):
            machine.judge.send(f"p{index}@example.net", f"JOIN g1 pw{index}\n")
        assert machine.game().status == "active"

        async def knock() -> tuple:
            client = await DaideClient.connect("127.0.0.1", machine.port)
            await client.send('NME ("late") ("v1")')
            answer = await client.receive(10)
            await client.close()
            return answer

        assert asyncio.run(knock())[0] == "REJ"
    finally:
        machine.close()


def test_a_draw_voted_by_mail_and_by_drw_ends_the_game_and_reveals_the_machine_only_then(tmp_path: Path) -> None:
    import asyncio
    import threading

    from daide.client import DaideClient

    machine = MachineJudge(tmp_path)
    heard: list = []
    voted = threading.Event()

    async def bot() -> None:
        client = await DaideClient.connect("127.0.0.1", machine.port)
        await client.send('NME ("secretbot") ("v9")')
        heard.append(await client.receive(10))  # YES (NME ...)
        heard.append(await client.receive(10))  # MAP
        await client.send('YES (MAP ("standard"))')
        while not voted.wait(0) or not heard or heard[-1][0] != "OFF":
            if voted.is_set() and not any(m == ("YES", ("DRW",)) for m in heard):
                await client.send("DRW")
            try:
                heard.append(await client.receive(0.2))
            except asyncio.TimeoutError:
                pass
            except Exception:
                return

    thread = threading.Thread(target=lambda: asyncio.run(bot()), daemon=True)
    try:
        thread.start()
        wait_until(lambda: heard, "the machine's seat")
        players = {f"p{i}@example.net": f"pw{i}" for i in range(6)}
        for address, password in players.items():
            machine.judge.send(address, f"JOIN g1 {password}\n")
        wait_until(lambda: any(m[0] == "HLO" for m in heard), "the machine's HLO")
        assert "secretbot" not in machine.judge.send("x@example.net", "SUMMARY g1\n").reply.body
        with machine.judge.store.sessions() as session:
            powers = {m.address: m.power for m in session.scalars(select(Membership).where(Membership.role == "player"))}
        for address, password in players.items():
            reply = machine.judge.send(address, f"SIGNON {powers[address].lower()}@g1 {password}\nSET DRAW\n").reply
            assert "ERROR" not in reply.body, reply.body
        voted.set()
        wait_until(lambda: heard and heard[-1] == ("OFF",), "DRW, SMR and OFF", 30)
        words = [m[0] for m in heard]
        assert words[-3:] == ["DRW", "SMR", "OFF"]
        smr = heard[-2]
        assert any(row[1] == ("secretbot",) for row in smr[2:])
        assert machine.game().status == "ended"
        with machine.judge.store.sessions() as session:
            ends = [row for row in session.scalars(select(OutboxMessage)) if row.kind == "game_end"]
        assert ends and b"secretbot" in ends[0].raw
    finally:
        voted.set()
        thread.join(10)
        machine.close()


def test_the_master_gives_a_machines_power_to_a_human_and_back_to_a_machine(tmp_path: Path) -> None:
    import asyncio

    from daide.client import ConnectionClosed, DaideClient
    from tests.judge.commands.conftest import MASTER

    machine = MachineJudge(tmp_path)
    judge = machine.judge

    async def seated(name: str) -> tuple[DaideClient, str]:
        client = await DaideClient.connect("127.0.0.1", machine.port)
        await client.send(f'NME ("{name}") ("v1")')
        assert (await client.receive(10))[0] == "YES"
        await client.receive(10)
        await client.send('YES (MAP ("standard"))')
        return client, ""

    async def scenario() -> None:
        first, _ = await seated("first")
        for index in range(6):
            await asyncio.to_thread(judge.send, f"p{index}@example.net", f"JOIN g1 pw{index}\n")
        hello = await first.receive(10)
        while hello[0] != "HLO":
            hello = await first.receive(10)
        token = hello[1][0]
        power = next(p for p in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
                     if p.startswith(token))
        reply = await asyncio.to_thread(judge.send, MASTER, f"SIGNON master@g1 masterpw\nEJECT {power.lower()}\n")
        assert "ERROR" not in reply.reply.body, reply.reply.body
        await first.send(f"SUB (({token} AMY VIE) HLD)")
        with pytest.raises(ConnectionClosed):  # REJ, OFF, closed: its power is no longer its
            while True:
                await first.receive(10)
        taken = await asyncio.to_thread(judge.send, "human@example.net",
                                        f"TAKEOVER {power.lower()}@g1 secret\n")
        assert "ERROR" not in taken.reply.body, taken.reply.body
        await asyncio.to_thread(judge.send, MASTER, f"SIGNON master@g1 masterpw\nEJECT {power.lower()}\n")
        second, _ = await seated("second")
        while (message := await second.receive(10))[0] != "HLO":
            pass
        assert message[1] == (token,)  # the vacant power, taken over by a machine
        await second.close()

    try:
        asyncio.run(scenario())
        with judge.store.sessions() as session:
            rows = session.scalars(select(Membership).where(Membership.role == "player")).all()
        holders = [(m.address.split("@")[0], m.status) for m in rows]
        assert ("human", "ejected") in holders and ("machine2.g1", "active") in holders
    finally:
        machine.close()


def test_the_master_sees_which_power_a_daide_machine_plays_and_players_do_not(tmp_path: Path) -> None:
    """Issue 29.8: LIST says "played" for every power, but the master's names the machine."""
    import asyncio

    from daide.client import DaideClient

    machine = MachineJudge(tmp_path)
    try:
        async def scenario() -> tuple[str, str]:
            client = await DaideClient.connect("127.0.0.1", machine.port)
            await client.send('NME ("listedbot") ("v7")')
            assert (await client.receive(10))[0] == "YES"
            assert (await client.receive(10))[0] == "MAP"
            await client.send('YES (MAP ("standard"))')
            for index in range(6):
                await asyncio.to_thread(machine.judge.send, f"p{index}@example.net", f"JOIN g1 pw{index}\n")
            hello = await client.receive(10)
            while hello[0] != "HLO":
                hello = await client.receive(10)
            power = {"ENG": "ENGLAND", "FRA": "FRANCE", "GER": "GERMANY", "ITA": "ITALY", "AUS": "AUSTRIA",
                     "RUS": "RUSSIA", "TUR": "TURKEY"}[str(hello[1][0])]
            master = await asyncio.to_thread(machine.judge.send, MASTER, "SIGNON master@g1 masterpw\nLIST\n")
            public = await asyncio.to_thread(machine.judge.send, "someone@example.net", "LIST g1\n")
            await client.close()
            return power, master.reply.body, public.reply.body

        power, master_body, public_body = asyncio.run(scenario())
        master_row = [line for line in master_body.splitlines() if line.strip().startswith(power + " ")][0]
        public_row = [line for line in public_body.splitlines() if line.strip().startswith(power + " ")][0]
        assert master_row.split(None, 1)[1].startswith("played by a DAIDE machine (listedbot v7),"), master_row
        assert public_row.split(None, 1)[1].startswith("played,"), public_row
        assert "listedbot" not in public_body and "machine" not in public_body.replace("machine players", "")
    finally:
        machine.close()
