#!/bin/sh
# Runs a command with Debian's pgBouncer in transaction mode in front of the throwaway PostgreSQL that
# Tests/with-postgres.sh started (GATEHOUSE_TEST_POSTGRES): the databases tests create are then reached through the
# pooler (GATEHOUSE_TEST_PGBOUNCER is set to its host and port), as a deployment behind pgBouncer reaches them. The
# pooler is stopped and its folder removed when the command ends, whatever its status.
# Usage: Tests/with-postgres.sh sh Tests/with-pgbouncer.sh COMMAND [ARGUMENTS...]
set -eu
: "${GATEHOUSE_TEST_POSTGRES:?run inside Tests/with-postgres.sh}"
command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || { echo "with-pgbouncer: install pgbouncer (make test does)" >&2; exit 2; }
PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
DIR=$(mktemp -d /tmp/gatehouse-pgbouncer.XXXXXX)
chmod 755 "$DIR"
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
SERVER=${GATEHOUSE_TEST_POSTGRES#postgresql://postgres@}
SERVER_HOST=${SERVER%%:*}
SERVER_PORT=${SERVER#*:}
SERVER_PORT=${SERVER_PORT%%/*}
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$DIR/pgbouncer.ini" <<INI
[databases]
* = host=$SERVER_HOST port=$SERVER_PORT user=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PORT
unix_socket_dir = $DIR
auth_type = any
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 30
logfile = $DIR/pgbouncer.log
pidfile = $DIR/pgbouncer.pid
INI
[ "$(id -u)" = 0 ] && chown postgres "$DIR/pgbouncer.ini"
stop() {
  [ -f "$DIR/pgbouncer.pid" ] && kill "$(cat "$DIR/pgbouncer.pid")" 2>/dev/null || true
  rm -rf "$DIR"
}
trap stop EXIT INT TERM
as_owner "$PGBOUNCER" -d "$DIR/pgbouncer.ini" || { cat "$DIR/pgbouncer.log" >&2; exit 2; }
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1).close()" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 100 ] || { echo "with-pgbouncer: pgBouncer did not start" >&2; cat "$DIR/pgbouncer.log" >&2; exit 2; }
  sleep 0.1
done
echo "with-pgbouncer: pgBouncer $("$PGBOUNCER" --version | head -n 1) in transaction mode at 127.0.0.1:$PORT"
export GATEHOUSE_TEST_PGBOUNCER="127.0.0.1:$PORT"
status=0
"$@" || status=$?
exit $status
