"""outbox: an index for [store] keep_sent_days, (emptied_at, status, sent_at)

Revision ID: 0017_outbox_emptied_index
Revises: 0016_inbound_trust
Create Date: 2026-11-28 19:55:00

Each scheduler pass looks for sent mail older than keep_sent_days whose body is not
emptied yet.  Without an index it read every sent row ever kept; with this one it reads
only the rows not emptied, oldest first.  Only an index: a judge of revision 0014 still
running keeps working on an upgraded database.
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op


revision: str = '0017_outbox_emptied_index'
down_revision: Union[str, None] = '0016_inbound_trust'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.create_index('ix_outbox_emptied_at_status_sent_at', ['emptied_at', 'status', 'sent_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_outbox_emptied_at_status_sent_at')
