"""standing: each power's punctuality per phase, and the history of ratings

Revision ID: 0021_standing
Revises: 0020_registry
Create Date: 2026-11-28 22:30:00

Records, dedication and ratings (judge/standing) are computed from the stored games; the
one fact a game did not keep was whether each power's orders came in on time, late or
not at all.  rating_entry is derived (`judge ratings rebuild` recomputes it).
"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa

import judge.store.base
from alembic import op


revision: str = '0021_standing'
down_revision: Union[str, None] = '0020_registry'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'turn_record',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('phase', sa.String(length=16), nullable=False),
        sa.Column('power', sa.String(length=32), nullable=False),
        sa.Column('membership_id', sa.Integer(), nullable=True),
        sa.Column('address', sa.String(length=320), nullable=False),
        sa.Column('verdict', sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.ForeignKeyConstraint(['membership_id'], ['membership.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('game_id', 'phase', 'power'),
    )
    with op.batch_alter_table('turn_record', schema=None) as batch_op:
        batch_op.create_index('ix_turn_record_address', ['address'], unique=False)
    op.create_table(
        'rating_entry',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('player', sa.String(length=320), nullable=False),
        sa.Column('pool', sa.String(length=16), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('game_name', sa.String(length=64), nullable=False),
        sa.Column('result', sa.String(length=16), nullable=False),
        sa.Column('mu', sa.Float(), nullable=False),
        sa.Column('sigma', sa.Float(), nullable=False),
        sa.Column('rating', sa.Float(), nullable=False),
        sa.Column('rated_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column('latest', sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('rating_entry', schema=None) as batch_op:
        batch_op.create_index('ix_rating_entry_game_id', ['game_id'], unique=False)
        batch_op.create_index('ix_rating_entry_player_pool_seq', ['player', 'pool', 'seq'], unique=False)
        batch_op.create_index('ix_rating_entry_pool_latest_rating', ['pool', 'latest', 'rating'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('rating_entry', schema=None) as batch_op:
        batch_op.drop_index('ix_rating_entry_pool_latest_rating')
        batch_op.drop_index('ix_rating_entry_player_pool_seq')
        batch_op.drop_index('ix_rating_entry_game_id')
    op.drop_table('rating_entry')
    with op.batch_alter_table('turn_record', schema=None) as batch_op:
        batch_op.drop_index('ix_turn_record_address')
    op.drop_table('turn_record')
