"""turn rules: when a game was paused (RESUME gives the time back) and how many late
notices a phase has had (repeats go to the late powers and the master only)

Revision ID: 0006_turn_rules
Revises: 0005_blind_run_peer_key
Create Date: 2026-11-25 22:10:00

Additive only (two new columns).
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import judge.store.base


revision: str = '0006_turn_rules'
down_revision: Union[str, None] = '0005_blind_run_peer_key'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('paused_at', judge.store.base.UTCDateTime(timezone=True), nullable=True))
    with op.batch_alter_table('turn_progress', schema=None) as batch_op:
        batch_op.add_column(sa.Column('late_notices', sa.Integer(), server_default='0', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('turn_progress', schema=None) as batch_op:
        batch_op.drop_column('late_notices')
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_column('paused_at')
