package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhands/openhandstest"
	"github.com/logbook/logbook/archive/openhandsgen"
	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/export/exporttest"
)

// bundleRoundTrip exports args (a bundle's selection) from data into a bundle,
// imports it into a fresh data dir and returns that dir and the bundle.
func bundleRoundTrip(t *testing.T, data string, args ...string) (fresh, bundle string) {
	t.Helper()
	bundle = filepath.Join(t.TempDir(), "b.logbook")
	r := cliData(t, data, append([]string{"export", "--format", "bundle", "-o", bundle}, args...)...)
	require.Equal(t, 0, r.code, r.stderr)
	fresh = t.TempDir()
	r = cliData(t, fresh, "import", bundle)
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "imported as exported")
	return fresh, bundle
}

// sessionHealth maps each session of data to its health.
func sessionHealth(t *testing.T, data string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range mustJSON[[]map[string]any](t, data, "sessions", "--json") {
		out[s["id"].(string)] = s["health"].(string)
	}
	return out
}

// assertSameOriginals checks that every session of src comes back from dst
// byte for byte: a dsh session's JSONL, an OpenHands conversation's files.
func assertSameOriginals(t *testing.T, src, dst string, ids map[string]string) {
	t.Helper()
	for id, agent := range ids {
		if agent == "dsh" {
			a := cliData(t, src, "export", id)
			require.Equal(t, 0, a.code, a.stderr)
			b := cliData(t, dst, "export", id)
			require.Equal(t, 0, b.code, b.stderr)
			assert.True(t, a.stdout == b.stdout, "session %s: the JSONL differs (%d and %d bytes)", id, len(a.stdout), len(b.stdout))
			continue
		}
		da, db := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
		r := cliData(t, src, "export", id, "--format", "openhands", "-o", da)
		require.Equal(t, 0, r.code, r.stderr)
		r = cliData(t, dst, "export", id, "--format", "openhands", "-o", db)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, openhandstest.ReadTree(t, da), openhandstest.ReadTree(t, db), "session %s: the original files differ", id)
	}
}

// TestBundleRealLog: the real 87k-event log goes through a bundle into a fresh
// data dir with the same verdict and byte-identical JSONL.
func TestBundleRealLog(t *testing.T) {
	p := corpusPath(t)
	data := t.TempDir()
	r := cliData(t, data, "import", p)
	require.Equal(t, 0, r.code, r.stderr)
	fresh, _ := bundleRoundTrip(t, data, corpusSessionID)
	assert.Equal(t, sessionHealth(t, data), sessionHealth(t, fresh))
	assertSameOriginals(t, data, fresh, map[string]string{corpusSessionID: "dsh"})
	// The sources stay in the data dir: a second import of the bundle reuses
	// them and changes nothing.
	bundle := filepath.Join(t.TempDir(), "again.logbook")
	require.Equal(t, 0, cliData(t, data, "export", corpusSessionID, "--format", "bundle", "-o", bundle).code)
	rep := mustJSON[map[string]any](t, fresh, "import", "--json", bundle)
	for _, f := range objs(t, rep["files"]) {
		assert.Equal(t, "unchanged", f["action"], f["path"])
		assert.True(t, strings.HasPrefix(f["path"].(string), filepath.Join(fresh, export.BundlesDir)), f["path"])
	}
}

// TestBundleOpenHandsCorpus: every conversation of the real OpenHands corpus in
// one bundle, back with the same ids, verdicts and files.
func TestBundleOpenHandsCorpus(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "shared", "corpus", "openhands"))
	require.NoError(t, err)
	if _, err := os.Stat(root); err != nil {
		t.Skipf("corpus %s absent", root)
	}
	data := t.TempDir()
	r := cliData(t, data, "import", root)
	require.Equal(t, 0, r.code, r.stderr)
	health := sessionHealth(t, data)
	require.GreaterOrEqual(t, len(health), 10)
	var args []string
	ids := map[string]string{}
	for id := range health {
		args = append(args, "--session", id)
		ids[id] = "openhands"
	}
	fresh, _ := bundleRoundTrip(t, data, args...)
	assert.Equal(t, health, sessionHealth(t, fresh))
	assertSameOriginals(t, data, fresh, ids)
}

