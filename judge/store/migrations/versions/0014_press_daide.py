"""press_log.daide: the DAIDE press messages a press carried to machine players

Revision ID: 0014_press_daide
Revises: 0013_bot_jobs
Create Date: 2026-11-28 19:00:00

A player's PRESS to a machine power is read into DAIDE press (its text form or the
plain-English offers) when the mail is processed; the DAIDE edge relays those messages as
FRM.  They are kept beside the press as written, so what the machine got is on record and
an ACCEPT resolved against the latest proposal stays what it was.  A new nullable column:
a judge of revision 0008 still running keeps working until it is restarted.
"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '0014_press_daide'
down_revision: Union[str, None] = '0013_bot_jobs'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('press_log', schema=None) as batch_op:
        batch_op.add_column(sa.Column('daide', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('press_log', schema=None) as batch_op:
        batch_op.drop_column('daide')
