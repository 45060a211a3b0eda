#!/bin/sh
# Runs a command with a throwaway PostgreSQL 15 (Debian's postgresql-15) beside it, for the tests that run on both
# engines: `initdb` into a fresh temporary folder as the `postgres` user (initdb refuses root), the server on a free
# loopback port with fsync off (nothing here needs to survive a power cut), GATEHOUSE_TEST_POSTGRES set to its URL
# (tests create a database of their own in it), and the server removed when the command ends, whatever its status.
# Usage: Tests/with-postgres.sh COMMAND [ARGUMENTS...]
set -eu
BIN=/usr/lib/postgresql/15/bin
[ -x "$BIN/initdb" ] || { echo "with-postgres: $BIN/initdb is missing: install postgresql-15 (make test does)" >&2; exit 2; }
DIR=$(mktemp -d /tmp/gatehouse-postgres.XXXXXX)
chmod 755 "$DIR"
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
stop() {
  as_owner "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap stop EXIT INT TERM
as_owner "$BIN/initdb" -D "$DIR/data" -A trust -U postgres --no-sync -E UTF8 >"$DIR/initdb.log" 2>&1 \
  || { cat "$DIR/initdb.log" >&2; exit 2; }
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
  -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" \
  start >/dev/null || { cat "$DIR/server.log" >&2; exit 2; }
echo "with-postgres: PostgreSQL 15 on 127.0.0.1:$PORT (data in $DIR)"
export GATEHOUSE_TEST_POSTGRES="postgresql://postgres@127.0.0.1:$PORT/postgres"
status=0
"$@" || status=$?
exit $status
