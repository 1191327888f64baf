package repo_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	arcsync "github.com/logbook/logbook/sync"
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
