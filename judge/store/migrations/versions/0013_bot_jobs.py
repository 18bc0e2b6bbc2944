"""bot_job (the judge's bot's moves as queued work) and turn_progress.master_process

Revision ID: 0013_bot_jobs
Revises: 0012_mail_doors
Create Date: 2026-11-28 19:00:00

A new table and a nullable column: a judge of revision 0012 still running keeps working on an upgraded
database (its bot still thinks inside the transaction) until it is restarted.
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import judge.store.base


revision: str = '0013_bot_jobs'
down_revision: Union[str, None] = '0012_mail_doors'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'bot_job',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('phase', sa.String(length=16), nullable=False),
        sa.Column('power', sa.String(length=32), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('map_name', sa.String(length=64), nullable=False),
        sa.Column('position', sa.JSON(), nullable=False),
        sa.Column('seed', sa.Integer(), nullable=False),
        sa.Column('created_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column('claimed_by', sa.String(length=32), nullable=True),
        sa.Column('claimed_at', judge.store.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column('attempts', sa.Integer(), server_default='0', nullable=False),
        sa.Column('done_at', judge.store.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column('lines', sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_bot_job_game_id_game')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_bot_job')),
        sa.UniqueConstraint('game_id', 'digest', 'power', name=op.f('uq_bot_job_game_id_digest_power')),
    )
    with op.batch_alter_table('bot_job', schema=None) as batch_op:
        batch_op.create_index('ix_bot_job_waiting', ['done_at', 'claimed_by', 'id'], unique=False)
    with op.batch_alter_table('turn_progress', schema=None) as batch_op:
        batch_op.add_column(sa.Column('master_process', sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('turn_progress', schema=None) as batch_op:
        batch_op.drop_column('master_process')
    with op.batch_alter_table('bot_job', schema=None) as batch_op:
        batch_op.drop_index('ix_bot_job_waiting')
    op.drop_table('bot_job')
