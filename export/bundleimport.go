package export

// Importing bundles, for `logbook import` and the app's import alike: a bundle
// (bundle.go) is checked whole against its manifest, unpacked into the data
// directory and its sessions' original bytes imported from there by the normal
// importer. The unpacked files stay (imported-bundles/<bundle id>/), like any
// folder sessions were imported from: the archive's files table names them, and
// a later import of the same bundle finds them there rather than in a temporary
// folder that is gone, so it reports them unchanged.

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/logbook/logbook/archive"
)

// BundlesDir is the folder of the data directory bundles are unpacked into.
const BundlesDir = "imported-bundles"

// KindBundleDamaged is the problem kind of a bundle, or a session of one, that
// is not as its manifest says: nothing of it was imported.
const KindBundleDamaged archive.Kind = "bundle-damaged"

// ImportedBundle is a bundle named on the import's command line or found under a
// folder it walks, unpacked.
type ImportedBundle struct {
	file string // the .logbook file
	dir  string // where it was unpacked
	m    Manifest
	// roots maps each source path to import to the session it should give.
	roots map[string]ManifestSession
	// faults are its entries at fault; damaged maps the sessions not imported
	// because of one to its fault.
	faults  []*BundleError
	damaged map[string]*BundleError
	// broken is why the bundle could not be opened, nil when it could.
	broken error
	// salvaged is what was taken from a bundle cut short (broken is why it
	// could not be opened), nil when not.
	salvaged *Salvaged
}

// UnpackBundles replaces every bundle among paths by the sources it holds,
// unpacked into the data directory, and adds the bundles found under the
// folders among paths (which stay: their session logs are imported as before).
// A bundle, or a session of one, that is damaged gives nothing and is reported
// (BundleReports); the rest of the import goes on. The error is a fault of this
// machine.
func UnpackBundles(ctx context.Context, dataDir string, paths []string) ([]string, []*ImportedBundle, error) {
	paths, _, bundles, err := DiscoverBundles(ctx, dataDir, paths)
	return paths, bundles, err
}

// DiscoverBundles is UnpackBundles that also returns what archive.Discover
// found of the paths it returns, for the import to take (ImportOptions.Discovered):
// the folders among paths are walked once, the walk that finds their sessions
// listing the bundles under them too (Discovered.Bundles).
func DiscoverBundles(ctx context.Context, dataDir string, paths []string) ([]string, *archive.Discovered, []*ImportedBundle, error) {
	var plain, files []string
	for _, p := range paths {
		if LooksLikeBundle(p) {
			files = append(files, p)
		} else {
			plain = append(plain, p)
		}
	}
	d := archive.Discover(plain)
	for _, p := range d.Bundles {
		if LooksLikeBundle(p) {
			files = append(files, p)
		}
	}
	var roots []string
	var bundles []*ImportedBundle
	seen := map[string]bool{}
	for _, p := range files {
		if abs, err := filepath.Abs(p); err == nil {
			if seen[abs] {
				continue
			}
			seen[abs] = true
		}
		u, err := unpackBundle(ctx, dataDir, p)
		if err != nil {
			return nil, nil, nil, err
		}
		bundles = append(bundles, u)
		for root := range u.roots {
			roots = append(roots, root)
		}
	}
	if len(roots) > 0 {
		d.Merge(archive.Discover(roots))
	}
	return append(plain, roots...), &d, bundles, nil
}

func unpackBundle(ctx context.Context, dataDir, p string) (*ImportedBundle, error) {
	u := &ImportedBundle{file: p, roots: map[string]ManifestSession{}}
	// The bundle file as it is before it is read: a stamp must never record a
	// later change as the version checked (bundlestamp.go).
	was, statted := statStamp(p)
	b, err := OpenBundle(p)
	if errors.Is(err, zip.ErrFormat) {
		// Cut short: its directory and manifest are lost, but the sessions
		// before the cut can be proved whole (export/salvage.go).
		u.broken = err
		sum := fileSum(p)
		if sum == "" {
			return u, nil
		}
		u.dir = filepath.Join(dataDir, BundlesDir, "cut-"+sum[:16])
		sv, serr := Salvage(p, u.dir)
		if serr == nil {
			u.salvaged = sv
			for _, src := range sv.Sources {
				u.roots[src] = ManifestSession{}
			}
		} else if !errors.Is(serr, ErrNotBundle) {
			return nil, serr
		}
		return u, nil
	}
	if err != nil {
		// A bundle that cannot be read gives nothing; the rest goes on.
		u.broken = err
		return u, nil
	}
	defer b.Close()
	u.dir, u.m = filepath.Join(dataDir, BundlesDir, b.ID), b.Manifest
	if statted && unpackedBefore(dataDir, p, was, u.dir, b) {
		// Checked and unpacked whole before, and unchanged since (bundlestamp.go).
		u.damaged = map[string]*BundleError{}
	} else {
		// Unpack checks each entry against the manifest as it writes it, and
		// keeps nothing of a session whose source has an entry at fault.
		res, err := b.Unpack(ctx, u.dir)
		if err != nil {
			return nil, err
		}
		u.faults, u.damaged = res.Faults, res.Damaged
		if len(u.faults) == 0 && statted {
			stampUnpacked(dataDir, p, was, u.dir, b)
		}
	}
	for _, s := range b.Manifest.Sessions {
		if s.Source != "" && u.damaged[s.ID] == nil {
			u.roots[filepath.Join(u.dir, filepath.FromSlash(strings.TrimSuffix(s.Source, "/")))] = s
		}
	}
	return u, nil
}

