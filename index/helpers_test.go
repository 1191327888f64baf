package index

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

// openIndex opens a fresh index in a temporary directory, closed when the test ends.
func openIndex(t testing.TB) *Index {
	t.Helper()
	ix, err := Open(filepath.Join(t.TempDir(), "index"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

// memSource is a Source over hand-written blocks, for analyzer behaviour that is
// easier to pin down on a sentence than to find in a generated log.
type memSource struct {
	revs   map[string]int64
	blocks map[string][]archive.Block
}

func (m *memSource) Revisions(context.Context) (map[string]int64, error) {
	return maps.Clone(m.revs), nil
}

func (m *memSource) SessionBlocks(_ context.Context, id string, fn func(archive.Block) error) (int64, error) {
	rev, ok := m.revs[id]
	if !ok {
		return 0, fmt.Errorf("session %q: %w", id, archive.ErrNotFound)
	}
	for _, b := range m.blocks[id] {
		if err := fn(b); err != nil {
			return 0, err
		}
	}
	return rev, nil
}

// texts makes a memSource with one session holding one assistant block per text,
// with IDs b0, b1, ….
func texts(ss ...string) *memSource {
	m := &memSource{revs: map[string]int64{"s": 1}, blocks: map[string][]archive.Block{}}
	for i, s := range ss {
		m.blocks["s"] = append(m.blocks["s"], archive.Block{
			ID: fmt.Sprintf("b%d", i), SessionID: "s", Project: "p", Agent: "dsh",
			Kind: archive.BlockAssistant, Role: "assistant", Seq: int64(i), Surface: "current",
			Time: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC), Text: s,
		})
	}
	return m
}

// searchAll returns the IDs of every hit of q, in order, paging through cursors.
func searchAll(t testing.TB, ix *Index, q Query) []string {
	t.Helper()
	var ids []string
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10000, "pagination does not end")
		res, err := ix.Search(context.Background(), q)
		require.NoError(t, err, "query %q", q.Text)
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		if res.NextCursor == "" {
			return ids
		}
		q.Cursor = res.NextCursor
	}
}

// sorted returns a sorted copy.
func sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// genOptions are the generated sessions of the corpus fixture: two projects,
// months apart, before the real log (2026-08-16).
var genOptions = []dshgen.Options{
	{Seed: 11, Turns: 12, Cwd: "/home/dev/alpha", CreatedAt: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC).UnixMilli()},
	{Seed: 12, Turns: 12, Cwd: "/home/dev/beta", CreatedAt: time.Date(2026, 5, 20, 9, 0, 0, 0, time.UTC).UnixMilli()},
}

// importGenerated writes a generated session under root and imports it.
func importGenerated(t testing.TB, s *archive.Store, root string, o dshgen.Options) string {
	t.Helper()
	path, err := dshgen.Generate(o).WriteFile(root, true)
	require.NoError(t, err)
	fr := s.ImportFile(context.Background(), path, archive.ImportOptions{})
	require.Nil(t, fr.Error)
	return fr.SessionID
}

// corpusFixture is an archive holding the real log and the generated sessions, and
// an index synced from it. Tests only read it.
type corpusFixture struct {
	store  *archive.Store
	ix     *Index
	real   string          // the real log's session id
	gen    []string        // the generated sessions' ids
	blocks []archive.Block // every block of every session: the ground truth
	byID   map[string]archive.Block
}

var shared struct {
	once sync.Once
	dir  string
	f    *corpusFixture
	err  error
}

// fixture returns the shared corpus fixture, built on first use. It skips the test
// when the shared corpus is absent.
func fixture(t testing.TB) *corpusFixture {
	t.Helper()
	realLog := archivetest.Corpus(t, archivetest.RealLog)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "logbook-index-test")
		if shared.err == nil {
			shared.f, shared.err = buildFixture(t, shared.dir, realLog)
		}
	})
	require.NoError(t, shared.err)
	return shared.f
}

func buildFixture(t testing.TB, dir, realLog string) (*corpusFixture, error) {
	ctx := context.Background()
	s, err := archive.Open(ctx, filepath.Join(dir, "logbook.db"))
	if err != nil {
		return nil, err
	}
	f := &corpusFixture{store: s, byID: map[string]archive.Block{}}
	fr := s.ImportFile(ctx, realLog, archive.ImportOptions{})
	if fr.Error != nil {
		return nil, fmt.Errorf("import real log: %s", fr.Error.Message)
	}
	f.real = fr.SessionID
	for _, o := range genOptions {
		path, err := dshgen.Generate(o).WriteFile(filepath.Join(dir, "logs"), true)
		if err != nil {
			return nil, err
		}
		fr := s.ImportFile(ctx, path, archive.ImportOptions{})
		if fr.Error != nil {
			return nil, fmt.Errorf("import generated log: %s", fr.Error.Message)
		}
		f.gen = append(f.gen, fr.SessionID)
	}
	if f.ix, err = Open(filepath.Join(dir, "index")); err != nil {
		return nil, err
	}
	start := time.Now()
	st, err := f.ix.Sync(ctx, s, nil)
	if err != nil {
		return nil, err
	}
	t.Logf("fixture: indexed %d sessions, %d docs in %v", st.Indexed, st.Docs, time.Since(start))
	for _, id := range append([]string{f.real}, f.gen...) {
		if _, err := s.SessionBlocks(ctx, id, func(b archive.Block) error {
			f.blocks = append(f.blocks, b)
			f.byID[b.ID] = b
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// want returns the IDs of the fixture's blocks that keep says match, sorted.
func (f *corpusFixture) want(keep func(archive.Block) bool) []string {
	var ids []string
	for _, b := range f.blocks {
		if keep(b) {
			ids = append(ids, b.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.f != nil {
		_ = shared.f.ix.Close()
		_ = shared.f.store.Close()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}
