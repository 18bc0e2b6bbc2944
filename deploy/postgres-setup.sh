#!/bin/sh
# Create the judge's PostgreSQL role and database (deploy/README.md, "PostgreSQL").
# Run as the database superuser, e.g.
#   sudo -u postgres JUDGE_DB_PASSWORD='a long random password' sh deploy/postgres-setup.sh
# then in /etc/judge/judge.toml (or JUDGE_STORE_URL in /etc/judge/judge.env):
#   [store] url = "postgresql+psycopg://judge:<password>@localhost:5432/judge"
# Connection settings come from psql's usual PGHOST, PGPORT, PGUSER; JUDGE_DB_USER and
# JUDGE_DB_NAME (default: judge) name the role and the database.
set -eu

: "${JUDGE_DB_PASSWORD:?set JUDGE_DB_PASSWORD to the password the judge will log in with}"
JUDGE_DB_USER=${JUDGE_DB_USER:-judge}
JUDGE_DB_NAME=${JUDGE_DB_NAME:-judge}

psql -v ON_ERROR_STOP=1 -v role="$JUDGE_DB_USER" -v pw="$JUDGE_DB_PASSWORD" -d postgres <<'SQL'
SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', :'role', :'pw')
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') \gexec
SQL
psql -v ON_ERROR_STOP=1 -v role="$JUDGE_DB_USER" -v db="$JUDGE_DB_NAME" -d postgres <<'SQL'
SELECT format('CREATE DATABASE %I OWNER %I', :'db', :'role')
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') \gexec
SQL
echo "role $JUDGE_DB_USER and database $JUDGE_DB_NAME are ready; now: judge db upgrade"
