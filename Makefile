# Logbook developer commands. See README.md.
#
#   make run           set up, build, import the default session roots, then open the window
#                      (desktop build and $DISPLAY set) or serve the UI to a browser (prints the link);
#                      an archive still empty after the import shows a labelled demo archive
#   make build         the UI bundle, then bin/logbook (the CLI and `logbook serve`: pure Go,
#                      quick to start) and, when the GTK/WebKit headers are installed, the
#                      window beside it, bin/logbook-desktop (`logbook window` hands over to it)
#   make test          the README's test command (.ci/run calls it): UI checks, unit tests and
#                      build, go vet + every Go test, the desktop build + its vet + the window
#                      self-test under Xvfb, and a check that frontend/wailsjs is current
#   make selftest      open the window under Xvfb; the UI calls Go and the app quits (needs a desktop build)
#   make bench-window  memory and idle CPU of the desktop window under Xvfb
#   make bindings      regenerate frontend/wailsjs (wails generate module, the go.mod-pinned CLI)
#   make test-race     the Go tests under the race detector (slow on a cold 2-core build)
#   make bench         all benchmarks at a small scale, one iteration each
#   make bench-import  the 1 GB / 2,000-session import benchmarks (+ 1 GB single session, 10k re-scan), then import to searchable (archive + index, indexed along the import as logbook import does)
#   make bench-search  the 1,000,000-block search benchmarks (+ grep baseline)
#   make bench-cli     logbook search end to end, a new process each time (target < 150 ms)
#   make lint / fmt    go vet + gofmt check / gofmt rewrite

GO      ?= go
BIN     := bin/logbook
DESKTOP := bin/logbook-desktop
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

# Build tags of the desktop binary, or nothing when the WebKitGTK headers are missing.
# Evaluated by the shell in each recipe (not by make up front), so that `make run`
# sees the packages its own setup step just installed. Debian 12 has webkit2gtk-4.0;
# systems with only 4.1 (Debian 13, Ubuntu 24.04) need the webkit2_41 tag.
DESKTOP_TAGS = $$(if pkg-config --exists webkit2gtk-4.0 2>/dev/null; then echo desktop,production; \
	elif pkg-config --exists webkit2gtk-4.1 2>/dev/null; then echo desktop,production,webkit2_41; fi)

# Go sources to format-check, minus JS dependency trees and deliberately odd testdata.
# Piped through xargs -r because gofmt with no file arguments would read stdin.
FIND_GO := find . -name '*.go' -not -path './.git/*' -not -path '*/node_modules/*' -not -path '*/testdata/*' -print0

NPM_STAMP := frontend/node_modules/.package-lock.json

.PHONY: run setup build ui bindings bindings-check selftest test test-race bench bench-import bench-search bench-cli bench-window lint fmt clean