// TestBundleGenerated: a bundle of several generated sessions of both agents,
// chosen by time range, project and search, comes back whole; a damaged
// OpenHands file and a torn dsh tail keep their verdicts.
func TestBundleGenerated(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	ids := map[string]string{}
	for i, cwd := range []string{"/home/u/alpha", "/home/u/alpha", "/home/u/beta"} {
		l, _ := genLog(t, root, uint64(10+i), cwd, i == 1)
		ids[l.ID()] = "dsh"
	}
	// A torn tail: the log as written so far, cut inside its last line.
	torn, tp := genLog(t, filepath.Join(t.TempDir(), "torn"), 20, "/home/u/gamma", false)
	b, err := os.ReadFile(tp)
	require.NoError(t, err)
	tornPath := filepath.Join(root, "gamma", torn.ID(), "session.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(tornPath), 0o755))
	require.NoError(t, os.WriteFile(tornPath, b[:len(b)-7], 0o644))
	ids[torn.ID()] = "dsh"
	ohRoot := filepath.Join(root, "oh")
	for i, o := range []openhandsgen.Options{
		{Layout: openhands.LayoutSDK},
		{Layout: openhands.LayoutJSONL, Malformations: []openhandsgen.Malformation{openhandsgen.TornTail}},
		{Layout: openhands.LayoutV0Session},
		{Layout: openhands.LayoutV0Trajectory},
		{Layout: openhands.LayoutZip},
		{Layout: openhands.LayoutAppB},
	} {
		o.Seed = uint64(30 + i)
		_, err := openhandsgen.Generate(filepath.Join(ohRoot, string(o.Layout)), o)
		require.NoError(t, err)
	}
	r := cliData(t, data, "import", root)
	require.Equal(t, 0, r.code, r.stderr)
	health := sessionHealth(t, data)
	assert.Equal(t, "recovered", health[torn.ID()])
	recovered := 0
	for _, h := range health {
		if h == "recovered" {
			recovered++
		}
	}
	assert.Equal(t, 2, recovered, "the torn dsh tail and the torn OpenHands JSONL: %v", health)
	for id := range health {
		if ids[id] == "" {
			ids[id] = "openhands"
		}
	}
	require.Len(t, ids, 4+6, "every generated session is archived: %v", health)

	t.Run("TimeRange", func(t *testing.T) {
		bundle := filepath.Join(t.TempDir(), "all.logbook")
		r := cliData(t, data, "export", "--format", "bundle", "--since", "2000-01-01", "--until", "2100-01-01", "-o", bundle)
		require.Equal(t, 0, r.code, r.stderr)
		fresh := t.TempDir()
		r = cliData(t, fresh, "import", bundle)
		// The torn tails are recovered again, their tails kept aside (exit 0).
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "10 of 10 session(s) imported as exported", r.stderr)
		assert.Equal(t, health, sessionHealth(t, fresh))
		assertSameOriginals(t, data, fresh, ids)
	})
	t.Run("Project", func(t *testing.T) {
		fresh, bundle := bundleRoundTrip(t, data, "--project", "/home/u/alpha")
		got := sessionHealth(t, fresh)
		assert.Len(t, got, 2)
		for id := range got {
			assert.Equal(t, "dsh", ids[id])
		}
		// Back on the machine that has its sessions: checked, and kept once.
		r := cliData(t, data, "import", bundle)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "0 of 2 session(s) imported as exported, 2 archived already from another file")
		assert.Equal(t, health, sessionHealth(t, data))
	})
	t.Run("NothingChosen", func(t *testing.T) {
		r := cliData(t, data, "export", "--format", "bundle", "--since", "2100-01-01", "-o", filepath.Join(t.TempDir(), "x.logbook"))
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "no session is active since")
		r = cliData(t, data, "export", "--format", "md", "--project", "/home/u/alpha")
		assert.Equal(t, 2, r.code, "a selection is for bundles")
	})
}

