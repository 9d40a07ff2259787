#!/usr/bin/env bash
# The script-navigation tests (synthetic pages, and a real article that leaves for an unresolvable host)
# under CPU load: one burner process per core keeps every core busy while the
# tests run COUNT times in a row (20 unless given); stops at the first failing run. The burners are this
# script's own children, ended by their pids on exit.
#
#   scripts/stress_navigation.sh [COUNT] [extra pytest arguments, e.g. -k landing_page]
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-20}"
shift || true
python="${PYTHON:-.venv/bin/python}"
burners=()
stop_burners() {
  for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_burners EXIT
for _ in $(seq "$(nproc)"); do
  "$python" -c 'while True: pass' &
  burners+=("$!")
done
for run in $(seq "$count"); do
  if ! "$python" -m pytest -q -p no:cacheprovider tests/browser/test_browser_script_navigation.py \
      tests/browser/test_browser_article_navigation.py "$@" >"${TMPDIR:-/tmp}/stress-navigation-$run.log" 2>&1; then
    tail -30 "${TMPDIR:-/tmp}/stress-navigation-$run.log"
    echo "run $run of $count failed under load (log: ${TMPDIR:-/tmp}/stress-navigation-$run.log)"
    exit 1
  fi
  echo "run $run of $count: $(tail -1 "${TMPDIR:-/tmp}/stress-navigation-$run.log")"
done
echo "$count runs in a row passed with $(nproc) cores kept busy"
