"""mail_bounce and unreachable_address: bounces tied to their address, and addresses the
judge stopped writing to

Revision ID: 0018_bounces
Revises: 0017_outbox_emptied_index
Create Date: 2026-11-28 20:00:00

Additive only (two new tables).
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import judge.store.base


revision: str = '0018_bounces'
down_revision: Union[str, None] = '0017_outbox_emptied_index'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('mail_bounce',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('address', sa.String(length=320), nullable=False),
    sa.Column('outbox_id', sa.Integer(), nullable=True),
    sa.Column('inbound_id', sa.Integer(), nullable=True),
    sa.Column('permanent', sa.Boolean(), nullable=False),
    sa.Column('bounced_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mail_bounce'))
    )
    with op.batch_alter_table('mail_bounce', schema=None) as batch_op:
        batch_op.create_index('ix_mail_bounce_address_at', ['address', 'bounced_at'], unique=False)
    op.create_table('unreachable_address',
    sa.Column('address', sa.String(length=320), nullable=False),
    sa.Column('since', judge.store.base.UTCDateTime(timezone=True), nullable=False),
    sa.Column('bounces', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('address', name=op.f('pk_unreachable_address'))
    )


def downgrade() -> None:
    op.drop_table('unreachable_address')
    with op.batch_alter_table('mail_bounce', schema=None) as batch_op:
        batch_op.drop_index('ix_mail_bounce_address_at')
    op.drop_table('mail_bounce')
