"""who sent a mail and who created a game, as the throttles name senders; sent mail emptied

Revision ID: 0012_mail_doors
Revises: 0011_outbox_queue_id
Create Date: 2026-11-28 19:00:00

inbound_message.peer: the connecting client's IP address (SMTP), so the sign-on throttle
holds a guesser by what it cannot forge as easily as a From line.  game.created_by: the
sender of the CREATE, so [judge] create_per_day counts one sender's games of the day
(indexed with created_at).  outbox.emptied_at: when [store] keep_sent_days emptied a sent
mail's body (its headers stay: to whom, when, what).  All nullable: older rows have none.
"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa

import judge.store.base
from alembic import op


revision: str = '0012_mail_doors'
down_revision: Union[str, None] = '0011_outbox_queue_id'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('inbound_message', schema=None) as batch_op:
        batch_op.add_column(sa.Column('peer', sa.String(length=64), nullable=True))
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('created_by', sa.String(length=400), nullable=True))
        batch_op.create_index('ix_game_created_by_at', ['created_by', 'created_at'], unique=False)
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('emptied_at', judge.store.base.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('emptied_at')
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index('ix_game_created_by_at')
        batch_op.drop_column('created_by')
    with op.batch_alter_table('inbound_message', schema=None) as batch_op:
        batch_op.drop_column('peer')