// TestBundleQuery: --query puts the sessions a search finds in the bundle.
func TestBundleQuery(t *testing.T) {
	data, a, b := importGenerated(t)
	bundle := filepath.Join(t.TempDir(), "q.logbook")
	r := cliData(t, data, "export", "--format", "bundle", "--query", "session:"+a.ID(), "-o", bundle)
	require.Equal(t, 0, r.code, r.stderr)
	files := readZip(t, bundle)
	assert.Contains(t, string(files["manifest.json"]), a.ID())
	assert.NotContains(t, string(files["manifest.json"]), b.ID())
	r = cliData(t, data, "export", "--format", "bundle", "--query", "(", "-o", bundle+"2")
	assert.Equal(t, 2, r.code, "a query that does not parse is a usage error: %s", r.stderr)
}

// rewriteZip copies the bundle src to a new file, passing each entry through
// change (which may drop it by returning nil), and adds extra entries.
func rewriteZip(t *testing.T, src string, change func(name string, b []byte) []byte, extra map[string]string) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	require.NoError(t, err)
	defer zr.Close()
	dst := filepath.Join(t.TempDir(), "x.logbook")
	f, err := os.Create(dst)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for _, e := range zr.File {
		rc, err := e.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
		if b = change(e.Name, b); b == nil {
			continue
		}
		w, err := zw.Create(e.Name)
		require.NoError(t, err)
		_, err = w.Write(b)
		require.NoError(t, err)
	}
	addZipFiles(t, zw, extra)
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return dst
}

// addZipFiles writes files (name → body) into zw.
func addZipFiles(t *testing.T, zw *zip.Writer, files map[string]string) {
	t.Helper()
	for name, body := range files {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write([]byte(body))
		require.NoError(t, err)
	}
}

// flipIn copies the bundle src with one byte flipped in the middle of the stored
// (compressed) bytes of the first entry whose name has prefix.
func flipIn(t *testing.T, src, prefix string) string {
	t.Helper()
	raw, err := os.ReadFile(src)
	require.NoError(t, err)
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	require.NoError(t, err)
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, prefix) {
			off, err := f.DataOffset()
			require.NoError(t, err)
			raw[off+int64(f.CompressedSize64)/2] ^= 0xff
			p := filepath.Join(t.TempDir(), "flip.logbook")
			require.NoError(t, os.WriteFile(p, raw, 0o644))
			return p
		}
	}
	t.Fatalf("no entry %s* in %s", prefix, src)
	return ""
}

