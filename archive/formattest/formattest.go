// Package formattest is the conformance suite every log format of the archive must
// pass, the way restic runs one suite against every backend. A format's test calls
// Run with a Fixture that writes its sources; the suite imports them into a real
// archive and checks what the archive promises whatever the format: re-importing
// changes nothing, damage is reported with a location, events of unknown kinds are
// kept, the export gives back the source's bytes, an import stopped after a
// committed batch resumes to the archive an uninterrupted import builds, and a
// source that grew is read on from where it stopped, at the cost of what was added.
package formattest

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
)

// Source is one session source a fixture wrote, and what the archive must make of it.
type Source struct {
	Path      string // the file or folder to import
	SessionID string
	Events    int64  // logical events the source holds
	Export    []byte // what the archive's export of the session must give back, byte for byte
	// Files, when set, are the source's files by name (a folder source's paths
	// inside it, with forward slashes): the archive's export of the original files
	// (Store.ExportOriginal) must give back each, byte for byte, and nothing else.
	// Export is then not checked.
	Files map[string][]byte
}

// Damage is a source with one known fault, and how it must be reported.
type Damage struct {
	Name    string
	Path    string
	Verdict archive.Verdict // recovered, corrupt or unsupported
	Kind    archive.Kind
	// Line is the 1-based line (or event file) the problem must name; when it is
	// negative the damage is in the container, and the problem must name a byte
	// offset instead.
	Line int64
}

// Fixture is what a format gives the suite. Each function writes under dir (a fresh
// temporary folder) and may be called more than once.
type Fixture struct {
	// Valid writes a valid source of at least 40 records (it may have warnings).
	Valid func(t testing.TB, dir string) Source
	// Unknown writes a valid source holding events of a kind the format does not
	// know, each reported as a warning of kind UnknownKind.
	Unknown     func(t testing.TB, dir string) Source
	UnknownKind archive.Kind
	// Damaged writes sources with one fault each.
	Damaged func(t testing.TB, dir string) []Damage
	// Growing writes a valid source of at least 40 records as it stood partway
	// through its session, and returns grow, which adds the rest of it as the agent
	// does (appending to the file, adding files to the folder) and returns the
	// source it then is.
	Growing func(t testing.TB, dir string) (before Source, grow func() Source)
}

// Run runs the suite.
func Run(t *testing.T, fx Fixture) {
	t.Run("ReimportChangesNothing", func(t *testing.T) { reimportChangesNothing(t, fx) })
	t.Run("ExportIsByteIdentical", func(t *testing.T) { exportIsByteIdentical(t, fx) })
	t.Run("UnknownKindsAreKept", func(t *testing.T) { unknownKindsAreKept(t, fx) })
	t.Run("DamageHasALocation", func(t *testing.T) { damageHasALocation(t, fx) })
	t.Run("InterruptedImportResumes", func(t *testing.T) { interruptedImportResumes(t, fx) })
	t.Run("GrownSourceCostsOnlyTheNewPart", func(t *testing.T) { grownSourceCostsOnlyTheNewPart(t, fx) })
}

func reimportChangesNothing(t *testing.T, fx Fixture) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	src := fx.Valid(t, t.TempDir())
	first := importOne(t, s, src.Path, archive.ImportOptions{})
	require.Equal(t, archive.VerdictOK, first.Verdict, "%+v", first.Error)
	assert.Equal(t, "new", first.Action)
	assert.Equal(t, src.SessionID, first.SessionID)
	assert.Equal(t, src.Events, first.LogicalEvents)
	assert.NotEmpty(t, first.Agent, "the report names the format that read the source")
	assert.NotEmpty(t, first.Format, "and the source's layout")
	revs, err := s.Revisions(ctx)
	require.NoError(t, err)
	sess := session(t, s, src.SessionID)

	again := importOne(t, s, src.Path, archive.ImportOptions{})
	assert.Equal(t, "unchanged", again.Action)
	assert.False(t, again.Changed)
	assert.Equal(t, first.Verdict, again.Verdict)
	assert.Equal(t, first.LogicalEvents, again.LogicalEvents)
	assert.Equal(t, first.Warnings, again.Warnings)
	assert.Equal(t, first.Agent, again.Agent)
	assert.Equal(t, first.Format, again.Format)
	revsAgain, err := s.Revisions(ctx)
	require.NoError(t, err)
	assert.Equal(t, revs, revsAgain, "no session's revision moved")
	assert.Equal(t, sess, session(t, s, src.SessionID))
}

