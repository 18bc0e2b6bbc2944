"""inbound_message: the index on status becomes (status, id), the order the worker claims in

Revision ID: 0008_inbound_claim_index
Revises: 0007_inbound_attempts
Create Date: 2026-11-26 03:05:00

The worker claims the oldest waiting mail (status 'received', lowest id).  With an index on
status alone, PostgreSQL fetched and sorted every waiting mail at each claim; (status, id)
hands them over in id order.  Only an index changes: a judge of revision 0007 still running
keeps working on an upgraded database until it is restarted.
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op


revision: str = '0008_inbound_claim_index'
down_revision: Union[str, None] = '0007_inbound_attempts'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('inbound_message', schema=None) as batch_op:
        batch_op.create_index('ix_inbound_message_status_id', ['status', 'id'], unique=False)
        batch_op.drop_index('ix_inbound_message_status')


def downgrade() -> None:
    with op.batch_alter_table('inbound_message', schema=None) as batch_op:
        batch_op.create_index('ix_inbound_message_status', ['status'], unique=False)
        batch_op.drop_index('ix_inbound_message_status_id')
