"""list_mail: one copy of each broadcast to a game's list, for the web archive

Revision ID: 0019_list_mail
Revises: 0018_bounces
Create Date: 2026-11-28 19:45:00

The web archive (judge/web) shows what went to each game's list and offers it as an mbox
that ``judge audit`` replays; the outbox keeps per-member copies and empties them.
"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa

import judge.store.base
from alembic import op


revision: str = '0019_list_mail'
down_revision: Union[str, None] = '0018_bounces'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'list_mail',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=40), nullable=False),
        sa.Column('subject', sa.String(length=998), nullable=False),
        sa.Column('raw', sa.LargeBinary(), nullable=False),
        sa.Column('sent_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('list_mail', schema=None) as batch_op:
        batch_op.create_index('ix_list_mail_game_id_id', ['game_id', 'id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('list_mail', schema=None) as batch_op:
        batch_op.drop_index('ix_list_mail_game_id_id')
    op.drop_table('list_mail')
