package export

import (
	"bufio"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A bundle cut short (a download that stopped, a disk that filled) has lost its
// zip directory and its manifest, both written last, so OpenBundle refuses it.
// Its entries are still there one after the other, each with its own CRC-32 and
// size after its bytes, in the order BundleWriter wrote them: session 1's
// readable copies and source, then session 2's, and so on. Salvage reads them in
// that order and keeps the sessions it can prove whole: every entry of the
// session checked against its CRC-32 and size, and an entry of a later session
// (or the manifest) begun after them, so none of the session's was still to come.
// The session the cut falls in, and any after it, give nothing.

// Salvaged is what Salvage took from a bundle cut short.
type Salvaged struct {
	// Sources are the paths to import, one per session kept whole: its source
	// file, or the folder its source files are in.
	Sources []string
	// Lost says what was not kept: the session the cut falls in (by its folder
	// in the bundle) and why.
	Lost []string
}

// Salvage unpacks the whole sessions of the bundle at p, cut short, into dir,
// each file written whole or not at all (over the same file of an earlier
// salvage of the same bundle), and removes dir again when it made it and keeps
// nothing. A file that holds no zip entry of a session at all is an error
// wrapping ErrNotBundle.
func Salvage(p, dir string) (*Salvaged, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	s, err := salvage(bufio.NewReaderSize(f, 1<<16), dir)
	if (err != nil || len(s.Sources) == 0) && errors.Is(statErr, os.ErrNotExist) {
		_ = os.RemoveAll(dir)
	}
	if err == nil && len(s.Sources) == 0 && len(s.Lost) == 0 {
		err = fmt.Errorf("%s: %w (no entry of a session could be read)", p, ErrNotBundle)
	}
	return s, err
}

// salvaged is one session being read.
type salvagedSession struct {
	n      int      // its number: sessions/N
	source []string // its source entries, written under dir
}

func salvage(r *bufio.Reader, dir string) (*Salvaged, error) {
	out := &Salvaged{}
	var cur *salvagedSession
	done := func() {
		if cur != nil && len(cur.source) > 0 {
			out.Sources = append(out.Sources, sourceRoot(dir, cur.source))
		}
		cur = nil
	}
	lose := func(why string) {
		if cur != nil {
			out.Lost = append(out.Lost, fmt.Sprintf("sessions/%d: %s", cur.n, why))
			_ = os.RemoveAll(filepath.Join(dir, "sessions", strconv.Itoa(cur.n)))
		}
	}
	for {
		name, err := salvageEntry(r, dir)
		if errors.Is(err, errEndOfEntries) {
			// The zip's directory: every entry was read whole. A bundle whole
			// but for its directory's end; its sessions are all there.
			done()
			return out, nil
		}
		if err != nil && !isDamage(err) {
			return out, err // a fault of this machine (a full disk, a permission), not of the bundle
		}
		if err != nil {
			if n, ok := sessionNumber(name); (ok && (cur == nil || n != cur.n)) || name == ManifestName {
				// The cut is in a later entry: the session read so far is whole.
				done()
				if ok {
					cur = &salvagedSession{n: n}
				}
			}
			lose("cut short in the bundle (" + err.Error() + ")")
			return out, nil
		}
		if name == ManifestName {
			done()
			continue
		}
		n, ok := sessionNumber(name)
		if !ok {
			continue // not a session's entry
		}
		if cur == nil || cur.n != n {
			done()
			cur = &salvagedSession{n: n}
		}
		if strings.HasPrefix(name, fmt.Sprintf("sessions/%d/source/", n)) {
			cur.source = append(cur.source, name)
		}
	}
}

// errEndOfEntries is the zip's central directory, after the last entry.
var errEndOfEntries = errors.New("export: end of the entries")

// damage is an error in the bundle's bytes (cut short, a checksum that does not
// match, an entry no bundle writes), as against a fault of this machine while
// the salvage is written, which is the caller's error and no verdict on the
// bundle.
type damage struct{ err error }

func (d damage) Error() string { return d.err.Error() }
func (d damage) Unwrap() error { return d.err }

func damaged(err error) error { return damage{err} }

func isDamage(err error) bool {
	var d damage
	return errors.As(err, &d)
}

// damageReader marks what goes wrong reading the bundle as its damage.
type damageReader struct{ r io.Reader }

func (d damageReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = damaged(err)
	}
	return n, err
}

