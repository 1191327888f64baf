package index

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// The archive revision each session was indexed at is kept in revsFile, an
// append-only log in the index directory, not in Bleve's internal store: scorch
// writes every internal key into root.bolt on every persisted snapshot, so a
// revision per session there made each batch cost as much as the whole archive.
//
// The file starts with revsHeader; each line after it is
//
//	CRC OP REV ID
//
// where OP is "s" (the session is indexed at REV) or "d" (it is not indexed at
// any revision; REV is 0), ID is the session ID Go-quoted (so it holds no
// newline) and CRC is the CRC-32 (IEEE, 8 hex digits) of "OP REV ID". The last
// entry for a session wins.
//
// A revision only ever claims documents Bleve has on disk: it is appended after
// the Batch holding the session's last documents returned (scorch's Batch
// returns once the batch's snapshot is persisted and root.bolt synced, since
// openBleve never sets unsafe_batch), and a session's "d" entry is on disk
// before any batch rewriting its documents is written. A crash between the two
// leaves the session without a revision, and the next Sync indexes it again.
//
// Reading never trusts a file it cannot make sense of: an unfinished last line
// (a crash mid-append) is ignored, and anything else unexpected (a bad header, a
// bad checksum, a line that does not parse) means no revision is known, so every
// session is indexed again rather than one wrongly claimed indexed.
const (
	revsFile   = "revisions.log"
	revsTemp   = revsFile + ".tmp"
	revsHeader = "logbook-revisions 1\n"
	// revsCompactMin is how many entries the log holds before it is compacted,
	// when it also holds more than twice as many as there are live revisions.
	revsCompactMin = 1024
)

// revStore is the revisions of an index's sessions: in memory, and in revsFile
// when the index is open for writing. It is safe for concurrent use.
type revStore struct {
	mu      sync.Mutex
	dir     string
	revs    map[string]int64
	f       *os.File // nil when read-only
	size    int64    // bytes of f that hold whole entries
	entries int      // entries in f
	dirty   bool     // entries written to f and not yet synced
}

// loadRevs reads the revisions in dir without writing anything there: for a
// read-only index.
func loadRevs(dir string) *revStore {
	s := &revStore{dir: dir, revs: map[string]int64{}}
	data, err := os.ReadFile(filepath.Join(dir, revsFile))
	if err != nil {
		return s
	}
	if revs, _, _, err := parseRevs(data); err == nil {
		s.revs = revs
	}
	return s
}

// openRevs opens the revisions log in dir for writing, creating it when it is
// missing. An unfinished last entry is cut off; a file that cannot be read
// through is replaced by an empty one, which leaves every session to be indexed
// again.
func openRevs(dir string) (*revStore, error) {
	s := &revStore{dir: dir, revs: map[string]int64{}}
	path := filepath.Join(dir, revsFile)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, s.rewrite()
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", revsFile, err)
	}
	revs, whole, entries, err := parseRevs(data)
	if err != nil {
		return s, s.rewrite()
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	if whole < len(data) {
		if err := f.Truncate(int64(whole)); err != nil {
			_ = f.Close()
			return nil, err
		}
		if err := f.Sync(); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	s.f, s.revs, s.size, s.entries = f, revs, int64(whole), entries
	return s, nil
}

// parseRevs reads a revisions log: the revisions, how many of its bytes hold
// the header and whole entries (an unfinished last line is left out) and how
// many entries there are. It fails on anything else it does not expect.
func parseRevs(data []byte) (revs map[string]int64, whole, entries int, err error) {
	if !bytes.HasPrefix(data, []byte(revsHeader)) {
		return nil, 0, 0, errors.New("not a revisions log")
	}
	revs = map[string]int64{}
	whole = len(revsHeader)
	for rest := data[whole:]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break // cut short by a crash: never synced, so never relied upon
		}
		line := rest[:i]
		rest = rest[i+1:]
		if err := parseRevLine(line, revs); err != nil {
			return nil, 0, 0, fmt.Errorf("entry %d: %w", entries+1, err)
		}
		whole += i + 1
		entries++
	}
	return revs, whole, entries, nil
}

// parseRevLine applies one entry, without its newline, to revs.
func parseRevLine(line []byte, revs map[string]int64) error {
	sum, body, ok := bytes.Cut(line, []byte{' '})
	if !ok || len(sum) != 8 {
		return errors.New("no checksum")
	}
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil || uint32(want) != crc32.ChecksumIEEE(body) {
		return errors.New("bad checksum")
	}
	op, body, _ := bytes.Cut(body, []byte{' '})
	revText, quoted, _ := bytes.Cut(body, []byte{' '})
	rev, err := strconv.ParseInt(string(revText), 10, 64)
	if err != nil {
		return fmt.Errorf("revision: %w", err)
	}
	id, err := strconv.Unquote(string(quoted))
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	switch string(op) {
	case "s":
		revs[id] = rev
	case "d":
		delete(revs, id)
	default:
		return fmt.Errorf("unknown operation %q", op)
	}
	return nil
}

