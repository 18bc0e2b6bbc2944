"""inbound_message.attempts, started_at: processing starts, so a mail that kills the worker is shunted

Revision ID: 0007_inbound_attempts
Revises: 0006_turn_rules
Create Date: 2026-11-25 21:50:00

Additive only (a column with a server default, a nullable one): a judge of revision 0006 still running
keeps working on an upgraded database until it is restarted.
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import judge.store.base


revision: str = '0007_inbound_attempts'
down_revision: Union[str, None] = '0006_turn_rules'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('inbound_message', schema=None) as batch_op:
        batch_op.add_column(sa.Column('attempts', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('started_at', judge.store.base.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('inbound_message', schema=None) as batch_op:
        batch_op.drop_column('started_at')
        batch_op.drop_column('attempts')
