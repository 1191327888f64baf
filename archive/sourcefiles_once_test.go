package archive_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// assertExportsTree exports a session's files and compares them, byte for
// byte, with the folder they were imported from.
func assertExportsTree(t *testing.T, s *archive.Store, id, src string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, s.ExportOriginal(context.Background(), id, out))
	n := 0
	require.NoError(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		require.NoError(t, err)
		want, err := os.ReadFile(p)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(out, rel))
		require.NoError(t, err, rel)
		assert.Equal(t, want, got, rel)
		n++
		return nil
	}))
	assert.Positive(t, n)
}

// TestOpenHandsEventFilesKeptOnce imports an SDK conversation of compact event
// files: each event file is kept once, as its record, and comes back byte for
// byte; a rewrite of one keeps its earlier bytes whole.
func TestOpenHandsEventFilesKeptOnce(t *testing.T) {
	ctx := context.Background()
	facts, s, rep, d := importConversation(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 21, Turns: 6})
	conv := facts.Unit.Path
	events := queryInt(t, d, `SELECT count(*) FROM source_files WHERE role = 'event'`)
	assert.EqualValues(t, facts.Events, events)
	assert.Equal(t, events, queryInt(t, d, `SELECT count(*) FROM source_files WHERE role = 'event' AND line IS NOT NULL AND length(data) = 0`),
		"every compact event file is kept as its record only")
	assert.Zero(t, queryInt(t, d, `SELECT count(*) FROM source_files WHERE role != 'event' AND (line IS NOT NULL OR length(data) = 0)`))
	assertExportsTree(t, s, rep.SessionID, conv)
	l, err := s.EventLog(ctx, rep.SessionID)
	require.NoError(t, err)
	page, err := l.Search(ctx, archive.EventQuery{Limit: 3})
	require.NoError(t, err)
	require.Len(t, page.Items, 3)

	// Rewritten: the session's records are superseded, and with them the bytes
	// of the files kept as them: those get their bytes back first.
	names, err := filepath.Glob(filepath.Join(conv, "events", "event-*.json"))
	require.NoError(t, err)
	assertRewriteKeepsOld(t, s, d, rep.SessionID, conv, names[4], `"note":"edited","id"`)
	assert.Equal(t, events, queryInt(t, d, `SELECT count(*) FROM source_files WHERE role = 'event' AND superseded_at IS NULL AND line IS NOT NULL AND length(data) = 0`),
		"after the rewrite, the current files are kept as their records again")
}

// importConversation generates a conversation and imports it into a new archive.
func importConversation(t *testing.T, o openhandsgen.Options) (openhandsgen.Facts, *archive.Store, archive.FileReport, *sql.DB) {
	t.Helper()
	facts, err := openhandsgen.Generate(t.TempDir(), o)
	require.NoError(t, err)
	s := archivetest.MustOpen(t)
	rep := importOne(t, s, facts.Unit.Path)
	require.Equal(t, archive.VerdictOK, rep.Verdict, "%+v", rep.Error)
	return facts, s, rep, db(t, s)
}

// assertRewriteKeepsOld rewrites the event file victim of the conversation
// conv (its "id" key becomes idWith) and imports it again: the conversation
// exports as it now is, and the version before keeps its bytes whole in its
// own row.
func assertRewriteKeepsOld(t *testing.T, s *archive.Store, d *sql.DB, id, conv, victim, idWith string) {
	t.Helper()
	old, err := os.ReadFile(victim)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(victim, bytes.Replace(old, []byte(`"id"`), []byte(idWith), 1), 0o644))
	re := importOne(t, s, conv)
	require.Equal(t, "rewritten", re.Action)
	require.Equal(t, archive.VerdictOK, re.Verdict, "%+v", re.Error)
	assertExportsTree(t, s, id, conv)
	sum := sha256.Sum256(old)
	var data []byte
	var line *int64
	require.NoError(t, d.QueryRow(`SELECT data, line FROM source_files WHERE name = ? AND superseded_at IS NOT NULL AND hash = ?`,
		"events/"+filepath.Base(victim), hex.EncodeToString(sum[:])).Scan(&data, &line))
	assert.Nil(t, line)
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	plain, err := dec.DecodeAll(data, nil)
	require.NoError(t, err)
	assert.Equal(t, old, plain, "the superseded version keeps its bytes")
}

