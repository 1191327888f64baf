# Logbook developer commands. See README.md.
#
#   make run           set up, build bin/logbook, import the default session roots, list sessions
#   make test          go vet + every test (the README's test command; .ci/run calls it)
#   make test-race     the tests under the race detector (slow on a cold 2-core build)
#   make bench         all benchmarks at a small scale, one iteration each
#   make bench-import  the 1 GB / 2,000-session import benchmarks (+ 1 GB single session, 10k re-scan)
#   make bench-search  the 1,000,000-block search benchmarks (+ grep baseline)
#   make lint / fmt    go vet + gofmt check / gofmt rewrite

GO      ?= go
BIN     := bin/logbook
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

# Go sources to format-check, minus JS dependency trees and deliberately odd testdata.
# Piped through xargs -r because gofmt with no file arguments would read stdin.
FIND_GO := find . -name '*.go' -not -path './.git/*' -not -path '*/node_modules/*' -not -path '*/testdata/*' -print0

.PHONY: run setup build test test-race bench bench-import bench-search lint fmt clean

run: setup build
	./$(BIN) import
	./$(BIN) sessions

setup:
	bash scripts/setup.sh

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# -race is kept out of `test`: on CI's 2 cores a cold race build costs minutes.
test-race:
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1x ./archive/... ./index/...

bench-import:
	LOGBOOK_BENCH_GB=1 $(GO) test -run '^$$' -bench 'BenchmarkImport|BenchmarkRescan10k' -benchtime 1x -timeout 60m ./archive/

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
