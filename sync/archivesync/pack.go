package archivesync

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/internal/atomicfile"
)

// An OpenHands conversation is a folder of files (one JSON file per event,
// base_state.json, …) or one file; the archive keeps them byte for byte
// (archive.Store.ExportOriginal). What travels for it is a pack: the
// files concatenated in name order, each after a one-line JSON header, so
// that the bytes are deterministic (the same conversation packs to the same
// bytes on every machine) and a conversation that gained events mostly
// grows at the end (event files are numbered), which Push turns into an
// append. There is no trailer, for the same reason.
//
//	{"logbook_pack":1,"kind":"dir","root":"<folder name>"}\n   (or "kind":"file","root":"<parent folder>","file":"<name>")
//	{"name":"events/0-….json","size":N}\n<N bytes>
//	…
//
// The receiving machine unpacks it into sync/in/… under the original
// folder (or file) name, since OpenHands derives the conversation id from
// it, and imports that through the same importer as `logbook import`.

const packVersion = 1

// maxPackFile bounds one file of a pack read back, so a hostile (but
// authentic, i.e. from a machine holding the key) pack cannot make us
// allocate without limit.
const maxPackFile = 256 << 20

type packHeader struct {
	Pack int    `json:"logbook_pack"`
	Kind string `json:"kind"` // "dir" or "file"
	// Root is the conversation folder's name, or for a one-file
	// conversation the name of the folder holding the file (some layouts
	// take the id from it).
	Root string `json:"root"`
	// File is a one-file conversation's file name.
	File string `json:"file,omitempty"`
}

type packEntry struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// writePack writes session sess's kept files as a pack to w.
func writePack(ctx context.Context, store *archive.Store, sess archive.Session, work string, w io.Writer) error {
	tmp, err := os.MkdirTemp(work, ".pack-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "x")
	if err := store.ExportOriginal(ctx, sess.ID, root); err != nil {
		return fmt.Errorf("export %s: %w", sess.ID, err)
	}
	var names []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return err
	}
	slices.Sort(names)
	base := filepath.Base(sess.Path)
	h := packHeader{Pack: packVersion, Kind: "dir", Root: base}
	if len(names) == 1 && names[0] == base {
		h.Kind, h.Root, h.File = "file", filepath.Base(filepath.Dir(sess.Path)), base
	}
	if h.Root == "" || h.Root == "." || h.Root == "/" {
		h.Root = sess.ID
	}
	bw := bufio.NewWriter(w)
	line, _ := json.Marshal(h)
	bw.Write(append(line, '\n'))
	for _, n := range names {
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(n)))
		if err != nil {
			return err
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return err
		}
		line, _ := json.Marshal(packEntry{Name: n, Size: info.Size()})
		bw.Write(append(line, '\n'))
		_, err = io.Copy(bw, f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}

// errPack is a pack that does not parse: a bug or another version, since
// its bytes were authenticated.
var errPack = errors.New("malformed conversation pack")

// unpack writes the pack in file src under dir and returns the path to
// import: the conversation's folder, or its one file. Files already there
// are replaced (a conversation that grew is unpacked over its older self).
func unpack(src, dir string) (string, error) {
	f, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return "", fmt.Errorf("%s: %w: no header", src, errPack)
	}
	var h packHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Pack != packVersion || !safeName(h.Root) || strings.Contains(h.Root, "/") {
		return "", fmt.Errorf("%s: %w: header %q", src, errPack, strings.TrimSpace(string(line)))
	}
	base := filepath.Join(dir, h.Root)
	target := base
	if h.Kind == "file" {
		if !safeName(h.File) || strings.Contains(h.File, "/") {
			return "", fmt.Errorf("%s: %w: file %q", src, errPack, h.File)
		}
		target = filepath.Join(base, h.File)
	}
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) && len(line) == 0 {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w: %v", src, errPack, err)
		}
		var e packEntry
		if err := json.Unmarshal(line, &e); err != nil || !safeName(e.Name) || e.Size < 0 || e.Size > maxPackFile {
			return "", fmt.Errorf("%s: %w: entry %q", src, errPack, strings.TrimSpace(string(line)))
		}
		data := make([]byte, e.Size)
		if _, err := io.ReadFull(br, data); err != nil {
			return "", fmt.Errorf("%s: %w: %s cut short", src, errPack, e.Name)
		}
		dst := filepath.Join(base, filepath.FromSlash(e.Name))
		if err := atomicfile.Write(dst, data); err != nil {
			return "", err
		}
	}
	return target, nil
}

// safeName accepts a relative slash path with no "..", empty or absolute parts.
func safeName(n string) bool {
	c := path.Clean(n)
	return n != "" && c == n && c != "." && c != ".." && !strings.HasPrefix(c, "../") && !path.IsAbs(c) && !strings.ContainsAny(n, "\\\x00")
}
