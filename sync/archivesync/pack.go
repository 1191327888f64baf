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

// maxPackLine bounds a pack's header and entry lines read back (a name and
// a size; names are file names of a conversation), so a pack without a
// newline cannot make us hold all of it. File contents are streamed to disk,
// never held: memory stays bounded whatever the remote holds.
const maxPackLine = 64 << 10

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

// ErrLocal is a fault of this machine (its disk, its files) while a pulled
// version is unpacked or kept: never a verdict on the synced data, which is
// intact on the remote. The next sync tries again.
var ErrLocal = errors.New("a fault of this machine, not of the synced data (the next sync tries again)")

// localFault marks err, from this machine's disk, as ErrLocal.
func localFault(path string, err error) error {
	return fmt.Errorf("%s: %w: %w", path, ErrLocal, err)
}

// unpack writes the pack in file src under dir and returns the path to
// import: the conversation's folder, or its one file. Files already there
// are replaced (a conversation that grew is unpacked over its older self).
// Each file is streamed to disk; a read or write that fails on this
// machine is ErrLocal, a pack that does not parse errPack.
func unpack(src, dir string) (string, error) {
	f, err := os.Open(src)
	if err != nil {
		return "", localFault(src, err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	line, err := readLine(br)
	if err != nil {
		return "", packErr(src, "header", err)
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
		line, err := readLine(br)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			break
		}
		if err != nil {
			return "", packErr(src, "entry", err)
		}
		var e packEntry
		if err := json.Unmarshal(line, &e); err != nil || !safeName(e.Name) || e.Size < 0 {
			return "", fmt.Errorf("%s: %w: entry %q", src, errPack, strings.TrimSpace(string(line)))
		}
		dst := filepath.Join(base, filepath.FromSlash(e.Name))
		if err := atomicfile.WriteN(dst, br, e.Size); errors.Is(err, io.ErrUnexpectedEOF) {
			return "", fmt.Errorf("%s: %w: %s cut short", src, errPack, e.Name)
		} else if err != nil {
			return "", localFault(dst, err)
		}
	}
	return target, nil
}

// readLine reads one line of at most maxPackLine bytes, without its
// newline. At the end of the input it returns io.EOF (with what came
// before it, if anything: a last line without a newline).
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxPackLine {
			return nil, errLongLine
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}

var errLongLine = errors.New("line too long")

// packErr is the error of a pack line that could not be read: the pack's
// fault when it ended or ran on, this machine's otherwise.
func packErr(src, what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, errLongLine) {
		return fmt.Errorf("%s: %w: %s: %v", src, errPack, what, err)
	}
	return localFault(src, err)
}

// safeName accepts a relative slash path with no "..", empty or absolute parts.
func safeName(n string) bool {
	c := path.Clean(n)
	return n != "" && c == n && c != "." && c != ".." && !strings.HasPrefix(c, "../") && !path.IsAbs(c) && !strings.ContainsAny(n, "\\\x00")
}
