#!/usr/bin/env bash
# build-weed.sh builds SeaweedFS's `weed` binary (a real S3 server, `weed server -s3`)
# from its Go module into a cache folder, once: the sync integration test
# (sync/archivesync, TestRealS3) starts it on loopback. A cached binary of the
# pinned version is reused, so CI pays for the build only on a fresh cache.
#
#   scripts/build-weed.sh            # builds it unless cached; prints the binary's path
#   scripts/build-weed.sh --cached   # prints the path only if it is built (exit 1 if not)
#   LOGBOOK_WEED_DIR=/some/dir ...   # another cache folder
set -euo pipefail
version=${LOGBOOK_WEED_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}
dir=${LOGBOOK_WEED_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/logbook/weed}
bin=$dir/weed-$version
if [[ -x $bin ]]; then
	echo "$bin"
	exit 0
fi
if [[ ${1-} == --cached ]]; then
	echo "build-weed: SeaweedFS $version is not built in $dir (run scripts/build-weed.sh)" >&2
	exit 1
fi
mkdir -p "$dir"
# One build at a time: a second caller waits for the first and reuses it.
exec 9>"$dir/.lock"
flock 9
if [[ -x $bin ]]; then
	echo "$bin"
	exit 0
fi
tmp=$(mktemp -d "$dir/build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# `go install module@version` refuses weed (its go.mod has replace directives),
# so the module is downloaded and built inside its own tree, with its go.mod.
src=$(go mod download -json "github.com/seaweedfs/seaweedfs@$version" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [[ -z $src ]]; then
	echo "build-weed: go mod download gave no source folder" >&2
	exit 1
fi
(cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -o "$tmp/weed" ./weed >&2)
mv "$tmp/weed" "$bin"
echo "$bin"
