"""the pinned signing key of the other party of a blinded assignment

Revision ID: 0005_blind_run_peer_key
Revises: 0004
Create Date: 2026-11-25 22:00:00

Additive only (two nullable columns).
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0005_blind_run_peer_key'
down_revision: Union[str, None] = '0004'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('blind_run', schema=None) as batch_op:
        batch_op.add_column(sa.Column('peer_key', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('peer_fingerprint', sa.String(length=40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('blind_run', schema=None) as batch_op:
        batch_op.drop_column('peer_fingerprint')
        batch_op.drop_column('peer_key')
