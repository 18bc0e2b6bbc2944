"""inbound_message.auth_results, .authenticated and .distrust: who wrote a mail, as DMARC says

Revision ID: 0016_inbound_trust
Revises: 0015_mail_secret
Create Date: 2026-11-28 19:45:00

Additive only (three nullable columns).
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0016_inbound_trust'
down_revision: Union[str, None] = '0015_mail_secret'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('inbound_message', schema=None) as batch_op:
        batch_op.add_column(sa.Column('auth_results', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('authenticated', sa.String(length=320), nullable=True))
        batch_op.add_column(sa.Column('distrust', sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('inbound_message', schema=None) as batch_op:
        batch_op.drop_column('distrust')
        batch_op.drop_column('authenticated')
        batch_op.drop_column('auth_results')