// TestOpenHandsPrettyFilesKeptOnce imports an SDK conversation whose event
// files are pretty-printed (indent=2), which their one-line records are not
// byte for byte: each is kept as its record and the whitespace it lost, once,
// and comes back byte for byte from an export, the events API and a rewrite.
// Kept whole beside their records, the files took several times the bytes of
// the records' blocks; their layouts take a small part of those.
func TestOpenHandsPrettyFilesKeptOnce(t *testing.T) {
	ctx := context.Background()
	pretty := openhandsgen.Pretty
	pf, s, rep, d := importConversation(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 22, Turns: 40, Style: &pretty})
	conv := pf.Unit.Path
	pk := queryInt(t, d, `SELECT pk FROM sessions WHERE id = ?`, rep.SessionID)
	assert.EqualValues(t, pf.Events, queryInt(t, d, `SELECT count(*) FROM source_files
		WHERE session_pk = ? AND role = 'event' AND line IS NOT NULL AND length(data) > 0`, pk),
		"every pretty-printed event file is kept as its record and its layout")
	layouts := queryInt(t, d, `SELECT sum(length(data)) FROM source_files WHERE session_pk = ? AND role = 'event'`, pk)
	blocks := queryInt(t, d, `SELECT sum(length(data)) FROM blocks WHERE session_pk = ?`, pk)
	t.Logf("layouts %d bytes, blocks %d bytes", layouts, blocks)
	assert.Less(t, layouts*3, blocks, "the files' layouts are a small part of what their records take")
	assertExportsTree(t, s, rep.SessionID, conv)

	// The events API serves each event as its file's bytes.
	l, err := s.EventLog(ctx, rep.SessionID)
	require.NoError(t, err)
	page, err := l.Search(ctx, archive.EventQuery{Limit: 100})
	require.NoError(t, err)
	require.NotEmpty(t, page.Items)
	files := map[string]bool{}
	names, err := filepath.Glob(filepath.Join(conv, "events", "event-*.json"))
	require.NoError(t, err)
	for _, n := range names {
		b, err := os.ReadFile(n)
		require.NoError(t, err)
		require.True(t, bytes.Contains(b, []byte("\n  ")), "pretty-printed: %s", n)
		files[string(b)] = true
	}
	for _, it := range page.Items {
		assert.True(t, files[string(it)], "an event comes back as its file's bytes: %.80s", it)
	}

	// Rewritten: the files kept as records get their bytes back, whole, before
	// their records are superseded.
	assertRewriteKeepsOld(t, s, d, rep.SessionID, conv, names[3], "\"note\": \"edited\",\n  \"id\"")
}

// TestOpenHandsKeptFilesOldForm reads an archive whose event files are kept in
// their own rows, as before migration 0009: export, the events API and a
// rewrite all read that form.
func TestOpenHandsKeptFilesOldForm(t *testing.T) {
	ctx := context.Background()
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 23, Turns: 4})
	require.NoError(t, err)
	conv := facts.Unit.Path
	s := archivetest.MustOpen(t)
	rep := importOne(t, s, conv)
	require.Equal(t, archive.VerdictOK, rep.Verdict, "%+v", rep.Error)
	d := db(t, s)
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	defer enc.Close()
	rows, err := d.Query(`SELECT name FROM source_files WHERE line IS NOT NULL`)
	require.NoError(t, err)
	var names []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		names = append(names, n)
	}
	require.NoError(t, rows.Close())
	require.NotEmpty(t, names)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(conv, filepath.FromSlash(n)))
		require.NoError(t, err)
		_, err = d.Exec(`UPDATE source_files SET data = ?, line = NULL, hash_state = NULL WHERE name = ?`, enc.EncodeAll(b, nil), n)
		require.NoError(t, err)
	}
	assertExportsTree(t, s, rep.SessionID, conv)
	l, err := s.EventLog(ctx, rep.SessionID)
	require.NoError(t, err)
	page, err := l.Search(ctx, archive.EventQuery{Limit: 2})
	require.NoError(t, err)
	require.Len(t, page.Items, 2)

	evs, err := filepath.Glob(filepath.Join(conv, "events", "event-*.json"))
	require.NoError(t, err)
	old, err := os.ReadFile(evs[2])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(evs[2], bytes.Replace(old, []byte(`"id"`), []byte(`"x":1,"id"`), 1), 0o644))
	re := importOne(t, s, conv)
	require.Equal(t, "rewritten", re.Action)
	assertExportsTree(t, s, rep.SessionID, conv)
}