run: setup build
	./$(BIN) import
	@tags="$(DESKTOP_TAGS)"; \
	if [ -n "$$tags" ] && [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
		echo "Opening the Logbook window (close it to stop)"; \
		./$(BIN) window --no-import --demo-if-empty; \
	else \
		echo "No desktop window here (headless build or no display): serving the UI to a browser; Ctrl-C stops it"; \
		./$(BIN) serve --no-import --demo-if-empty; \
	fi

setup:
	bash scripts/setup.sh

# npm ci when node_modules is missing or older than the lockfile.
$(NPM_STAMP): frontend/package-lock.json frontend/package.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

ui: $(NPM_STAMP)
	cd frontend && npm run build

# Two binaries: the window links GTK and WebKit (some 170 shared libraries, a quarter
# of a second before main runs), which no CLI command should pay for.
build: ui
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .
	@tags="$(DESKTOP_TAGS)"; \
	if [ -n "$$tags" ]; then \
		echo "+ $(GO) build -tags $$tags -o $(DESKTOP) ."; \
		$(GO) build -tags "$$tags" -ldflags "$(LDFLAGS)" -o $(DESKTOP) .; \
	else \
		echo "build: no WebKitGTK headers (pkg-config webkit2gtk-4.0): no window binary; logbook serve is the UI"; \
		rm -f $(DESKTOP); \
	fi

# The generator builds the program with -tags bindings and runs it (desktop.go,
# bindings.go); it needs no GUI libraries. Its chatter goes to the screen only on failure.
bindings:
	@out=$$($(GO) tool wails generate module 2>&1) || { echo "$$out"; exit 1; }
	@echo "frontend/wailsjs regenerated"

# Fails when the committed bindings differ from what the Go API generates. The UI is
# typed from them (frontend/src/api calls the generated wailsjs/go/app/App functions
# and uses the wailsjs/go/models types, in the window and, through a stand-in for
# window.go, in the browser), so once they are regenerated, a renamed or re-typed Go
# method or field fails `npm run check` wherever the UI still uses the old one. A
# renamed, added or removed method also fails app's TestServerServesTheGeneratedBindings
# in plain `go test` until the bindings are regenerated.
bindings-check: bindings
	@git diff --exit-code --stat -- frontend/wailsjs || { echo "frontend/wailsjs is stale: run make bindings and commit it"; exit 1; }
	@new=$$(git ls-files --others --exclude-standard -- frontend/wailsjs); \
	if [ -n "$$new" ]; then echo "frontend/wailsjs has files not in git (run make bindings and commit them):"; echo "$$new"; exit 1; fi

# `logbook` alone opens the window under a virtual display on an empty data
# directory; the UI calls SelfTest, the app prints "SELFTEST OK ui-loaded
# mode=desktop" and quits (exit status 1 if the UI never calls within 30 s). HOME
# points into the scratch directory too, so no real session root is imported and
# WebKit's own files stay out of the real home.
selftest:
	@d=$$(mktemp -d); \
	APP_SELFTEST=1 HOME="$$d" DSH_HOME= XDG_DATA_HOME= xvfb-run -a -s "-screen 0 1280x800x24" timeout 60 ./$(DESKTOP) --data "$$d/data"; \
	rc=$$?; rm -rf "$$d"; exit $$rc

# The Go tests get 30 min a package: e2e drives Chromium through some sixty browser
# tests, more than go test's 10 min default on a loaded 2-core machine.
test: $(NPM_STAMP)
	cd frontend && npm run check
	cd frontend && npm test
	cd frontend && npm run build
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...
	@tags="$(DESKTOP_TAGS)"; \
	if [ -z "$$tags" ]; then \
		echo "test: no WebKitGTK headers: the desktop build, its vet and the window self-test are skipped"; \
	else \
		set -e; \
		echo "+ $(GO) build -tags $$tags -o $(DESKTOP) ."; \
		$(GO) build -tags "$$tags" -ldflags "$(LDFLAGS)" -o $(DESKTOP) .; \
		echo "+ $(GO) vet -tags $$tags ./..."; \
		$(GO) vet -tags "$$tags" ./...; \
		if command -v xvfb-run >/dev/null 2>&1; then \
			echo "+ make selftest"; $(MAKE) --no-print-directory selftest; \
		else \
			echo "test: xvfb-run not installed: the window self-test is skipped"; \
		fi; \
	fi
	$(MAKE) --no-print-directory bindings-check

# -race is kept out of `test`: on CI's 2 cores a cold race build costs minutes.
test-race:
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1x ./archive/... ./index/...

bench-import:
	LOGBOOK_BENCH_GB=1 $(GO) test -run '^$$' -bench 'BenchmarkImport|BenchmarkRescan10k' -benchtime 1x -timeout 60m ./archive/
	LOGBOOK_BENCH_GB=1 LOGBOOK_BENCH_OVERLAP=1 $(GO) test -run '^$$' -bench 'BenchmarkImportSearchable' -benchtime 1x -timeout 60m ./index/

# Memory and idle CPU of the desktop window under Xvfb (needs the desktop build).
bench-window: build
	bash scripts/bench-window.sh $(DESKTOP)

bench-cli:
	$(GO) test -run '^$$' -bench CLISearch -benchtime 20x ./e2e/faults/

bench-search:
	LOGBOOK_BENCH_BLOCKS=1000000 $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 90m ./index/

lint:
	$(GO) vet ./...
	@files="$$($(FIND_GO) | xargs -0 -r gofmt -l)"; \
	if [ -n "$$files" ]; then echo "gofmt: these files need formatting (run: make fmt):"; echo "$$files"; exit 1; fi

fmt:
	$(FIND_GO) | xargs -0 -r gofmt -w

clean:
	rm -rf bin