// TestBundleDamaged: a bundle that does not match its manifest, is cut short or
// is no bundle at all is reported with an error naming what is wrong, and the
// session whose original bytes are at fault is not imported, nor anything of it
// left behind. A damaged readable copy or an entry outside every session's source
// costs only that entry: the session, checked whole, is imported.
func TestBundleDamaged(t *testing.T) {
	data, a, _ := importGenerated(t)
	good := filepath.Join(t.TempDir(), "good.logbook")
	r := cliData(t, data, "export", "--format", "bundle", "--session", a.ID(), "-o", good)
	require.Equal(t, 0, r.code, r.stderr)
	raw, err := os.ReadFile(good)
	require.NoError(t, err)
	source := "sessions/1/source/"
	cut := filepath.Join(t.TempDir(), "cut.logbook")
	require.NoError(t, os.WriteFile(cut, raw[:len(raw)*2/3], 0o644))
	text := filepath.Join(t.TempDir(), "text.logbook")
	require.NoError(t, os.WriteFile(text, []byte("hello\n"), 0o644))

	tests := []struct {
		name, file, want string
		imported         bool // the session comes through
	}{
		{"Tampered", rewriteZip(t, good, func(name string, b []byte) []byte {
			if strings.HasPrefix(name, source) {
				return bytes.Replace(b, []byte(`"type"`), []byte(`"typo"`), 1)
			}
			return b
		}, nil), "SHA-256", false},
		{"Missing", rewriteZip(t, good, func(name string, b []byte) []byte {
			if strings.HasPrefix(name, source) {
				return nil
			}
			return b
		}, nil), "listed in the manifest but missing", false},
		{"Unlisted", rewriteZip(t, good, func(_ string, b []byte) []byte { return b },
			map[string]string{"sessions/1/extra.jsonl": "{}\n"}), "entry sessions/1/extra.jsonl: in the bundle but not in its manifest", true},
		{"NoManifest", rewriteZip(t, good, func(name string, b []byte) []byte {
			if name == "manifest.json" {
				return nil
			}
			return b
		}, nil), "not a Logbook bundle", false},
		{"Truncated", cut, "not a zip file, or a truncated one", false},
		{"FlippedSource", flipIn(t, good, source), "entry " + source, false},
		{"FlippedCopy", flipIn(t, good, "sessions/1/session.html"), "entry sessions/1/session.html: damaged", true},
		{"NotABundle", text, "not a Logbook bundle", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fresh := t.TempDir()
			r := cliData(t, fresh, "import", tc.file)
			assert.Equal(t, 1, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
			assert.Contains(t, r.stderr+r.stdout, "nothing was imported from it")
			if tc.imported {
				assert.Equal(t, map[string]string{a.ID(): "ok"}, sessionHealth(t, fresh))
				assertSameOriginals(t, data, fresh, map[string]string{a.ID(): "dsh"})
				return
			}
			assert.Empty(t, sessionHealth(t, fresh), "nothing is imported")
			left, _ := os.ReadDir(filepath.Join(fresh, export.BundlesDir))
			assert.Empty(t, left, "nothing is left unpacked")
		})
	}
}

// TestBundleDamagedOneOfMany: in a bundle of three sessions, one whose source
// entry was changed is not imported and is reported by session and entry (a
// corrupt, skipped entry of the JSON report); the other two are, and so is a log
// named beside the bundle. The whole bundle, imported after, adds the missing one.
func TestBundleDamagedOneOfMany(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	var ids []string
	for i := range 3 {
		l, _ := genLog(t, root, uint64(40+i), "/home/u/many", false)
		ids = append(ids, l.ID())
	}
	require.Equal(t, 0, cliData(t, data, "import", root).code)
	good := filepath.Join(t.TempDir(), "many.logbook")
	r := cliData(t, data, "export", "--format", "bundle", "--session", ids[0], "--session", ids[1], "--session", ids[2], "-o", good)
	require.Equal(t, 0, r.code, r.stderr)
	bad := rewriteZip(t, good, func(name string, b []byte) []byte {
		if strings.HasPrefix(name, "sessions/2/source/") {
			return b[:len(b)/2] // cut short
		}
		return b
	}, nil)
	other, otherPath := genLog(t, t.TempDir(), 50, "/home/u/other", false)

	fresh := t.TempDir()
	r = cliData(t, fresh, "import", "--json", bad, otherPath)
	assert.Equal(t, 1, r.code, r.stderr)
	rep := decode[map[string]any](t, r.stdout)
	var skipped []map[string]any
	for _, f := range objs(t, rep["files"]) {
		assertReportShape(t, f)
		if f["action"] == "skipped" {
			skipped = append(skipped, f)
		}
	}
	require.Len(t, skipped, 1, r.stdout)
	assert.Equal(t, ids[1], skipped[0]["session_id"])
	assert.Equal(t, "corrupt", skipped[0]["verdict"])
	e := obj(t, skipped[0]["error"])
	assert.Equal(t, "bundle-damaged", e["kind"])
	assert.Contains(t, e["message"], "entry sessions/2/source/")
	assert.Contains(t, e["message"], "nothing was imported from it")
	assert.Contains(t, r.stderr, "session "+ids[1]+" was not imported: its entry sessions/2/source/")
	assert.Contains(t, r.stderr, "2 of 3 session(s) imported as exported")
	assert.Equal(t, map[string]string{ids[0]: "ok", ids[2]: "ok", other.ID(): "ok"}, sessionHealth(t, fresh))

	r = cliData(t, fresh, "import", good)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, sessionHealth(t, fresh), 4)
	assertSameOriginals(t, data, fresh, map[string]string{ids[0]: "dsh", ids[1]: "dsh", ids[2]: "dsh"})
}

