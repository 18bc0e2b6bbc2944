"""mail_secret: the key of unsubscribe and bounce tokens

Revision ID: 0015_mail_secret
Revises: 0014_press_daide
Create Date: 2026-11-28 19:20:00

Additive only (one new table); the key is made by the first process that needs it.
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import judge.store.base


revision: str = '0015_mail_secret'
down_revision: Union[str, None] = '0014_press_daide'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('mail_secret',
    sa.Column('name', sa.String(length=40), nullable=False),
    sa.Column('value', sa.String(length=128), nullable=False),
    sa.Column('created_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('name', name=op.f('pk_mail_secret'))
    )


def downgrade() -> None:
    op.drop_table('mail_secret')
