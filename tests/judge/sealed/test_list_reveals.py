"""Reveals on the game's list (issue 12.9): each verified reveal is broadcast as it arrives,
and a reveal sent to the list (or forwarded) is taken without SIGNON, since only the
committed file matches the commitment."""

from email.message import EmailMessage

from sqlalchemy import select

from judge.store.models_sealed import SealedReveal
from tests.judge.sealed.orders import SPRING, orders_file
from tests.judge.sealed.test_commit_reveal import commit_all, files


def list_copy(sender: str, body: str, data: bytes) -> EmailMessage:
    """A player's mail as the game's mailing list delivers it to the judge (a subscriber)."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, "g1-players@lists.example.net", "my orders"
    message["List-Id"] = "<g1-players.lists.example.net>"
    message["Precedence"] = "list"
    message.set_content(body)
    message.add_attachment(data, maintype="text", subtype="plain", filename="orders.txt")
    return message


def reveals(game) -> dict[str, bool]:
    with game.judge.session() as session:
        return {row.power: row.valid for row in session.execute(select(SealedReveal)).scalars()}


def test_a_reveal_sent_to_the_list_is_taken_without_signon(game):
    commit_all(game)
    outcome = game.judge.send_message(list_copy(game.keys["FRANCE"].email, "REVEAL france@g1\n", files("FRANCE")))
    assert not [m for m in outcome.mails if m.kind == "reply"]  # list mail is never answered
    assert reveals(game) == {"FRANCE": True}
    published = [m for m in outcome.mails if m.kind == "sealed_reveal"]
    assert published and "FRANCE revealed" in published[0].subject
    assert published[0].attachments()["g1-S1901M-FRANCE-orders.txt"] == files("FRANCE")
    assert "g1-S1901M-FRANCE-reveal.json" in published[0].attachments()


def test_a_forwarded_reveal_counts_and_a_wrong_one_is_not_kept(game):
    commit_all(game)
    stranger = "stranger@example.net"
    changed = files("GERMANY").replace(b" - ", b" -> ", 1)
    wrong = game.judge.send(stranger, "REVEAL germany@g1\n", attachments=[("orders.txt", "text/plain", changed)])
    assert "does not match GERMANY's commitment" in wrong.reply.body and "nothing was kept" in wrong.reply.body
    assert reveals(game) == {}  # a stranger cannot spoil Germany's reveal
    forwarded = game.judge.send(game.keys["ENGLAND"].email, "REVEAL germany@g1\n",
                                attachments=[("orders.txt", "text/plain", files("GERMANY"))])
    assert "revealed orders verified" in forwarded.reply.body, forwarded.reply.body
    assert reveals(game) == {"GERMANY": True}
    unknown = game.judge.send(stranger, "REVEAL narnia@g1\n", attachments=[("orders.txt", "text/plain", b"A Vie H\n")])
    assert "has no player or power 'narnia'" in unknown.reply.body
    # the rest reveal as usual; the phase is processed with Germany's orders
    for power in SPRING:
        if power != "GERMANY":
            game.reveal(power, orders_file(power, "S1901M", SPRING[power]))
    with game.judge.session() as session:
        assert len(session.execute(select(SealedReveal)).scalars().all()) == 7
