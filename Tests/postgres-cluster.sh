#!/bin/sh
# A throwaway PostgreSQL 15 cluster (Debian's postgresql-15) in a folder of its own, for tests:
#   postgres-cluster.sh create DIR   initdb into DIR (chowned to the postgres user when run as root: initdb refuses
#                                    root), start it on a free loopback port with fsync off (durable, as a real
#                                    server, with POSTGRES_DURABLE=1: the benches), print its URL
#   postgres-cluster.sh stop DIR     fast shutdown (clients are disconnected)
#   postgres-cluster.sh start DIR    start it again on the same port
#   postgres-cluster.sh remove DIR   immediate shutdown and delete DIR
set -eu
BIN=/usr/lib/postgresql/15/bin
[ -x "$BIN/initdb" ] || { echo "postgres-cluster: $BIN/initdb is missing: install postgresql-15 (make test does)" >&2; exit 2; }
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
DIR=$2
case "$1" in
create)
  mkdir -p "$DIR"
  chmod 755 "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres "$DIR"
  as_owner "$BIN/initdb" -D "$DIR/data" -A trust -U postgres --no-sync -E UTF8 >"$DIR/initdb.log" 2>&1 \
    || { cat "$DIR/initdb.log" >&2; exit 2; }
  PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  echo "$PORT" > "$DIR/port"
  sh "$0" start "$DIR"
  echo "postgresql://postgres@127.0.0.1:$PORT/postgres"
  ;;
start)
  PORT=$(cat "$DIR/port")
  FAST="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [ "${POSTGRES_DURABLE:-0}" = 1 ] && FAST=""
  as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
    -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 $FAST -c max_connections=400" \
    start >/dev/null 2>&1 || { cat "$DIR/server.log" >&2; exit 2; }
  ;;
stop)
  as_owner "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null
  ;;
remove)
  as_owner "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
  ;;
*)
  echo "usage: postgres-cluster.sh create|start|stop|remove DIR" >&2
  exit 2
  ;;
esac