// TestOpenHandsJSONLGrowthKeptInParts grows an agent-server events.jsonl three
// times: each growth adds its own bytes as one part (the row's first bytes are
// not packed again), the kept hash is the whole file's, and the file comes
// back byte for byte, also when the row was written before hash states were
// kept.
func TestOpenHandsJSONLGrowthKeptInParts(t *testing.T) {
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutJSONL, Seed: 24, Turns: 8})
	require.NoError(t, err)
	path := facts.Unit.Path
	full, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.SplitAfter(full, []byte("\n"))
	require.Greater(t, len(lines), 8)
	s := archivetest.MustOpen(t)
	d := db(t, s)
	var id string
	var first int64
	for i, cut := range []int{len(lines) / 4, len(lines) / 2, 3 * len(lines) / 4, len(lines)} {
		now := bytes.Join(lines[:cut], nil)
		require.NoError(t, os.WriteFile(path, now, 0o644))
		if i == 2 {
			_, err := d.Exec(`UPDATE source_files SET hash_state = NULL`)
			require.NoError(t, err)
		}
		rep := importOne(t, s, path)
		require.Equal(t, archive.VerdictOK, rep.Verdict, "%+v", rep.Error)
		id = rep.SessionID
		size := queryInt(t, d, `SELECT length(data) FROM source_files WHERE superseded_at IS NULL`)
		if i == 0 {
			first = size
		}
		assert.Equal(t, first, size, "growth %d leaves the first bytes as they were packed", i)
		assert.EqualValues(t, i, queryInt(t, d, `SELECT count(*) FROM source_file_parts`))
		kept, err := s.KeptFiles(context.Background(), id)
		require.NoError(t, err)
		require.Len(t, kept, 1)
		sum := sha256.Sum256(now)
		assert.Equal(t, hex.EncodeToString(sum[:]), kept[0].Hash)
		assert.EqualValues(t, len(now), kept[0].Size)
		out := filepath.Join(t.TempDir(), "out")
		require.NoError(t, s.ExportOriginal(context.Background(), id, out))
		got, err := os.ReadFile(filepath.Join(out, filepath.Base(path)))
		require.NoError(t, err)
		assert.Equal(t, now, got)
	}
}

// TestOpenHandsInterruptedKeepsFiles interrupts an import after its first
// committed batch: what is committed holds the files of its records (those
// kept as records among them), and the import that resumes keeps the rest, so
// the export is the folder byte for byte.
func TestOpenHandsInterruptedKeepsFiles(t *testing.T) {
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 25, Turns: 8})
	require.NoError(t, err)
	conv := facts.Unit.Path
	s := archivetest.MustOpen(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	commits := 0
	_, err = s.Import(ctx, []string{conv}, archive.ImportOptions{BatchRecords: 7, Committed: func(string, int64) {
		commits++
		cancel()
	}})
	require.Error(t, err)
	require.Equal(t, 1, commits)
	d := db(t, s)
	refs := queryInt(t, d, `SELECT count(*) FROM source_files WHERE line IS NOT NULL`)
	assert.EqualValues(t, 7, refs, "the first batch's event files, kept as its records")
	assert.Zero(t, queryInt(t, d, `SELECT count(*) FROM source_files sf WHERE line IS NOT NULL AND NOT EXISTS
		(SELECT 1 FROM blocks b WHERE b.session_pk = sf.session_pk AND sf.line BETWEEN b.first_line AND b.last_line)`),
		"no file is kept as a record that is not archived")
	rep := importOne(t, s, conv)
	require.Equal(t, archive.VerdictOK, rep.Verdict, "%+v", rep.Error)
	assert.EqualValues(t, facts.Events, rep.LogicalEvents)
	assert.EqualValues(t, facts.Events, queryInt(t, d, `SELECT count(*) FROM source_files WHERE line IS NOT NULL`))
	assertExportsTree(t, s, rep.SessionID, conv)
}
