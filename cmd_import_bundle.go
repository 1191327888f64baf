package main

// `logbook import FILE.logbook`: a bundle (export/bundle.go) is checked whole
// against its manifest, unpacked into the data directory and its sessions'
// original bytes imported from there by the normal importer. The unpacked files
// stay (imported-bundles/<bundle id>/), like any folder sessions were imported from:
// the archive's files table names them, and a later import of the same bundle finds
// them there rather than in a temporary folder that is gone.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export"
)

// bundlesDir is the folder of the data directory bundles are unpacked into.
const bundlesDir = "imported-bundles"

// unpackedBundle is a bundle named on the import's command line, unpacked.
type unpackedBundle struct {
	file string // the .logbook file
	dir  string // where it was unpacked
	m    export.Manifest
	// roots maps each source path to import to the session it should give.
	roots map[string]export.ManifestSession
}

// unpackBundles replaces every bundle among paths by the sources it holds,
// unpacked into the data directory. A bundle that is damaged stops the import
// before anything is imported, with an error naming the entry.
func (e *env) unpackBundles(ctx context.Context, paths []string) ([]string, []*unpackedBundle, error) {
	var out []string
	var bundles []*unpackedBundle
	for _, p := range paths {
		if !export.LooksLikeBundle(p) {
			out = append(out, p)
			continue
		}
		u, err := e.unpackBundle(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		bundles = append(bundles, u)
		for root := range u.roots {
			out = append(out, root)
		}
	}
	return out, bundles, nil
}

func (e *env) unpackBundle(ctx context.Context, p string) (*unpackedBundle, error) {
	b, err := export.OpenBundle(p)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	dir := filepath.Join(e.dataDir, bundlesDir, b.ID)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		// Extract checks each entry against the manifest as it writes it, and
		// renames the folder into place only when all are whole.
		if err := b.Extract(ctx, dir); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	} else if err := b.Verify(ctx); err != nil {
		// Unpacked before (a folder that exists is whole): the bundle must still be.
		return nil, err
	}
	u := &unpackedBundle{file: p, dir: dir, m: b.Manifest, roots: map[string]export.ManifestSession{}}
	for _, s := range b.Manifest.Sessions {
		if s.Source != "" {
			u.roots[filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(s.Source, "/")))] = s
		}
	}
	return u, nil
}

// reportBundles says what each bundle gave: the sessions it was to give that the
// import did not give as they were (another id, another verdict), and for a
// redacted bundle, where its readable copies are. It returns false when a session
// did not come back as it was exported.
func reportBundles(w io.Writer, bundles []*unpackedBundle, rep *archive.ImportReport) bool {
	ok := true
	byPath := map[string]archive.FileReport{}
	for _, f := range rep.Files {
		byPath[filepath.Clean(f.Path)] = f
	}
	for _, u := range bundles {
		if u.m.Redacted {
			fmt.Fprintf(w, "%s is a redacted bundle: it holds readable copies of %d session(s) with their secrets replaced, not the original logs (an exact log cannot be redacted), so nothing of it goes into the archive. The copies are in %s\n",
				u.file, len(u.m.Sessions), u.dir)
			continue
		}
		n, dup := 0, 0
		for root, s := range u.roots {
			f, found := byPath[filepath.Clean(root)]
			switch {
			case found && f.Action == "duplicate" && f.Verdict == archive.VerdictOK:
				// The session is archived already, from elsewhere (the bundle came
				// back to a machine that has it): the importer checked this copy
				// and keeps the one it has.
				dup++
			case !found:
				ok = false
				fmt.Fprintf(w, "%s: session %s (%s) was not imported\n", u.file, s.ID, root)
			case f.SessionID != s.ID:
				ok = false
				fmt.Fprintf(w, "%s: %s gave session %q, but the bundle names it %s\n", u.file, root, f.SessionID, s.ID)
			case s.Health == string(archive.VerdictRecovered) && s.Tail == "left-out" && f.Verdict == archive.VerdictOK:
				// Its torn zstd frame was left out of the bundle (the manifest says
				// so): the records it held are here, the torn one is not.
				n++
				fmt.Fprintf(w, "%s: session %s is ok here: its torn tail (a torn zstd frame) was left out of the bundle\n", u.file, s.ID)
			case s.Health != "" && s.Health != "gone" && string(f.Verdict) != s.Health:
				ok = false
				fmt.Fprintf(w, "%s: session %s is %s here, but was %s where it was exported\n", u.file, s.ID, f.Verdict, s.Health)
			default:
				n++
			}
		}
		fmt.Fprintf(w, "%s: %d of %d session(s) imported as exported", u.file, n, len(u.roots))
		if dup > 0 {
			fmt.Fprintf(w, ", %d archived already from another file", dup)
		}
		fmt.Fprintf(w, " (unpacked in %s)\n", u.dir)
	}
	return ok
}