func exportIsByteIdentical(t *testing.T, fx Fixture) {
	s := archivetest.MustOpen(t)
	src := fx.Valid(t, t.TempDir())
	fr := importOne(t, s, src.Path, archive.ImportOptions{})
	require.Equal(t, archive.VerdictOK, fr.Verdict, "%+v", fr.Error)
	assertExport(t, s, src)
}

func unknownKindsAreKept(t *testing.T, fx Fixture) {
	s := archivetest.MustOpen(t)
	src := fx.Unknown(t, t.TempDir())
	fr := importOne(t, s, src.Path, archive.ImportOptions{})
	require.Equal(t, archive.VerdictOK, fr.Verdict, "an unknown kind is no damage: %+v", fr.Error)
	var unknown int
	for _, w := range fr.Warnings {
		if w.Kind == fx.UnknownKind {
			unknown++
			assert.Positive(t, w.Line, "the warning names where the event is: %+v", w)
		}
	}
	assert.Positive(t, unknown, "each unknown kind is a warning of kind %s: %+v", fx.UnknownKind, fr.Warnings)
	assert.Equal(t, src.Events, fr.LogicalEvents, "unknown events are counted")
	assert.Equal(t, src.Events, session(t, s, src.SessionID).Events, "and stored")
	assertExport(t, s, src)
}

func damageHasALocation(t *testing.T, fx Fixture) {
	s := archivetest.MustOpen(t)
	cases := fx.Damaged(t, t.TempDir())
	require.NotEmpty(t, cases)
	for _, c := range cases {
		fr := importOne(t, s, c.Path, archive.ImportOptions{})
		if !assert.Equal(t, c.Verdict, fr.Verdict, "%s: %+v", c.Name, fr.Error) || !assert.NotNil(t, fr.Error, c.Name) {
			continue
		}
		p := fr.Error
		assert.Equal(t, c.Kind, p.Kind, "%s: %s", c.Name, p.Message)
		assert.NotEmpty(t, p.Message, c.Name)
		if c.Line >= 0 {
			assert.Equal(t, c.Line, p.Line, "%s: the problem names its line: %s", c.Name, p.Message)
		} else {
			assert.GreaterOrEqual(t, p.Offset, int64(0), "%s: the problem names its offset: %s", c.Name, p.Message)
		}
		stored, err := s.FileProblems(context.Background(), c.Path)
		require.NoError(t, err)
		if assert.NotEmpty(t, stored, "%s: the problem is kept", c.Name) {
			assert.Equal(t, *p, stored[0], "%s: the archive keeps the problem as reported", c.Name)
		}
	}
}

func interruptedImportResumes(t *testing.T, fx Fixture) {
	ctx := context.Background()
	src := fx.Valid(t, t.TempDir())

	whole := archivetest.MustOpen(t)
	fr := importOne(t, whole, src.Path, archive.ImportOptions{})
	require.Equal(t, archive.VerdictOK, fr.Verdict, "%+v", fr.Error)
	records := fr.Records
	require.GreaterOrEqual(t, records, int64(40), "the fixture's source is long enough to commit in batches")

	// Stop the run as its first batch commits: what the batch holds is kept, and the
	// next import goes on from there.
	s := archivetest.MustOpen(t)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := importOneCtx(cctx, t, s, src.Path, archive.ImportOptions{BatchRecords: int(records / 4),
		Committed: func(string, int64) { cancel() }})
	assert.Equal(t, archive.VerdictFailed, stopped.Verdict, "an interrupted run says nothing of the source")
	if assert.NotNil(t, stopped.Error) {
		assert.Equal(t, archive.KindInterrupted, stopped.Error.Kind)
	}
	cancel()
	partial := session(t, s, src.SessionID)
	assert.Positive(t, partial.Records, "the committed batch is archived")
	assert.Less(t, partial.Records, records)

	resumed := importOneCtx(ctx, t, s, src.Path, archive.ImportOptions{})
	assert.Equal(t, archive.VerdictOK, resumed.Verdict, "%+v", resumed.Error)
	assert.Equal(t, "appended", resumed.Action, "the import goes on from the committed batch")
	assert.Equal(t, fr.Records, resumed.Records)
	assert.Equal(t, fr.LogicalEvents, resumed.LogicalEvents)
	assertExport(t, s, src)
	assert.Equal(t, session(t, whole, src.SessionID), session(t, s, src.SessionID), "the same session as one uninterrupted import")
	for name, get := range map[string]func(*archive.Store) any{
		"messages": func(st *archive.Store) any {
			v, err := st.Messages(ctx, src.SessionID)
			require.NoError(t, err)
			return v
		},
		"tool calls": func(st *archive.Store) any {
			v, err := st.ToolCalls(ctx, src.SessionID)
			require.NoError(t, err)
			return v
		},
		"timeline": func(st *archive.Store) any {
			v, err := st.Timeline(ctx, src.SessionID, archive.TimelineQuery{Limit: archive.MaxTimelineLimit})
			require.NoError(t, err)
			return v
		},
	} {
		assert.Equal(t, get(whole), get(s), "the same %s as one uninterrupted import", name)
	}
}

