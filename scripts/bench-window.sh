#!/usr/bin/env bash
# Measures the desktop window under Xvfb: memory (PSS, so WebKit's shared pages
# are not counted twice) of the Logbook process and its WebKit helper processes,
# and their CPU use while the app sits idle. Usage: scripts/bench-window.sh [BIN]
# (default bin/logbook-desktop, the -tags desktop,production build; `make bench-window`).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/logbook-desktop}
idle=${IDLE_SECONDS:-30}
command -v xvfb-run >/dev/null || { echo "bench-window: xvfb-run is not installed" >&2; exit 1; }

work=$(mktemp -d)
trap 'kill "$xpid" 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT
corpus=../shared/corpus/dsh
if [ -d "$corpus" ]; then
	"$bin" --data "$work/data" import "$corpus" >/dev/null
fi
"$bin" --data "$work/data" reindex >/dev/null
echo "archive: $("$bin" --data "$work/data" sessions --json | grep -c '"id"') sessions"

HOME="$work" xvfb-run -a -s "-screen 0 1280x800x24" "$bin" --data "$work/data" window --no-import >"$work/out.log" 2>&1 &
xpid=$!

# The window's process tree: logbook plus WebKitWebProcess / WebKitNetworkProcess.
tree() {
	local root
	root=$(pgrep -f -n "^$bin --data $work/data window" || true)
	[ -n "$root" ] || return 0
	echo "$root"
	pgrep -f "WebKit(Web|Network)Process" | while read -r p; do
		# keep the helpers whose parent chain reaches the logbook process
		q=$p
		while [ "$q" -gt 1 ]; do
			[ "$q" = "$root" ] && { echo "$p"; break; }
			q=$(awk '{print $4}' "/proc/$q/stat" 2>/dev/null || echo 1)
		done
	done
}
ticks() { local s=0; for p in $(tree); do s=$((s + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo $s; }

for _ in $(seq 1 40); do [ -n "$(tree)" ] && break; sleep 0.5; done
[ -n "$(tree)" ] || { echo "bench-window: the window did not start" >&2; cat "$work/out.log" >&2; exit 1; }
sleep 8 # page load, first render, start-up index sync

echo "processes:"
total=0
for p in $(tree); do
	pss=$(awk '/^Pss:/{print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
	rss=$(awk '/^VmRSS:/{print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
	printf '  %-28s pid %-7s PSS %6d MiB  RSS %6d MiB\n' "$(cat /proc/$p/comm)" "$p" $((pss / 1024)) $((rss / 1024))
	total=$((total + pss))
done
printf 'window memory (PSS, all processes): %d MiB\n' $((total / 1024))

hz=$(getconf CLK_TCK)
t0=$(ticks); sleep "$idle"; t1=$(ticks)
awk -v d=$((t1 - t0)) -v hz="$hz" -v s="$idle" 'BEGIN { printf "idle CPU over %ds: %.2f%% of one core (%d ticks)\n", s, 100 * d / (hz * s), d }'
