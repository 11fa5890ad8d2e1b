#!/usr/bin/env bash
# `make test` on a fresh clone of this checkout's HEAD while a busy loop keeps one core loaded: do the tests
# hold on a loaded machine (no timing assertion a stall can break), and how long do they take?
#
#   scripts/test-under-load.sh [--dry-run] [--keep] [MAKE_ARGS...]
#
#   --dry-run  clone, start and stop the burner, print what would run; do not run `make test`
#   --keep     keep the temporary clone (and its log) afterwards
#   MAKE_ARGS  passed to make, e.g. PYTEST_ARGS='tests/proxy_addons' (default: the whole suite)
#
# Environment: BURN_S caps the burner's life in seconds (default 7200; it is also killed when this script
# exits), BURN_CPU the core it is pinned to when taskset exists (default 0).
# Exit status: make's (0 when the tests passed). Uncommitted changes are not in the clone: commit first.
set -euo pipefail

dry_run=0
keep=0
make_args=()
for arg in "$@"; do
    case "$arg" in
        --dry-run) dry_run=1 ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) make_args+=("$arg") ;;
    esac
done

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
head=$(git -C "$repo" rev-parse HEAD)
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
    echo "test-under-load: $repo has uncommitted changes; the clone tests HEAD ($head) without them" >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/webchaos-under-load.XXXXXX")
burner=""
cleanup() {
    if [ -n "$burner" ] && kill -0 "$burner" 2>/dev/null; then
        kill "$burner" 2>/dev/null || true
        wait "$burner" 2>/dev/null || true
    fi
    if [ "$keep" = 1 ]; then
        echo "test-under-load: kept $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

git clone -q --no-hardlinks "$repo" "$work/repo"
git -C "$work/repo" checkout -q --detach "$head"

# One core busy for the whole run (a CI neighbour, a browser, an indexer): bounded by `timeout` even if
# this script is killed with SIGKILL, and killed by the trap above on any ordinary exit.
pin=()
if command -v taskset >/dev/null 2>&1; then
    pin=(taskset -c "${BURN_CPU:-0}")
fi
"${pin[@]}" timeout "${BURN_S:-7200}" python3 -c 'while True: pass' &
burner=$!
sleep 0.2
kill -0 "$burner" 2>/dev/null || { echo "test-under-load: the CPU burner did not start" >&2; exit 2; }
echo "test-under-load: clone of $head in $work/repo; CPU burner pid $burner${pin:+ on core ${BURN_CPU:-0}}"

log="$work/make-test.log"
if [ "$dry_run" = 1 ]; then
    echo "test-under-load: dry run: would run (cd $work/repo && make test ${make_args[*]}) > $log"
    exit 0
fi

echo "test-under-load: make test ${make_args[*]} (log: $log)"
start=$(date +%s)
set +e
(cd "$work/repo" && make test "${make_args[@]}") >"$log" 2>&1
status=$?
set -e
elapsed=$(( $(date +%s) - start ))
wall=$(printf '%dm%02ds' $((elapsed / 60)) $((elapsed % 60)))

grep -E '^(FAILED|ERROR) |^[0-9]+ (passed|failed)|^=+ .*(passed|failed|error).* =+$' "$log" | tail -n 40 || true
if [ "$status" = 0 ]; then
    echo "test-under-load: PASS in $wall (make test, one core busy, HEAD $head)"
else
    echo "test-under-load: FAIL (make exit $status) in $wall (make test, one core busy, HEAD $head)"
    echo "test-under-load: last lines of the log:"
    tail -n 30 "$log"
    keep=1  # the log is what the failure needs
fi
exit "$status"
