#!/bin/sh
# Runs a command with a throwaway PostgreSQL 15 beside it (Tests/postgres-cluster.sh), for the tests that run on both
# engines: GATEHOUSE_TEST_POSTGRES is set to its URL (tests create a database of their own in it), and the cluster is
# removed when the command ends, whatever its status.
# Usage: Tests/with-postgres.sh COMMAND [ARGUMENTS...]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d /tmp/gatehouse-postgres.XXXXXX)
trap 'sh "$HERE/postgres-cluster.sh" remove "$DIR"' EXIT INT TERM
URL=$(sh "$HERE/postgres-cluster.sh" create "$DIR")
echo "with-postgres: PostgreSQL 15 at $URL (data in $DIR)"
export GATEHOUSE_TEST_POSTGRES="$URL"
status=0
"$@" || status=$?
exit $status
