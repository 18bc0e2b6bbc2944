"""outbox.relay_queue_id: what the relay called the mail (its reply to DATA)

Revision ID: 0011_outbox_queue_id
Revises: 0010_daide_port_given_at
Create Date: 2026-11-28 19:10:00

Additive only (one nullable column).
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0011_outbox_queue_id'
down_revision: Union[str, None] = '0010_daide_port_given_at'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('relay_queue_id', sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('relay_queue_id')