// TestBundleWalk: a folder named to import is walked for bundles too; each
// gives the same report entries as when named, a damaged one is reported while
// the rest goes on, and a second import of the folder changes nothing.
func TestBundleWalk(t *testing.T) {
	data, a, b := importGenerated(t)
	root := t.TempDir()
	// A log beside the bundles, imported as before.
	l, _ := genLog(t, filepath.Join(root, "logs"), 60, "/home/u/walk", false)
	bundle := filepath.Join(root, "shared", "deep", "AB.LOGBOOK")
	require.NoError(t, os.MkdirAll(filepath.Dir(bundle), 0o755))
	r := cliData(t, data, "export", "--format", "bundle", "--session", a.ID(), "--session", b.ID(), "-o", bundle)
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, os.WriteFile(filepath.Join(root, "shared", "cut.logbook"), []byte("PK\x03\x04cut"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "shared", "notes.zip"), []byte("not a bundle"), 0o644))

	named := t.TempDir()
	want := mustJSON[map[string]any](t, named, "import", "--json", bundle)

	fresh := t.TempDir()
	r = cliData(t, fresh, "import", "--json", root)
	assert.Equal(t, 1, r.code, "the cut bundle is reported: %s", r.stderr)
	got := fileByPath(t, decode[map[string]any](t, r.stdout))
	for _, f := range objs(t, want["files"]) {
		// The same entry, under this data dir's unpacked folder.
		p := strings.Replace(f["path"].(string), named, fresh, 1)
		g, ok := got[p]
		if assert.True(t, ok, "no report entry for %s in %v", p, got) {
			for _, k := range []string{"session_id", "verdict", "action", "records", "logical_events", "agent", "format"} {
				assert.Equal(t, f[k], g[k], "%s: %s", p, k)
			}
		}
	}
	cutReport := got[filepath.Join(root, "shared", "cut.logbook")]
	require.NotNil(t, cutReport, "the cut bundle has an entry: %v", got)
	assert.Equal(t, "corrupt", cutReport["verdict"])
	assert.Contains(t, obj(t, cutReport["error"])["message"], "not a zip file, or a truncated one")
	assert.Contains(t, r.stderr, "2 of 2 session(s) imported as exported")
	assert.Equal(t, map[string]string{a.ID(): "ok", b.ID(): "ok", l.ID(): "ok"}, sessionHealth(t, fresh))
	assertSameOriginals(t, data, fresh, map[string]string{a.ID(): "dsh", b.ID(): "dsh"})

	// Again: nothing changes, and the same entries come back.
	require.NoError(t, os.Remove(filepath.Join(root, "shared", "cut.logbook")))
	again := mustJSON[map[string]any](t, fresh, "import", "--json", root)
	files := objs(t, again["files"])
	assert.Len(t, files, 3)
	for _, f := range files {
		assert.Equal(t, "unchanged", f["action"], f["path"])
	}
}

