#!/usr/bin/env bash
# setup.sh prepares a fresh Debian 12 machine to build and test Logbook.
# It is idempotent: packages already installed are skipped, and apt-get runs
# only when something is missing. It never reads stdin (CI runs it as root
# with no terminal).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
cd "$(dirname "$0")/.."

log() { printf 'setup: %s\n' "$*"; }

# Debian packages. zstd: inspecting .zstd session logs by hand and in fixtures;
# ca-certificates: HTTPS to the Go module proxy and npm; git: version stamps (git
# describe) and the bindings check; make: the Makefile that .ci/run and the README call.
pkgs=(zstd ca-certificates git make)
# The desktop window (Wails v2, cgo): GTK 3 and WebKitGTK 4.0 headers (toolchain.md §1).
pkgs+=(libgtk-3-dev libwebkit2gtk-4.0-dev pkg-config gcc)
# The window self-test under a virtual display; without a font nothing renders, and
# without a CJK font the (often Chinese) sessions render as boxes, without an emoji
# font emoji do (the UI names Noto Color Emoji in its font stacks).
pkgs+=(xvfb xauth fonts-dejavu-core fonts-wqy-zenhei fonts-noto-color-emoji)
# Browser end-to-end tests of the served UI (chromedp drives it over CDP).
pkgs+=(chromium)
# GNU time: the fault suite reads a child's true peak RSS from it (a Go parent's
# rusage of its child counts the parent's own pages, see e2e/faults).
pkgs+=(time)
# The UI is built with npm (Vite). Debian's nodejs is only installed when there is
# no npm at all; a NodeSource or nvm Node already on PATH is kept.
if ! command -v npm >/dev/null 2>&1; then
	pkgs+=(nodejs npm)
fi

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if ((${#missing[@]} == 0)); then
	log "Debian packages present: ${pkgs[*]}"
else
	sudo_cmd=()
	if [[ $(id -u) -ne 0 ]]; then
		if command -v sudo >/dev/null 2>&1; then
			# -n: never prompt without a terminal (CI has no stdin).
			if [[ -t 0 ]]; then sudo_cmd=(sudo); else sudo_cmd=(sudo -n); fi
		else
			sudo_cmd=(none)
		fi
	fi
	if [[ ${sudo_cmd[*]-} == none ]]; then
		log "WARNING: missing Debian packages: ${missing[*]}"
		log "WARNING: not root and no sudo; install them yourself: apt-get install --no-install-recommends ${missing[*]}"
	else
		log "installing missing Debian packages: ${missing[*]}"
		log "+ apt-get update"
		"${sudo_cmd[@]}" apt-get update -qq
		log "+ apt-get install -y --no-install-recommends ${missing[*]}"
		"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
	fi
fi

# Go: a fresh machine may have Go unpacked in /usr/local/go but not on PATH.
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	log "go not on PATH; using /usr/local/go/bin (add it to your PATH for make)"
	export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
	echo "setup: ERROR: Go 1.26 is required, but 'go' was not found on PATH (see https://go.dev/doc/install)." >&2
	exit 1
fi
# GOVERSION is read inside the module, so it reports the toolchain that will
# actually build it (after any GOTOOLCHAIN switch).
gover=$(go env GOVERSION)
ver=${gover#go}
major=${ver%%.*}
rest=${ver#*.}
minor=${rest%%[!0-9]*}
if ! [[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] || ((major < 1 || (major == 1 && minor < 26))); then
	echo "setup: ERROR: Go 1.26 is required, found $gover." >&2
	exit 1
fi
log "using $gover ($(command -v go))"

log "+ go mod download"
go mod download

# Node: Vite 8 needs Node 20.19+ (or 22.12+). Debian 12's own nodejs is 18, too old.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "setup: ERROR: node and npm are required to build the UI (Node 20.19+ or 22.12+)." >&2
	exit 1
fi
nodever=$(node -p 'process.versions.node')
nmaj=${nodever%%.*}
nrest=${nodever#*.}
nmin=${nrest%%.*}
if ! ((nmaj >= 23 || (nmaj == 22 && nmin >= 12) || (nmaj == 20 && nmin >= 19))); then
	echo "setup: ERROR: Node $nodever is too old for Vite 8 (needs 20.19+ or 22.12+); install a newer Node (NodeSource or nvm)." >&2
	exit 1
fi
log "using Node $nodever ($(command -v node)), npm $(npm --version)"
# npm ci only when node_modules is missing or older than the lockfile (npm keeps
# its own copy of the lockfile in node_modules/.package-lock.json).
if [[ frontend/node_modules/.package-lock.json -nt frontend/package-lock.json ]]; then
	log "frontend/node_modules is current"
else
	log "+ (cd frontend && npm ci)"
	(cd frontend && npm ci --no-audit --no-fund --loglevel=error)
	touch frontend/node_modules/.package-lock.json
fi
log "done"