// brokenMsg says why nothing of the bundle could be read, or, for one cut
// short, what of it was not.
func (u *ImportedBundle) brokenMsg() string {
	if sv := u.salvaged; sv != nil {
		if len(sv.Sources) == 0 {
			return fmt.Sprintf("bundle %s is cut short (%v): its manifest is lost and no session before the cut is whole; nothing was imported from it (%s)",
				u.file, u.broken, strings.Join(sv.Lost, "; "))
		}
		msg := fmt.Sprintf("bundle %s is cut short (%v): its manifest is lost; %d session(s) before the cut, each entry whole by its CRC-32, were taken",
			u.file, u.broken, len(sv.Sources))
		if len(sv.Lost) > 0 {
			msg += "; nothing was imported from " + strings.Join(sv.Lost, "; ")
		}
		return msg
	}
	var be *BundleError
	if errors.As(u.broken, &be) {
		return be.Error() // it says nothing was imported
	}
	return u.broken.Error() + "; nothing was imported from it"
}

// BundleReports are the import report's entries of what bundles did not give:
// one per bundle that could not be read (corrupt, or failed for a fault of this
// machine) and one per session not imported because an entry of its source is
// at fault (corrupt, "skipped"), each naming the bundle and the entry.
func BundleReports(bundles []*ImportedBundle) []archive.FileReport {
	var out []archive.FileReport
	for _, u := range bundles {
		if u.broken != nil {
			fr := archive.FileReport{Path: u.file, Verdict: archive.VerdictCorrupt, Action: "skipped", LastSeq: -1, Warnings: []archive.Problem{},
				Error: &archive.Problem{Kind: KindBundleDamaged, Offset: -1, Message: u.brokenMsg()}}
			var be *BundleError
			if !errors.Is(u.broken, ErrNotBundle) && !errors.As(u.broken, &be) {
				fr.Verdict, fr.Action, fr.Error.Kind = archive.VerdictFailed, "failed", readFault(u.broken)
			}
			out = append(out, fr)
			continue
		}
		for _, s := range u.m.Sessions {
			f := u.damaged[s.ID]
			if f == nil {
				continue
			}
			out = append(out, archive.FileReport{Path: filepath.Join(u.dir, filepath.FromSlash(strings.TrimSuffix(s.Source, "/"))),
				SessionID: s.ID, Agent: s.Agent, Verdict: archive.VerdictCorrupt, Action: "skipped", LastSeq: -1, Warnings: []archive.Problem{},
				Error: &archive.Problem{Kind: KindBundleDamaged, Offset: -1, Message: f.Error()}})
		}
	}
	return out
}

// readFault names why a bundle could not be read when it is a fault of this
// machine, not of the bundle.
func readFault(err error) archive.Kind {
	if errors.Is(err, fs.ErrPermission) {
		return archive.KindPermissionDenied
	}
	return "io-error"
}

// AddBundleReports puts the reports of what bundles did not give into rep.
func AddBundleReports(rep *archive.ImportReport, bundles []*ImportedBundle) {
	for _, fr := range BundleReports(bundles) {
		rep.Files = append(rep.Files, fr)
		rep.Summary.Files++
		if fr.Verdict == archive.VerdictFailed {
			rep.Summary.Failed++
		} else {
			rep.Summary.Corrupt++
		}
	}
}

// ReportBundles says what each bundle gave: the sessions it was to give that the
// import did not give as they were (another id, another verdict), and for a
// redacted bundle, where its readable copies are. It returns false when a session
// did not come back as it was exported.
func ReportBundles(w io.Writer, bundles []*ImportedBundle, rep *archive.ImportReport) bool {
	ok := true
	byPath := map[string]archive.FileReport{}
	for _, f := range rep.Files {
		byPath[filepath.Clean(f.Path)] = f
	}
	for _, u := range bundles {
		if u.broken != nil {
			ok = false
			fmt.Fprintln(w, u.brokenMsg())
			if u.salvaged != nil && len(u.salvaged.Sources) > 0 {
				fmt.Fprintf(w, "%s: %d session(s) taken from the bundle cut short (unpacked in %s)\n", u.file, len(u.salvaged.Sources), u.dir)
			}
			continue
		}
		for _, f := range u.faults {
			ok = false
			fmt.Fprintf(w, "%v\n", f)
		}
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
		for _, s := range u.m.Sessions {
			if f := u.damaged[s.ID]; f != nil {
				fmt.Fprintf(w, "%s: session %s was not imported: its entry %s is damaged\n", u.file, s.ID, f.Entry)
			}
		}
		fmt.Fprintf(w, "%s: %d of %d session(s) imported as exported", u.file, n, len(u.roots)+len(u.damaged))
		if dup > 0 {
			fmt.Fprintf(w, ", %d archived already from another file", dup)
		}
		fmt.Fprintf(w, " (unpacked in %s)\n", u.dir)
	}
	return ok
}