// TestBundleRedacted: a redacted bundle holds readable copies only; importing
// it unpacks them, says so and adds nothing to the archive.
func TestBundleRedacted(t *testing.T) {
	data, id, secrets, names := importPlanted(t)
	red := filepath.Join(t.TempDir(), "r.logbook")
	r := cliData(t, data, "export", id, "--format", "bundle", "--redact", "--yes", "--redact-names", names, "-o", red)
	require.Equal(t, 0, r.code, r.stderr)
	fresh := t.TempDir()
	r = cliData(t, fresh, "import", red)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "is a redacted bundle")
	assert.Empty(t, sessionHealth(t, fresh))
	dirs, err := os.ReadDir(filepath.Join(fresh, export.BundlesDir))
	require.NoError(t, err)
	dirs = slices.DeleteFunc(dirs, func(d os.DirEntry) bool { return strings.HasPrefix(d.Name(), ".") }) // .stamps
	require.Len(t, dirs, 1)
	tree := openhandstest.ReadTree(t, filepath.Join(fresh, export.BundlesDir, dirs[0].Name()))
	assert.Contains(t, tree, "sessions/1/session.md")
	assert.Contains(t, tree["manifest.json"], `"redacted": true`)
	for name, body := range tree {
		for _, s := range secrets {
			assert.NotContains(t, body, s, "a planted secret in %s", name)
		}
	}
}

// TestBundleVersion1: a bundle of the first layout (one session's ID.jsonl,
// ID.md and ID.html at the top) is imported too.
func TestBundleVersion1(t *testing.T) {
	data, a, _ := importGenerated(t)
	jsonl := cliData(t, data, "export", a.ID())
	require.Equal(t, 0, jsonl.code)
	files := map[string]string{a.ID() + ".jsonl": jsonl.stdout, a.ID() + ".md": "# x\n", a.ID() + ".html": "<!doctype html>"}
	var list []string
	for name, body := range files {
		sum := sha256.Sum256([]byte(body))
		list = append(list, fmt.Sprintf(`{"name": %q, "bytes": %d, "sha256": %q}`, name, len(body), hex.EncodeToString(sum[:])))
	}
	files["manifest.json"] = fmt.Sprintf(`{"logbook_export": 1, "session": {"id": %q, "agent": "dsh"}, "files": [%s], "redaction": null}`,
		a.ID(), strings.Join(list, ", "))
	p := filepath.Join(t.TempDir(), "v1.zip")
	f, err := os.Create(p)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	addZipFiles(t, zw, files)
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())

	fresh := t.TempDir()
	r := cliData(t, fresh, "import", p)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "1 of 1 session(s) imported as exported")
	assertSameOriginals(t, data, fresh, map[string]string{a.ID(): "dsh"})
}

// TestBundleRedactedMany: sessions redacted together keep no planted secret in
// any of them, and the manifest records one summary.
func TestBundleRedactedMany(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	var secrets, names []string
	var ids []string
	for i, id := range []string{"session-planted-a", "session-planted-b"} {
		l, c := exporttest.Planted(uint64(7+i), id)
		_, err := l.WriteFile(root, false)
		require.NoError(t, err)
		ids = append(ids, l.ID())
		for _, o := range c.Occurrences {
			secrets = append(secrets, o.Value, o.Secret.Value)
		}
		names = append(names, c.UserNames...)
	}
	r := cliData(t, data, "import", root)
	require.Equal(t, 0, r.code, r.stderr)
	red := filepath.Join(t.TempDir(), "r.logbook")
	r = cliData(t, data, "export", "--format", "bundle", "--session", ids[0], "--session", ids[1],
		"--redact", "--yes", "--redact-names", strings.Join(names, ","), "-o", red)
	require.Equal(t, 0, r.code, r.stderr)
	files := readZip(t, red)
	assert.Len(t, files, 5, "two sessions' html and md, and the manifest")
	for name, b := range files {
		for _, s := range secrets {
			assert.NotContains(t, string(b), s, "a planted secret in %s", name)
		}
	}
	assert.Contains(t, string(files["sessions/2/session.md"]), "[REDACTED:")
}