// salvageEntry reads one local zip entry from r, writes it under dir when its
// name is safe, and checks it against the CRC-32 and size that follow it.
func salvageEntry(r *bufio.Reader, dir string) (string, error) {
	var h [30]byte
	if _, err := io.ReadFull(r, h[:4]); err != nil {
		return "", damaged(fmt.Errorf("no next entry: %w", err))
	}
	switch binary.LittleEndian.Uint32(h[:4]) {
	case 0x04034b50: // a local file header
	case 0x02014b50, 0x06054b50: // the central directory or its end
		return "", errEndOfEntries
	default:
		return "", damaged(errors.New("not a zip entry"))
	}
	if _, err := io.ReadFull(r, h[4:]); err != nil {
		return "", damaged(fmt.Errorf("entry header: %w", err))
	}
	flags, method := binary.LittleEndian.Uint16(h[6:]), binary.LittleEndian.Uint16(h[8:])
	sum, size := binary.LittleEndian.Uint32(h[14:]), uint64(binary.LittleEndian.Uint32(h[22:]))
	nameLen, extraLen := binary.LittleEndian.Uint16(h[26:]), binary.LittleEndian.Uint16(h[28:])
	nb := make([]byte, int(nameLen)+int(extraLen))
	if _, err := io.ReadFull(r, nb); err != nil {
		return "", damaged(fmt.Errorf("entry name: %w", err))
	}
	name := string(nb[:nameLen])
	if method != 8 {
		return name, damaged(fmt.Errorf("entry %s: compression method %d (a bundle deflates every entry)", name, method))
	}
	if !safeName(name) {
		return name, damaged(fmt.Errorf("entry %s: an unsafe name", name))
	}
	dst := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return name, err
	}
	crc := crc32.NewIEEE()
	var n int64
	err := writeWhole(dst, func(w io.Writer) error {
		// r is an io.ByteReader, so the standard library's flate reads no byte
		// past the entry's end.
		fr := flate.NewReader(r)
		var err error
		n, err = io.Copy(io.MultiWriter(w, crc), damageReader{fr})
		fr.Close()
		if isDamage(err) {
			return damaged(fmt.Errorf("entry %s: damaged at byte %d: %w", name, n, err))
		}
		if err != nil {
			return err // writing the salvage
		}
		if flags&0x8 != 0 {
			// The CRC-32 and sizes follow the bytes (a streamed entry), with or
			// without their signature.
			var d [16]byte
			if _, err := io.ReadFull(r, d[:12]); err != nil {
				return damaged(fmt.Errorf("entry %s: its checksum is cut off: %w", name, err))
			}
			if binary.LittleEndian.Uint32(d[:4]) == 0x08074b50 {
				if _, err := io.ReadFull(r, d[12:16]); err != nil {
					return damaged(fmt.Errorf("entry %s: its checksum is cut off: %w", name, err))
				}
				sum, size = binary.LittleEndian.Uint32(d[4:]), uint64(binary.LittleEndian.Uint32(d[12:]))
			} else {
				sum, size = binary.LittleEndian.Uint32(d[:4]), uint64(binary.LittleEndian.Uint32(d[8:]))
			}
		}
		if crc.Sum32() != sum || uint64(n) != size {
			return damaged(fmt.Errorf("entry %s: %d bytes of CRC-32 %08x, but the bundle says %d bytes of %08x", name, n, crc.Sum32(), size, sum))
		}
		return nil
	})
	return name, err
}

// sessionNumber is N of an entry sessions/N/….
func sessionNumber(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "sessions/")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "/")
	n, err := strconv.Atoi(num)
	return n, ok && err == nil && n > 0
}

// sourceRoot is the path to import a session's source from: its one file, or
// the deepest folder all its files are in.
func sourceRoot(dir string, entries []string) string {
	if len(entries) == 1 {
		return filepath.Join(dir, filepath.FromSlash(entries[0]))
	}
	common := strings.Split(entries[0], "/")
	common = common[:len(common)-1]
	for _, e := range entries[1:] {
		parts := strings.Split(e, "/")
		i := 0
		for i < len(common) && i < len(parts)-1 && common[i] == parts[i] {
			i++
		}
		common = common[:i]
	}
	return filepath.Join(dir, filepath.FromSlash(strings.Join(common, "/")))
}
