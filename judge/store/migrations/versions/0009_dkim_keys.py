"""dkim_key: the DKIM key pairs every host of the judge signs with

Revision ID: 0009_dkim_keys
Revises: 0008_inbound_claim_index
Create Date: 2026-11-28 19:00:00

Additive only (one new table); the first start after the upgrade makes the keys.
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import judge.store.base


revision: str = '0009_dkim_keys'
down_revision: Union[str, None] = '0008_inbound_claim_index'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('dkim_key',
    sa.Column('selector', sa.String(length=63), nullable=False),
    sa.Column('algorithm', sa.String(length=16), nullable=False),
    sa.Column('private_key', sa.Text(), nullable=False),
    sa.Column('public_key', sa.Text(), nullable=False),
    sa.Column('created_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
    sa.Column('created_by', sa.String(length=255), nullable=False),
    sa.PrimaryKeyConstraint('selector', name=op.f('pk_dkim_key'))
    )


def downgrade() -> None:
    op.drop_table('dkim_key')
