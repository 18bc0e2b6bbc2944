"""The registry's refusals and limits through the worker on a SQLite file (the mail flow
itself runs over SMTP in test_register_smtp.py): RULE REGISTERED at JOIN and TAKEOVER,
WHOGAME and gunboat or private games, password guessing, confirmation floods, lapsed
names."""

from __future__ import annotations

from sqlalchemy import func, select

from judge.registry.identity import addresses_of
from judge.store.models_registry import AddressRequest, RegisteredPlayer
from tests.judge.commands.conftest import MASTER, create_game, fill_game
from tests.judge.commands.harness import JudgeHarness, player


def register(judge: JudgeHarness, address: str, name: str, password: str = "pw", lines: str = "") -> None:
    """``name`` registered from ``address``, its confirmation answered from there."""
    out = judge.send(address, f"REGISTER {name} {password}\n{lines}")
    assert "ERROR" not in out.reply.body, out.reply.body
    [confirmation] = out.of_kind("registry_confirm")
    assert confirmation.address == address
    linked = judge.send(address, confirmation.subject + "\n").reply.body
    assert f"{address} is now linked to player {name}" in linked, linked


def test_a_registered_players_game_refuses_others_at_join_and_takeover(judge):
    create_game(judge, "RULE REGISTERED")
    refused = judge.send(player(0), "JOIN g1 pw0\n").reply.body
    assert ("game 'g1' is for registered players only (RULE REGISTERED), and player0@example.net is linked to no "
            "registered player") in refused
    # Registered but not yet confirmed is not registered.
    judge.send(player(0), "REGISTER Zero pw\n")
    assert "for registered players only" in judge.send(player(0), "JOIN g1 pw0\n").reply.body
    for index in range(7):
        register(judge, player(index), f"Player{index}")
    seats = fill_game(judge)
    assert len(seats) == 7
    assert "you resigned" in judge.send(seats["FRANCE"].address, seats["FRANCE"].signon + "\nRESIGN\n").reply.body
    stranger = judge.send("stranger@example.net", "TAKEOVER france@g1 pw\n").reply.body
    assert "for registered players only (RULE REGISTERED)" in stranger
    register(judge, "stranger@example.net", "Stranger")
    assert "you now play FRANCE" in judge.send("stranger@example.net", "TAKEOVER france@g1 pw\n").reply.body


def test_whogame_names_registered_players_but_not_in_a_gunboat_game_before_its_end(judge):
    register(judge, player(0), "Anna", lines="REALNAME Anna K\nCOUNTRY Finland\nPUBLIC country record\nEND\n")
    create_game(judge)
    seats = fill_game(judge)
    answer = judge.send("anyone@example.net", "WHOGAME g1\n").reply.body
    anna = next(seat for seat in seats.values() if seat.address == player(0))
    assert f"{anna.power:<10} Anna (Finland)" in answer and "(not registered)" in answer
    assert "Anna K" not in answer and "@" not in answer.split("-- ")[0].replace("judge@example.org", "")
    assert "MASTER     (not registered)" in answer

    create_game(judge, "RULE GUNBOAT", name="g2")
    fill_game(judge, name="g2")
    secret = judge.send("anyone@example.net", "WHOGAME g2\n").reply.body
    assert "who plays which power in game 'g2' is secret until it ends (RULE GUNBOAT)" in secret
    assert "Anna" not in secret
    assert "is secret until it ends" in judge.send(player(1), "WHOGAME g2\n").reply.body  # players too
    # Her record counts both games, but not the gunboat game's power before its end.
    record = judge.send("anyone@example.net", "WHOIS Anna\n").reply.body
    assert "Games: 2 played, 2 running" in record and powers_counted(record) == 1
    judge.send(MASTER, "SIGNON master@g2 masterpw\nTERMINATE\n")
    assert "Anna (Finland)" in judge.send("anyone@example.net", "WHOGAME g2\n").reply.body
    assert powers_counted(judge.send("anyone@example.net", "WHOIS Anna\n").reply.body) == 2


def powers_counted(whois_reply: str) -> int:
    [line] = [line for line in whois_reply.splitlines() if line.startswith("Powers: ")]
    return sum(int(part.split()[-1]) for part in line[len("Powers: "):].split(", ") if part != "none")


def test_whogame_of_a_private_game_answers_its_members_only(judge):
    create_game(judge, "PRIVATE sesame")
    judge.send(player(0), "JOIN g1 pw0 sesame\n")
    assert "private: WHOGAME shows its players to its members only" in \
        judge.send("anyone@example.net", "WHOGAME g1\n").reply.body
    assert "P1" in judge.send(player(0), "WHOGAME g1\n").reply.body


