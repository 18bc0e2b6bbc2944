"""judge.registry.identity and book on a migrated SQLite file: only confirmed links count;
a unique key taken meanwhile is a refusal."""

from datetime import datetime, timezone

import pytest

from judge.refusal import CommandRefused
from judge.registry import book

from judge.registry.identity import addresses_of, addresses_with, player_of
from judge.store.models_registry import AddressRequest, RegisteredAddress, RegisteredPlayer
from tests.judge.storage import migrated_store

NOW = datetime(2026, 11, 28, 22, 0, tzinfo=timezone.utc)


def test_links_answer_both_ways_and_requests_do_not_count(tmp_path):
    store = migrated_store(tmp_path)
    with store.unit_of_work(now=NOW) as session:
        anna = RegisteredPlayer(name="Anna", name_key="anna", registered_at=NOW)
        session.add(anna)
        session.flush()
        session.add_all([RegisteredAddress(player_id=anna.id, address="anna@example.net", linked_at=NOW),
                         RegisteredAddress(player_id=anna.id, address="a2@example.org", linked_at=NOW),
                         AddressRequest(player_id=anna.id, address="pending@example.net", token_hash="x" * 64,
                                        requested_at=NOW)])
    with store.unit_of_work(now=NOW) as session:
        assert player_of(session, "Anna@Example.NET") == "Anna"
        assert player_of(session, "pending@example.net") is None
        assert player_of(session, "nobody@example.net") is None
        assert addresses_of(session, "ANNA") == ("anna@example.net", "a2@example.org")
        assert addresses_of(session, "bob") == ()
        assert addresses_with(session, "A2@example.org") == ("anna@example.net", "a2@example.org")
        assert addresses_with(session, "Stranger@Example.net") == ("stranger@example.net",)
    store.dispose()


def test_a_name_stored_by_another_transaction_meanwhile_is_a_refusal_not_a_crash(tmp_path):
    store = migrated_store(tmp_path)
    with store.unit_of_work(now=NOW) as session:
        session.add(RegisteredPlayer(name="Anna", name_key="anna", registered_at=NOW))
    with store.unit_of_work(now=NOW) as session:
        with pytest.raises(CommandRefused, match="registered by another mail a moment ago"):
            book.new_player(session, "ANNA", "pw", NOW)  # as if its find() ran before the other commit
        assert book.new_player(session, "Bob", "pw", NOW).id is not None  # the transaction goes on
    store.dispose()
