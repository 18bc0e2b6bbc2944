#!/bin/sh
# Install the judge as a systemd service (deploy/README.md, "systemd").  Run as root from
# the repository:   sudo sh deploy/install-systemd.sh
#
# What it does, each step safe to repeat:
#   1. the system user `judge` (home and data folder /var/lib/judge, mode 0700);
#   2. /etc/judge/judge.toml from judge.toml.example (0640 root:judge; kept if present);
#   3. a virtual environment /opt/dipjudge with the judge in it: PEP 668 forbids pip in
#      the system's Python, and a venv keeps the judge's libraries its own;
#   4. /etc/systemd/system/judge.service, pointing at /opt/dipjudge/bin/judge.
# Then edit /etc/judge/judge.toml, create the database (deploy/postgres-setup.sh) and run
# the two commands it prints at the end.
#
# PREFIX=/some/dir installs under that folder instead of / (used by the tests; no user is
# created, nothing is chowned, systemctl is not run).  VENV_OPTIONS and PIP_OPTIONS are
# passed to `python3 -m venv` and `pip install`; PIP replaces the venv's pip command.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(dirname "$HERE")}
PREFIX=${PREFIX:-}
PYTHON=${PYTHON:-python3}
VENV_OPTIONS=${VENV_OPTIONS:-}
PIP_OPTIONS=${PIP_OPTIONS:-}
PIP=${PIP:-}

ETC=$PREFIX/etc/judge
OPT=$PREFIX/opt/dipjudge
DATA=$PREFIX/var/lib/judge
UNIT_DIR=$PREFIX/etc/systemd/system

as_root() {  # a step that needs root on a real install; shown, not run, under PREFIX
    if [ -n "$PREFIX" ]; then echo "skipped under PREFIX: $*"; else "$@"; fi
}

# 1. The user and its data folder.
if [ -z "$PREFIX" ] && ! id judge >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/judge --shell /usr/sbin/nologin judge
fi
install -d -m 0700 "$DATA"
as_root chown judge:judge "$DATA"

# 2. The configuration (secrets may go to /etc/judge/judge.env instead: see the unit).
install -d -m 0750 "$ETC"
as_root chgrp judge "$ETC"
if [ ! -e "$ETC/judge.toml" ]; then
    install -m 0640 "$HERE/judge.toml.example" "$ETC/judge.toml"
    as_root chgrp judge "$ETC/judge.toml"
fi

# 3. The judge in its own virtual environment (never `pip install` into the system Python).
"$PYTHON" -m venv $VENV_OPTIONS "$OPT"
${PIP:-"$OPT/bin/pip"} install --quiet $PIP_OPTIONS "$SRC"
"$OPT/bin/judge" --version

# 4. The unit, with the paths of this install.
install -d -m 0755 "$UNIT_DIR"
sed -e "s|/opt/dipjudge|$OPT|g" -e "s|/var/lib/judge|$DATA|g" -e "s|/etc/judge|$ETC|g" \
    "$HERE/judge.service" > "$UNIT_DIR/judge.service"
chmod 0644 "$UNIT_DIR/judge.service"
as_root systemctl daemon-reload

echo "installed.  Next: edit $ETC/judge.toml, create the database (deploy/postgres-setup.sh), then"
echo "  sudo -u judge $OPT/bin/judge db upgrade --config $ETC/judge.toml"
echo "  systemctl enable --now judge"