// appendRevLine appends the entry for op, rev and id to buf.
func appendRevLine(buf []byte, op byte, rev int64, id string) []byte {
	start := len(buf)
	buf = append(buf, "00000000 "...)
	body := len(buf)
	buf = append(buf, op, ' ')
	buf = strconv.AppendInt(buf, rev, 10)
	buf = append(buf, ' ')
	buf = strconv.AppendQuote(buf, id)
	sum := strconv.FormatUint(uint64(crc32.ChecksumIEEE(buf[body:])), 16)
	copy(buf[start+8-len(sum):], sum)
	return append(buf, '\n')
}

// at returns the revision session id was indexed at.
func (s *revStore) at(id string) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rev, ok := s.revs[id]
	return rev, ok
}

// forget records that session id is no longer indexed at any revision. The
// entry reaches the disk with the next sync (syncForgotten), which the caller
// makes before writing any batch that changes the session's documents.
func (s *revStore) forget(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.revs[id]; !ok {
		return nil
	}
	if err := s.append(appendRevLine(nil, 'd', 0, id), 1); err != nil {
		return err
	}
	delete(s.revs, id)
	s.dirty = true
	return nil
}

// forgetAbsent forgets, on disk at once, the revisions of sessions not in
// revs: sessions gone from the archive without documents to drop, which would
// otherwise stay in the log for ever. It does nothing on a read-only index.
func (s *revStore) forgetAbsent(revs map[string]int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	var buf []byte
	var gone []string
	for id := range s.revs {
		if _, ok := revs[id]; !ok {
			buf = appendRevLine(buf, 'd', 0, id)
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	if err := s.append(buf, len(gone)); err != nil {
		return err
	}
	for _, id := range gone {
		delete(s.revs, id)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", revsFile, err)
	}
	s.dirty = false
	return nil
}

// syncForgotten flushes the entries forget wrote to disk.
func (s *revStore) syncForgotten() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty {
		return nil
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", revsFile, err)
	}
	s.dirty = false
	return nil
}

// set records the revisions sessions are now indexed at, on disk and synced
// before it returns, and compacts the log when it has grown to more than twice
// the live entries.
func (s *revStore) set(revs map[string]int64) error {
	if len(revs) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var buf []byte
	for id, rev := range revs {
		buf = appendRevLine(buf, 's', rev, id)
	}
	if err := s.append(buf, len(revs)); err != nil {
		return err
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", revsFile, err)
	}
	s.dirty = false
	for id, rev := range revs {
		s.revs[id] = rev
	}
	if s.entries > revsCompactMin && s.entries > 2*len(s.revs) {
		return s.rewrite()
	}
	return nil
}

// append writes buf, holding n entries, at the end of the log. A write cut
// short is cut off again, so what follows it starts on a line of its own.
func (s *revStore) append(buf []byte, n int) error {
	if s.f == nil {
		return ErrReadOnly
	}
	if _, err := s.f.WriteAt(buf, s.size); err != nil {
		_ = s.f.Truncate(s.size)
		return fmt.Errorf("append to %s: %w", revsFile, err)
	}
	s.size += int64(len(buf))
	s.entries += n
	return nil
}

// rewrite replaces the log with one holding only the live revisions: written
// to a temporary file, synced, renamed over the log and the directory synced,
// so a crash leaves either log whole. The caller holds mu, or has s to itself.
func (s *revStore) rewrite() error {
	tmp := filepath.Join(s.dir, revsTemp)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", revsFile, err)
	}
	w := bufio.NewWriter(f)
	_, err = w.WriteString(revsHeader)
	var line []byte
	for id, rev := range s.revs {
		if err != nil {
			break
		}
		line = appendRevLine(line[:0], 's', rev, id)
		_, err = w.Write(line)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	var size int64
	if err == nil {
		size, err = f.Seek(0, io.SeekCurrent)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(s.dir, revsFile))
	}
	if err == nil {
		err = syncDir(s.dir)
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return fmt.Errorf("rewrite %s: %w", revsFile, err)
	}
	if s.f != nil {
		_ = s.f.Close()
	}
	s.f, s.size, s.entries, s.dirty = f, size, len(s.revs), false
	return nil
}

// close closes the log file.
func (s *revStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}
