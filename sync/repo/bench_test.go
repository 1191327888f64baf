package repo_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/crypt"
	"github.com/logbook/logbook/sync/memremote"
	"github.com/logbook/logbook/sync/repo"
)

const benchSize = 16 << 20

// BenchmarkPush measures upload throughput through the crypt layer: hash,
// encrypt, Stat and Put of a fresh 16 MiB session per iteration (a new key
// each time, so nothing dedupes).
func BenchmarkPush(b *testing.B) {
	data := logBytes(20, benchSize)
	for _, rm := range remotes {
		b.Run(rm.name, func(b *testing.B) {
			remote := rm.new(b)
			b.SetBytes(benchSize)
			for b.Loop() {
				r := repo.New(remote, mustKey(b))
				push(b, r, data, "s", nil)
			}
		})
	}
}

// BenchmarkPull measures download throughput: Open, decrypt, verify.
func BenchmarkPull(b *testing.B) {
	data := logBytes(21, benchSize)
	for _, rm := range remotes {
		b.Run(rm.name, func(b *testing.B) {
			r := repo.New(rm.new(b), mustKey(b))
			e, _ := push(b, r, data, "s", nil)
			b.SetBytes(benchSize)
			for b.Loop() {
				require.NoError(b, r.Pull(context.Background(), e, io.Discard))
			}
		})
	}
}

// BenchmarkAppend1MB is one incremental sync: 1 MB appended to a 50 MB
// session, pushed and committed. It reports the bytes uploaded per sync,
// manifest and head included.
func BenchmarkAppend1MB(b *testing.B) {
	base := logBytes(22, 50_000_000)
	for _, rm := range remotes {
		b.Run(rm.name, func(b *testing.B) {
			cr := &counting{Remote: rm.new(b)}
			r := repo.New(cr, mustKey(b))
			data := bytes.Clone(base)
			e, _ := push(b, r, data, "s", nil)
			var moved, syncs int64
			for i := 0; b.Loop(); i++ {
				data = append(data, logBytes(uint64(100+i), 1_000_000)...)
				before := cr.put.Load()
				e, _ = push(b, r, data, "s", &e)
				_, err := r.Commit(context.Background(), "m", []repo.Entry{e})
				require.NoError(b, err)
				moved += cr.put.Load() - before
				syncs++
			}
			b.ReportMetric(float64(moved)/float64(syncs), "uploaded-B/sync")
		})
	}
}

var _ arcsync.Remote = (*counting)(nil)

// BenchmarkCommit1000Sessions measures a manifest for a machine with 1000
// sessions of ~5 MB (5 pieces each): commit time and encrypted size, which
// every sync rewrites.
func BenchmarkCommit1000Sessions(b *testing.B) {
	cr := &counting{Remote: memremote.New()}
	r := repo.New(cr, mustKey(b))
	entries := make([]repo.Entry, 1000)
	for i := range entries {
		e := repo.Entry{SessionID: fmt.Sprintf("%08x-1111-4222-8333-%012x", i, i*7919), Agent: "claude-code",
			Format: "jsonl", SourceKind: "claude-projects", Length: 5 << 20, Generation: 3, Updated: time.Now()}
		for p := range 5 {
			e.Pieces = append(e.Pieces, repo.Piece{Off: int64(p) << 20, Len: 1 << 20, Hash: crypt.Sum([]byte(e.SessionID + strconv.Itoa(p)))})
		}
		e.Hash = crypt.Sum([]byte(e.SessionID))
		entries[i] = e
	}
	var bytesPerCommit int64
	for b.Loop() {
		before := cr.put.Load()
		_, err := r.Commit(context.Background(), "m", entries)
		require.NoError(b, err)
		bytesPerCommit = cr.put.Load() - before
	}
	b.ReportMetric(float64(bytesPerCommit), "uploaded-B/commit")
}