func grownSourceCostsOnlyTheNewPart(t *testing.T, fx Fixture) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	before, grow := fx.Growing(t, t.TempDir())
	sizeBefore := size(t, before.Path)
	first := importOne(t, s, before.Path, archive.ImportOptions{})
	require.Equal(t, archive.VerdictOK, first.Verdict, "%+v", first.Error)
	assert.Equal(t, before.Events, first.LogicalEvents)
	assertExport(t, s, before)

	after := grow()
	require.Equal(t, before.Path, after.Path)
	grown := importOne(t, s, after.Path, archive.ImportOptions{})
	require.Equal(t, archive.VerdictOK, grown.Verdict, "%+v", grown.Error)
	assert.Equal(t, "appended", grown.Action, "a grown source is read on from where it stopped")
	assert.Equal(t, after.Events, grown.LogicalEvents)
	assert.Positive(t, grown.Bytes)
	assert.LessOrEqual(t, grown.Bytes, size(t, after.Path)-sizeBefore,
		"the import read only what was added, not the source again")
	assertExport(t, s, after)

	whole := archivetest.MustOpen(t)
	fr := importOne(t, whole, after.Path, archive.ImportOptions{})
	require.Equal(t, archive.VerdictOK, fr.Verdict, "%+v", fr.Error)
	assert.Equal(t, session(t, whole, after.SessionID), session(t, s, after.SessionID), "the same session as one import of the grown source")
	msgs := func(st *archive.Store) []archive.Message {
		v, err := st.Messages(ctx, after.SessionID)
		require.NoError(t, err)
		return v
	}
	assert.Equal(t, msgs(whole), msgs(s))
}

// importOne imports path (on its own, as a walk would not) and returns its report.
func importOne(t testing.TB, s *archive.Store, path string, opts archive.ImportOptions) archive.FileReport {
	t.Helper()
	return importOneCtx(context.Background(), t, s, path, opts)
}

func importOneCtx(ctx context.Context, t testing.TB, s *archive.Store, path string, opts archive.ImportOptions) archive.FileReport {
	t.Helper()
	rep, err := s.Import(ctx, []string{path}, opts)
	if ctx.Err() == nil {
		require.NoError(t, err)
	}
	require.NotNil(t, rep)
	require.Len(t, rep.Files, 1)
	return rep.Files[0]
}

// size is the bytes of a source: a file's, or the sum of a folder's files.
func size(t testing.TB, path string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, filepath.WalkDir(path, func(_ string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		fi, err := e.Info()
		n += fi.Size()
		return err
	}))
	return n
}

func session(t testing.TB, s *archive.Store, id string) archive.Session {
	t.Helper()
	sess, err := s.Session(context.Background(), id)
	require.NoError(t, err)
	return sess
}

func export(t testing.TB, s *archive.Store, id string) []byte {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, s.ExportJSONL(context.Background(), id, &out))
	return out.Bytes()
}

// assertExport checks the archive's export of a source's session: its JSONL, or
// its original files when the source lists them.
func assertExport(t testing.TB, s *archive.Store, src Source) {
	t.Helper()
	if src.Files == nil {
		assertSameBytes(t, src.Export, export(t, s, src.SessionID))
		return
	}
	dir := filepath.Join(t.TempDir(), "export")
	require.NoError(t, s.ExportOriginal(context.Background(), src.SessionID, dir))
	got := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		got[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	}))
	require.Equal(t, len(src.Files), len(got), "the export writes the source's files and no other")
	for name, want := range src.Files {
		assertSameBytes(t, want, got[name])
	}
}

// assertSameBytes compares byte streams and shows them as text when they differ.
func assertSameBytes(t testing.TB, want, got []byte) {
	t.Helper()
	assert.Equal(t, string(want), string(got), "the export gives back the source's bytes")
}
