#!/usr/bin/env bash
# setup.sh prepares a fresh Debian 12 machine to build and test Logbook.
# It is idempotent: packages already installed are skipped, and apt-get runs
# only when something is missing. It never reads stdin (CI runs it as root
# with no terminal).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
cd "$(dirname "$0")/.."

log() { printf 'setup: %s\n' "$*"; }

# Debian packages needed now. zstd: inspecting .zstd session logs by hand and in
# fixtures; ca-certificates: HTTPS to the Go module proxy; git: version stamps
# (git describe); make: the Makefile that .ci/run and the README call.
pkgs=(zstd ca-certificates git make)

# Packages the desktop UI will need (toolchain.md §1, §7). NOT installed yet:
# the UI issue moves them into pkgs above when the Wails window and the
# browser e2e tests land.
#   libgtk-3-dev libwebkit2gtk-4.0-dev pkg-config gcc   # Wails v2 desktop build (cgo)
#   xvfb xauth fonts-dejavu-core                        # window self-test under Xvfb
#   chromium                                            # chromedp e2e tests of the served UI

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
log "done"
