package export

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Unpack stamps. Unpacking a bundle checks every entry against the manifest:
// each is decompressed and hashed, and so is each file unpacked before, which
// is a pass over the whole bundle. A bundle kept under a folder that is
// imported again and again (the session roots) would cost that pass every
// time. So once every entry of a bundle is unpacked whole, unpackBundle
// records the bundle file (its path, size and modification time) and the files
// it unpacked (their sizes and modification times); while all of them are
// still as recorded, the bundle is the one already checked and unpacked, and
// the import takes its folder as it is, as the importer takes a log whose
// stat has not changed. Anything else (the bundle rewritten or touched, an
// unpacked file changed or gone, a stamp unreadable) unpacks it again.

// stampsDir is the folder of BundlesDir holding the stamps, one per bundle id:
// outside the bundles' own folders, where an entry of a bundle could be named
// like a stamp.
const stampsDir = ".stamps"

type unpackStamp struct {
	Bundle fileStamp            `json:"bundle"`
	Files  map[string]fileStamp `json:"files"` // by entry name
}

type fileStamp struct {
	Path    string `json:"path,omitempty"` // the bundle's, absolute
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
}

func statStamp(path string) (fileStamp, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return fileStamp{}, false
	}
	return fileStamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, true
}

// stampPath names the stamp of the bundle id read from the file abs: copies
// of one bundle in two places have a stamp each.
func stampPath(dataDir, id, abs string) string {
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dataDir, BundlesDir, stampsDir, fmt.Sprintf("%s-%x.json", id, sum[:6]))
}

// unpackedBefore reports whether the bundle b, read from the file p (stat as
// it was before it was opened), was unpacked whole into dir and nothing of it
// has changed since.
func unpackedBefore(dataDir, p string, stat fileStamp, dir string, b *Bundle) bool {
	if len(b.faults) > 0 {
		return false
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	raw, err := os.ReadFile(stampPath(dataDir, b.ID, abs))
	if err != nil {
		return false
	}
	var st unpackStamp
	if json.Unmarshal(raw, &st) != nil {
		return false
	}
	stat.Path = abs
	if stat != st.Bundle || len(st.Files) != len(b.whole) {
		return false
	}
	for _, mf := range b.whole {
		was, recorded := st.Files[mf.Name]
		is, ok := statStamp(filepath.Join(dir, filepath.FromSlash(mf.Name)))
		if !recorded || !ok || is != was || is.Size != mf.Bytes {
			return false
		}
	}
	return true
}

// stampUnpacked records that the bundle b, read from the file p (stat as it
// was before it was opened: a change while it was read makes the stamp stale),
// is unpacked whole into dir. Failing to is no fault: the next import checks it
// again.
func stampUnpacked(dataDir, p string, stat fileStamp, dir string, b *Bundle) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return
	}
	st := unpackStamp{Bundle: stat, Files: make(map[string]fileStamp, len(b.whole))}
	st.Bundle.Path = abs
	for _, mf := range b.whole {
		f, ok := statStamp(filepath.Join(dir, filepath.FromSlash(mf.Name)))
		if !ok {
			return
		}
		st.Files[mf.Name] = f
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return
	}
	path := stampPath(dataDir, b.ID, abs)
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	_ = writeWhole(path, func(w io.Writer) error { _, err := w.Write(raw); return err })
}
