"""daide_port: when the port was given (a forming game nobody joins gives it back), and
no port for a game that gave its port back

Revision ID: 0010_daide_port_given_at
Revises: 0009_dkim_keys
Create Date: 2026-11-28 19:00:00

Additive for the running code: a column that may be NULL and a NOT NULL constraint dropped.
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa

import judge.store.base


revision: str = '0010_daide_port_given_at'
down_revision: Union[str, None] = '0009_dkim_keys'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('daide_port', schema=None) as batch_op:
        batch_op.add_column(sa.Column('given_at', judge.store.base.UTCDateTime(timezone=True), nullable=True))
        batch_op.alter_column('port', existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM daide_port WHERE port IS NULL")
    with op.batch_alter_table('daide_port', schema=None) as batch_op:
        batch_op.alter_column('port', existing_type=sa.Integer(), nullable=False)
        batch_op.drop_column('given_at')