// TestBundleSelectionErrors: a bad time or query is a usage error, and the file
// named by -o is not written.
func TestBundleSelectionErrors(t *testing.T) {
	data, _, _ := importGenerated(t)
	out := filepath.Join(t.TempDir(), "x.logbook")
	for _, args := range [][]string{
		{"--since", "yesterday"},
		{"--since", "2026-02-01", "--until", "2026-01-01"},
		{"--query", "kind:nope"},
		{},
	} {
		r := cliData(t, data, append([]string{"export", "--format", "bundle", "-o", out}, args...)...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.NoFileExists(t, out)
	}
	r := cliData(t, data, "export", "--format", "bundle", "--session", "no-such-session", "-o", out)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.NoFileExists(t, out)
}

// TestBundleMalformations: a damaged log (one of each verdict, kind of damage and
// container of dshgen's catalogue) goes through a bundle with the verdict it has
// and comes back with the same verdict and the same JSONL: a corrupt file as it
// was kept, a torn or uncommitted tail with the logical JSONL.
func TestBundleMalformations(t *testing.T) {
	seen := map[string]bool{}
	tried := map[string]int{}
	for _, c := range dshgen.Malformations() {
		key := fmt.Sprintf("%s/%s/%v", c.Verdict, c.Kind, c.Compressed)
		if seen[key] {
			continue
		}
		seen[key] = true
		t.Run(c.Name, func(t *testing.T) {
			root, data := t.TempDir(), t.TempDir()
			writeCase(t, root, "case", c)
			cliData(t, data, "import", root) // exits 1 on a corrupt file
			health := sessionHealth(t, data)
			if len(health) == 0 {
				return // nothing archived: nothing to bundle
			}
			tried[c.Verdict]++
			require.Len(t, health, 1)
			var id string
			for id = range health {
			}
			require.Equal(t, c.Verdict, health[id], "the session's health is the case's verdict")
			bundle := filepath.Join(t.TempDir(), "b.logbook")
			r := cliData(t, data, "export", "--format", "bundle", "--session", id, "-o", bundle)
			require.Equal(t, 0, r.code, r.stderr)
			fresh := t.TempDir()
			r = cliData(t, fresh, "import", bundle)
			assert.Contains(t, r.stderr, "1 of 1 session(s) imported as exported", r.stderr)
			assert.Equal(t, health, sessionHealth(t, fresh))
			assert.NotContains(t, r.stderr, "left out")
			if c.Verdict == "recovered" {
				// The same torn tail is kept aside again.
				a, b := cliData(t, data, "export", id, "--kept", "tail"), cliData(t, fresh, "export", id, "--kept", "tail")
				assert.Equal(t, a.code, b.code, b.stderr)
				assert.True(t, a.stdout == b.stdout, "the kept tails differ (%d and %d bytes)", len(a.stdout), len(b.stdout))
			}
			assertSameOriginals(t, data, fresh, map[string]string{id: "dsh"})
		})
	}
	t.Logf("bundled sessions by verdict: %v", tried)
	assert.Positive(t, tried["corrupt"])
	assert.Positive(t, tried["recovered"])
}

// TestBundleCutShort: a bundle of three sessions cut inside the third's log (a
// download that stopped) gives the two before the cut, byte-identical, and says
// the third was not imported; a second import changes nothing, and the whole
// bundle adds the third.
func TestBundleCutShort(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	ids := map[string]string{}
	var args []string
	for i := range 3 {
		l, _ := genLog(t, root, uint64(70+i), "/home/u/cut", false)
		ids[l.ID()] = "dsh"
		args = append(args, "--session", l.ID())
	}
	require.Equal(t, 0, cliData(t, data, "import", root).code)
	good := filepath.Join(t.TempDir(), "whole.logbook")
	r := cliData(t, data, append([]string{"export", "--format", "bundle", "-o", good}, args...)...)
	require.Equal(t, 0, r.code, r.stderr)
	raw, err := os.ReadFile(good)
	require.NoError(t, err)
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	require.NoError(t, err)
	var cutAt int64
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "sessions/3/source/") {
			off, err := f.DataOffset()
			require.NoError(t, err)
			cutAt = off + int64(f.CompressedSize64)/2
		}
	}
	require.Positive(t, cutAt)
	cut := filepath.Join(t.TempDir(), "cut.logbook")
	require.NoError(t, os.WriteFile(cut, raw[:cutAt], 0o644))
	third := args[5]

	fresh := t.TempDir()
	r = cliData(t, fresh, "import", "--json", cut)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "is cut short")
	assert.Contains(t, r.stderr, "nothing was imported from sessions/3: cut short in the bundle")
	var bundleEntry map[string]any
	for _, f := range objs(t, decode[map[string]any](t, r.stdout)["files"]) {
		if f["path"] == cut {
			bundleEntry = f
		}
	}
	require.NotNil(t, bundleEntry, r.stdout)
	assert.Equal(t, "corrupt", bundleEntry["verdict"])
	assert.Equal(t, "bundle-damaged", obj(t, bundleEntry["error"])["kind"])
	got := sessionHealth(t, fresh)
	assert.Len(t, got, 2)
	assert.NotContains(t, got, third)
	delete(ids, third)
	assertSameOriginals(t, data, fresh, ids)

	again := cliData(t, fresh, "import", "--json", cut)
	assert.Equal(t, 1, again.code)
	for _, f := range objs(t, decode[map[string]any](t, again.stdout)["files"]) {
		if f["path"] != cut {
			assert.Equal(t, "unchanged", f["action"], f["path"])
		}
	}
	r = cliData(t, fresh, "import", good)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, sessionHealth(t, fresh), 3)
}

