#!/usr/bin/env bash
# e2e tests on a busy machine, as a shared CI host is: two more local APIs (`python -m localapi`, what
# `make dev` runs, each with its prewarmed containers and queue pollers) on ports of their own, and one CPU
# burner per core, all running beside the tests. Everything started here is ended by its pid on exit.
#
#   scripts/busy_e2e.sh tests/e2e/test_e2e_crawl.py [more pytest arguments, e.g. -k cancel]
#
# Run it under the e2e lock (`flock /tmp/e2e.lock scripts/busy_e2e.sh ...`): the tests bind fixed
# addresses.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-.venv/bin/python}"
started=()
stop_all() {
  for pid in "${started[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop_all EXIT
set -m  # each background job its own process group, so a stack's containers end with it
for offset in 1 2; do
  "$python" -m localapi --port "$((3300 + offset))" --aws-port "$((4600 + offset))" \
    >"${TMPDIR:-/tmp}/busy-e2e-stack-$offset.log" 2>&1 &
  started+=("$!")
done
for _ in $(seq "$(nproc)"); do
  "$python" -c 'while True: pass' &
  started+=("$!")
done
set +m
"$python" -m pytest -q -p no:cacheprovider --durations=10 "$@"
