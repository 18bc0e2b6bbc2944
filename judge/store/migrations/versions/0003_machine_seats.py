"""machine players: each RULE MACHINES game's DAIDE port, and the bots seated in it

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25 20:05:00

Additive only (two new tables).
"""
from __future__ import annotations

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0003'
down_revision: Union[str, None] = '0002'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('daide_port',
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('port', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_daide_port_game_id_game')),
    sa.PrimaryKeyConstraint('game_id', name=op.f('pk_daide_port')),
    sa.UniqueConstraint('port', name=op.f('uq_daide_port_port'))
    )
    op.create_table('machine_seat',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('membership_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=64), nullable=False),
    sa.Column('version', sa.String(length=64), nullable=False),
    sa.Column('passcode', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_machine_seat_game_id_game')),
    sa.ForeignKeyConstraint(['membership_id'], ['membership.id'], name=op.f('fk_machine_seat_membership_id_membership')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_machine_seat')),
    sa.UniqueConstraint('game_id', 'membership_id', name=op.f('uq_machine_seat_game_id_membership_id'))
    )
    with op.batch_alter_table('machine_seat', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_machine_seat_game_id'), ['game_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('machine_seat', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_machine_seat_game_id'))
    op.drop_table('machine_seat')
    op.drop_table('daide_port')
