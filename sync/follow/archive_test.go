package follow_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/sync/follow"
)

// archiveFollow is the wiring the CLI and app are to do: the archive's import,
// its reports, and its torn-tail verdict. Every batch goes to the returned log.
func archiveFollow(s *archive.Store, roots ...string) (follow.Options[archive.FileReport], *batchLog) {
	bl := new(batchLog)
	return follow.Options[archive.FileReport]{
		Roots: roots,
		Import: func(ctx context.Context, paths []string) ([]archive.FileReport, error) {
			rep, err := s.Import(ctx, paths, archive.ImportOptions{})
			if rep == nil {
				return nil, err
			}
			return rep.Files, err
		},
		Path: func(r archive.FileReport) string { return r.Path },
		Torn: func(r archive.FileReport) bool {
			return r.Verdict == dsh.VerdictRecovered && r.Error != nil && r.Error.Kind == dsh.KindTornTail
		},
		OnImport: bl.add,
	}, bl
}

// batchLog keeps the files of every batch.
type batchLog struct {
	mu    sync.Mutex
	files []follow.File[archive.FileReport]
	seen  chan struct{} // when set, signalled after each batch
}

func (b *batchLog) add(batch follow.Batch[archive.FileReport]) {
	b.mu.Lock()
	b.files = append(b.files, batch.Files...)
	c := b.seen
	b.mu.Unlock()
	if c != nil {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

func (b *batchLog) last(path string) (follow.File[archive.FileReport], bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.files) - 1; i >= 0; i-- {
		if b.files[i].Report.Path == path {
			return b.files[i], true
		}
	}
	return follow.File[archive.FileReport]{}, false
}

func (b *batchLog) all() []follow.File[archive.FileReport] {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]follow.File[archive.FileReport](nil), b.files...)
}

// TestFollowArchive writes generated dsh logs, plain and zstd, in small pieces
// that cut lines and frames anywhere, while a follower imports them into a real
// archive: no piece is ever taken as damage, and the archive ends as a fresh
// import of the finished file would make it.
func TestFollowArchive(t *testing.T) {
	for _, tc := range []struct {
		name       string
		compressed bool
	}{{"Plain", false}, {"Zstd", true}} {
		t.Run(tc.name, func(t *testing.T) {
			log := dshgen.Generate(dshgen.Options{Seed: 14, Turns: 6, BatchLines: 4})
			data := log.JSONL()
			if tc.compressed {
				data = log.Zstd()
			}
			// The writer starts with the header (frame 0 alone, for zstd) in one
			// write, as dsh does; everything after is cut at random.
			head := len(log.Header()) + 1
			if tc.compressed {
				head = len(log.Frames()[0])
			}
			root := t.TempDir()
			path := writeLog(t, root, log, tc.compressed, data[:head])

			s := archivetest.MustOpen(t)
			o, batches := archiveFollow(s, root)
			start(t, o)
			require.Eventually(t, func() bool { _, ok := batches.last(path); return ok }, 5*time.Second, 5*time.Millisecond)
			rng := rand.New(rand.NewPCG(14, uint64(len(data))))
			pieces := 0
			for off := head; off < len(data); pieces++ {
				n := min(len(data)-off, 16+rng.IntN(1024))
				appendTo(t, path, string(data[off:off+n]))
				off += n
				time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
			}
			require.Eventually(t, func() bool {
				f, ok := batches.last(path)
				return ok && f.Report.LogicalEvents == int64(log.Events()) && f.Report.Verdict == dsh.VerdictOK
			}, 5*time.Second, 10*time.Millisecond)

			states := map[follow.State]int{}
			for _, f := range batches.all() {
				states[f.State]++
				assert.Contains(t, []dsh.Verdict{dsh.VerdictOK, dsh.VerdictRecovered}, f.Report.Verdict,
					"never damage: %+v", f.Report.Error)
			}
			t.Logf("%d bytes in %d pieces: %d imports %v", len(data), pieces, len(batches.all()), states)
			assert.Zero(t, states[follow.Torn])
			assert.Positive(t, states[follow.Writing], "imports came while lines or frames were cut")

			fresh := archivetest.MustOpen(t)
			rep, err := fresh.Import(context.Background(), []string{path}, archive.ImportOptions{})
			require.NoError(t, err)
			require.Len(t, rep.Files, 1)
			assertSameArchive(t, fresh, s, log.ID())
		})
	}
}

// assertSameArchive compares what two archives hold of one session.
func assertSameArchive(t *testing.T, want, got *archive.Store, id string) {
	t.Helper()
	sameArchive(t, want, got, id, false)
}

// sameArchive is assertSameArchive; withoutHeader leaves the exported log's
// first line (the session's header) out of the comparison.
func sameArchive(t *testing.T, want, got *archive.Store, id string, withoutHeader bool) {
	t.Helper()
	ctx := context.Background()
	var we, ge bytes.Buffer
	require.NoError(t, want.ExportJSONL(ctx, id, &we))
	require.NoError(t, got.ExportJSONL(ctx, id, &ge))
	wl, gl := we.String(), ge.String()
	if withoutHeader {
		_, wl, _ = strings.Cut(wl, "\n")
		_, gl, _ = strings.Cut(gl, "\n")
	}
	assert.Equal(t, wl, gl, "exported log")
	ws, err := want.Session(ctx, id)
	require.NoError(t, err)
	gs, err := got.Session(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, ws, gs, "session")
	wm, err := want.Messages(ctx, id)
	require.NoError(t, err)
	gm, err := got.Messages(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, wm, gm, "messages")
	wt, err := want.ToolCalls(ctx, id)
	require.NoError(t, err)
	gt, err := got.ToolCalls(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, wt, gt, "tool calls")
}

// TestFollowArchiveTornTail leaves a real log cut inside a line: the archive's
// report of it (recovered, torn-tail) is "writing" at first, and "torn" once it
// has stayed so for TornQuiet, when the confirming import finds it unchanged.
func TestFollowArchiveTornTail(t *testing.T) {
	log := dshgen.Generate(dshgen.Options{Seed: 15, Turns: 2})
	data := log.JSONL()
	root := t.TempDir()
	cut := len(data) - len(log.Lines()[len(log.Lines())-1])/2 - 1
	path := writeLog(t, root, log, false, data[:cut])

	s := archivetest.MustOpen(t)
	o, batches := archiveFollow(s, root)
	o.TornQuiet = 300 * time.Millisecond
	start(t, o)
	require.Eventually(t, func() bool {
		f, _ := batches.last(path)
		return f.State == follow.Torn
	}, 5*time.Second, 5*time.Millisecond)
	files := batches.all()
	require.Len(t, files, 2, "the import, then the check that found it unchanged")
	assert.Equal(t, follow.Writing, files[0].State)
	assert.Equal(t, "new", files[0].Report.Action)
	assert.Equal(t, "unchanged", files[1].Report.Action)
	assert.Equal(t, dsh.KindTornTail, files[1].Report.Error.Kind)
	assert.EqualValues(t, len(log.Lines())-2, files[1].Report.Records, "every complete line is archived")
}

// writeLog writes the first bytes of a generated log where dsh keeps it under
// root, and returns its path.
func writeLog(tb testing.TB, root string, log *dshgen.Log, compressed bool, data []byte) string {
	tb.Helper()
	rel, err := log.RelPath(compressed)
	require.NoError(tb, err)
	path := filepath.Join(root, rel)
	require.NoError(tb, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(tb, os.WriteFile(path, data, 0o644))
	return path
}
