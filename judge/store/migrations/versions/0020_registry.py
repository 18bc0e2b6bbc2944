"""registry: registered players, their linked addresses, pending links (issue 31)

Revision ID: 0020_registry
Revises: 0019_list_mail
Create Date: 2026-11-28 22:30:00

REGISTER, REGISTER CONFIRM, WHOIS and WHOGAME (judge/registry, judge/commands/register.py).
"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa

import judge.store.base
from alembic import op


revision: str = '0020_registry'
down_revision: Union[str, None] = '0019_list_mail'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'registered_player',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=24), nullable=False),
        sa.Column('name_key', sa.String(length=24), nullable=False),
        sa.Column('password_hash', sa.String(length=200), nullable=False),
        sa.Column('real_name', sa.String(length=64), nullable=True),
        sa.Column('country', sa.String(length=48), nullable=True),
        sa.Column('zone', sa.String(length=64), nullable=True),
        sa.Column('level', sa.String(length=16), nullable=True),
        sa.Column('public', sa.String(length=120), nullable=False),
        sa.Column('registered_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column('deleted_at', judge.store.base.UTCDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name_key'),
    )
    op.create_table(
        'registered_address',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('address', sa.String(length=320), nullable=False),
        sa.Column('linked_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['registered_player.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('address'),
    )
    with op.batch_alter_table('registered_address', schema=None) as batch_op:
        batch_op.create_index('ix_registered_address_player_id', ['player_id'], unique=False)
    op.create_table(
        'address_request',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('address', sa.String(length=320), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('requested_at', judge.store.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['registered_player.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash'),
    )
    with op.batch_alter_table('address_request', schema=None) as batch_op:
        batch_op.create_index('ix_address_request_player_id', ['player_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('address_request', schema=None) as batch_op:
        batch_op.drop_index('ix_address_request_player_id')
    op.drop_table('address_request')
    with op.batch_alter_table('registered_address', schema=None) as batch_op:
        batch_op.drop_index('ix_registered_address_player_id')
    op.drop_table('registered_address')
    op.drop_table('registered_player')
