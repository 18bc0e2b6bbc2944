"""refused sign-ons, for the throttle against password guessing

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25 20:10:00

Additive only (one new table).
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import judge.store.base


revision: str = '0004'
down_revision: Union[str, None] = '0003'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('signon_failure',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('address', sa.String(length=320), nullable=False),
    sa.Column('game', sa.String(length=64), nullable=False),
    sa.Column('who', sa.String(length=64), nullable=False),
    sa.Column('failed_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_signon_failure'))
    )
    with op.batch_alter_table('signon_failure', schema=None) as batch_op:
        batch_op.create_index('ix_signon_failure_address_at', ['address', 'failed_at'], unique=False)
        batch_op.create_index('ix_signon_failure_target_at', ['game', 'who', 'failed_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('signon_failure', schema=None) as batch_op:
        batch_op.drop_index('ix_signon_failure_target_at')
        batch_op.drop_index('ix_signon_failure_address_at')
    op.drop_table('signon_failure')