// TestBundleUnderRootNotReadAgain: a bundle kept under a folder that is
// imported again is checked and unpacked once; while the bundle file and what
// it unpacked are as they were, a later import takes the unpacked folder as it
// is, without a pass over the bundle. Once the bundle file changes (here: one
// byte of an entry, and its modification time), it is checked again and the
// damage is reported.
func TestBundleUnderRootNotReadAgain(t *testing.T) {
	data, a, _ := importGenerated(t)
	root := t.TempDir()
	bundle := filepath.Join(root, "shared", "a.logbook")
	require.NoError(t, os.MkdirAll(filepath.Dir(bundle), 0o755))
	r := cliData(t, data, "export", "--format", "bundle", "--session", a.ID(), "-o", bundle)
	require.Equal(t, 0, r.code, r.stderr)

	fresh := t.TempDir()
	r = cliData(t, fresh, "import", "--json", root)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, map[string]string{a.ID(): "ok"}, sessionHealth(t, fresh))

	// Damage the session's entry in place, keeping the file's size and time.
	fi, err := os.Stat(bundle)
	require.NoError(t, err)
	zr, err := zip.OpenReader(bundle)
	require.NoError(t, err)
	var at int64 = -1
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, ".jsonl") {
			off, err := f.DataOffset()
			require.NoError(t, err)
			at = off + int64(f.CompressedSize64)/2
		}
	}
	require.NoError(t, zr.Close())
	require.Positive(t, at, "the bundle holds the session's log")
	raw, err := os.ReadFile(bundle)
	require.NoError(t, err)
	raw[at] ^= 0xff
	require.NoError(t, os.WriteFile(bundle, raw, 0o644))
	require.NoError(t, os.Chtimes(bundle, fi.ModTime(), fi.ModTime()))

	again := mustJSON[map[string]any](t, fresh, "import", "--json", root)
	for _, f := range objs(t, again["files"]) {
		assert.Equal(t, "unchanged", f["action"], "not read again: %v", f["path"])
	}

	// Touched: read again, and the damage is found.
	later := fi.ModTime().Add(time.Second)
	require.NoError(t, os.Chtimes(bundle, later, later))
	r = cliData(t, fresh, "import", "--json", root)
	assert.Equal(t, 1, r.code, "the damaged entry is reported: %s", r.stderr)
	assert.Contains(t, r.stdout, string(export.KindBundleDamaged))
	assert.Equal(t, map[string]string{a.ID(): "ok"}, sessionHealth(t, fresh), "what was archived stays")
}