def test_guessing_a_registry_password_is_throttled_like_signon(judge):
    register(judge, player(0), "Anna", password="right")
    for guess in range(3):
        assert "registered to someone else" in judge.send("guesser@evil.example", f"REGISTER anna g{guess}\n").reply.body
    held = judge.send("guesser@evil.example", "REGISTER anna right\n").reply.body
    assert "not tried: 3 sign-ons from guesser@evil.example were refused in the last day" in held
    # The owner, from her linked address, is not held by the guesser's refusals.
    judge.send("other@evil.example", "REGISTER anna g3\n")
    assert "level set" in judge.send(player(0), "REGISTER anna right\nLEVEL novice\n").reply.body
    assert "not tried" in judge.send("third@evil.example", "REGISTER DELETE anna right\n").reply.body


def test_confirmations_are_capped_per_address_mail_and_player(judge):
    out = judge.send(player(0), "REGISTER Anna pw\nADDRESS victim@example.org\n")
    assert len(out.of_kind("registry_confirm")) == 2
    again = judge.send(player(0), "REGISTER Anna pw\nADDRESS victim@example.org\n")
    # One a day to an address, whoever asks; the asker's own address is answered anyway.
    assert [m.address for m in again.of_kind("registry_confirm")] == [player(0)]
    assert "a confirmation was mailed to victim@example.org in the last day" in again.reply.body
    other = judge.send(player(1), "REGISTER Bob pw\nADDRESS victim@example.org\n")
    assert [m.address for m in other.of_kind("registry_confirm")] == [player(1)]
    four = "".join(f"ADDRESS a{n}@example.org\n" for n in range(4))
    assert "at most 3 ADDRESS lines in one REGISTER" in judge.send(player(0), f"REGISTER Anna pw\n{four}").reply.body
    judge.send(player(0), "REGISTER Anna pw\n" + "".join(f"ADDRESS b{n}@example.org\n" for n in range(3)))
    full = judge.send(player(0), "REGISTER Anna pw\nADDRESS c0@example.org\n").reply.body
    assert "5 links of yours wait for confirmation already (at most 5)" in full


def test_an_unconfirmed_name_lapses_and_its_requests_are_forgotten(judge):
    judge.send(player(0), "REGISTER Anna pw\n")
    assert "registered to someone else" in judge.send(player(1), "REGISTER anna other\n").reply.body
    judge.advance(days=3)
    taken = judge.send(player(1), "REGISTER anna other\n")
    assert "player name anna registered" in taken.reply.body
    with judge.session() as session:
        assert session.scalar(select(RegisteredPlayer.name)) == "anna"
        assert session.scalars(select(AddressRequest.address)).all() == [player(1)]
    stale = judge.send(player(0), "REGISTER CONFIRM nosuchtoken\n").reply.body
    assert "not a confirmation the judge sent, or it lapsed" in stale
    with judge.session() as session:
        assert session.scalar(select(func.count()).select_from(RegisteredPlayer)) == 1


def test_an_address_of_another_player_is_not_linked_even_when_its_owner_answers(judge):
    register(judge, player(0), "Anna")
    judge.advance(days=1)  # past the day in which her own confirmation was mailed
    out = judge.send(player(1), f"REGISTER Bob pw\nADDRESS {player(0)}\n")
    assert "Anna" not in out.reply.body  # Bob is not told whose address it is
    [to_anna] = [m for m in out.of_kind("registry_confirm") if m.address == player(0)]
    refused = judge.send(player(0), to_anna.subject + "\n").reply.body
    assert f"{player(0)} is linked to player Anna already, and an address belongs to one player" in refused
    with judge.session() as session:
        assert addresses_of(session, "Anna") == (player(0),) and addresses_of(session, "Bob") == ()


def test_unlink_frees_an_address_but_never_the_last(judge):
    register(judge, player(0), "Anna")
    out = judge.send(player(0), f"REGISTER Anna pw\nADDRESS {player(5)}\n")
    [second] = out.of_kind("registry_confirm")
    assert "now linked" in judge.send(player(5), second.subject + "\n").reply.body
    assert f"{player(5)} unlinked" in judge.send(player(0), f"REGISTER Anna pw\nUNLINK {player(5)}\n").reply.body
    last = judge.send(player(0), f"REGISTER Anna pw\nUNLINK {player(0)}\nLEVEL expert\n").reply.body
    assert "is your only linked address; REGISTER DELETE name password ends the registration instead" in last
    with judge.session() as session:
        assert addresses_of(session, "Anna") == (player(0),)
        assert session.scalar(select(RegisteredPlayer.level)) is None  # the refused REGISTER changed nothing
    register(judge, player(5), "Bob")  # the freed address may now be another player's
