"""What went to a game's list, kept for its web archive (judge/web).

The outbox holds one copy per member (each naming its recipient) and empties sent bodies
after ``[store] keep_sent_days``; the archive needs one copy as the list saw it, kept
for the life of the game, so that its mbox download replays the game in ``judge audit``.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base


class ListMail(Base):
    """One broadcast to a game's list: the complete message (its PGP/MIME signed body as
    sent, ``To`` naming the list, never a member), written in the broadcast's transaction."""

    __tablename__ = "list_mail"
    __table_args__ = (Index("ix_list_mail_game_id_id", "game_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    kind: Mapped[str] = mapped_column(String(40))
    subject: Mapped[str] = mapped_column(String(998), default="")
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    sent_at: Mapped[datetime]
