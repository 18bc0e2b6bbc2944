"""several judges on one database: lease owners, outbox.leased_by, the judge's key

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25 19:00:00

Additive only (two new tables, one nullable column): a judge of revision 0001 still
running keeps working on an upgraded database until it is restarted.
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import judge.store.base


revision: str = '0002'
down_revision: Union[str, None] = '0001'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('lease_owner',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('process_table', sa.String(length=100), nullable=False),
    sa.Column('pid', sa.Integer(), nullable=False),
    sa.Column('pid_started', sa.Integer(), nullable=True),
    sa.Column('started_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
    sa.Column('heartbeat_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_lease_owner'))
    )
    op.create_table('judge_key',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    sa.Column('public_key', sa.Text(), nullable=False),
    sa.Column('recorded_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
    sa.Column('recorded_by', sa.String(length=255), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_judge_key'))
    )
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('leased_by', sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('leased_by')
    op.drop_table('judge_key')
    op.drop_table('lease_owner')
