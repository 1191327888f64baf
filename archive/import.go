package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/logbook/logbook/archive/format"
)

// ImportOptions tunes an import run.
type ImportOptions struct {
	Strict         bool // every record-level problem is fatal
	LenientHeaders bool // accept headers without delegationDepth (pre-release writers)
	// Progress, when set, is called as files are read (bytes of the current file).
	Progress func(Progress)
	// BatchRecords commits a long file every this many records so the WAL and a crash
	// stay bounded; 0 means 20,000.
	BatchRecords int
	// Committed, when set, is called after each intermediate batch of a file is
	// durably committed, with the last line it holds.
	Committed func(path string, line int64)
	// CommittedSessions, when set, is called by Import (and ImportFile) on its
	// own goroutine each time a commit makes whole files' changes durable, with
	// the ids of the sessions those files changed: what an index fed along the
	// import (index.AlongFeed) reads next, instead of looking at every session's
	// revision. It must return quickly; the import waits for it.
	CommittedSessions func(ids []string)
	// Waiting, when set, is told who holds the archive's import lock when this
	// import has to wait for another one to finish (see lockImports).
	Waiting func(holder string)
	// ReplaceDamaged lets a source that changed in its archived part replace the
	// archived session even when it holds less (damaged lines, fewer events): the
	// person's choice after a "damaged upstream" report. The archived version is
	// kept as superseded lines, as with any rewrite.
	ReplaceDamaged bool
	// TakeOver lets a file whose session another existing file archives take
	// the session over instead of being checked as a duplicate: the person's
	// choice of that version (`logbook sync resolve --keep`, for a session
	// this machine reads from an agent's log). The other files are released:
	// still listed, no longer the session's source, never written to; what
	// they had archived is kept as superseded lines, as with any rewrite. A
	// released file imported again does not take the session back: unchanged,
	// it is unchanged; grown or rewritten, it is a duplicate of the session's
	// new source.
	TakeOver bool
	// Added, when not nil, names the files (paths inside the source, forward
	// slashes) its writer added or replaced since the source was last imported,
	// the writer promising it changed nothing else: a format that can
	// (format.AddedReader) then reads those alone. Pushed sets it.
	Added []string
	// Discovered, when not nil, is what Discover found of the paths Import is
	// given, which it then does not walk again: the caller walked them already
	// (logbook import, for the bundles among them: Discovered.Bundles).
	Discovered *Discovered
}

// Progress reports how far an import has come.
type Progress struct {
	File       string
	FileIndex  int
	Files      int
	FileBytes  int64 // bytes of the current file read so far
	FileSize   int64
	DoneBytes  int64 // bytes of finished files
	TotalBytes int64
}

// source is what a format reading a source file is given, from its start when
// stamp is nil.
func (o ImportOptions) source(path string, data io.Reader, stamp, header []byte) format.StreamSource {
	return format.StreamSource{Path: path, Data: data, Stamp: stamp, Header: header, Strict: o.Strict,
		LenientHeaders: o.LenientHeaders}
}

// streamSource is source for this store's imports, which share its decoder.
func (s *Store) streamSource(o ImportOptions, path string, data io.Reader, stamp, header []byte) format.StreamSource {
	src := o.source(path, data, stamp, header)
	src.Decoder = s.zdec
	return src
}

// fileRow is the stored state of one imported file.
type fileRow struct {
	id        int64
	sessionPK sql.NullInt64
	size      int64
	mtime     int64
	inode     int64
	ctime     int64
	sums      []byte // prefix_sums
	lastSeq   int64
	upstream  *upstreamState // a damaged or shorter upstream version kept aside, or nil
	headHash  []byte
	tailHash  []byte
	cursorRaw string // the cursor as stored: the stamp its format gave
	// offset is how many of the file's bytes the stamp covers, when resumable (a
	// stamp its format can resume from; see format.StreamReader.Offset).
	offset     int64
	resumable  bool
	verdict    string
	errorKind  string
	generation int64
	gone       bool
}

// identity is what a stat tells about a file. ctime 0 is unknown (a row stored
// before ctimes were kept, or a platform without them).
type identity struct{ size, mtime, inode, ctime int64 }

func statIdentity(fi os.FileInfo) identity {
	id := identity{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	id.inode, id.ctime = statIDs(fi)
	return id
}

// same reports whether a file's stat now (cur) is the one stored (id): then it is
// taken as unchanged without reading a byte. Any other stat (a new mtime, a new
// ctime after an edit that restored the mtime) makes the import check the bytes it
// committed before it trusts them.
func (id identity) same(cur identity) bool {
	return id.size == cur.size && id.mtime == cur.mtime && id.inode == cur.inode &&
		(id.ctime == 0 || id.ctime == cur.ctime)
}

// Import imports every session file found under paths (or the default roots when
// paths is empty). One bad file never stops the others; files that disappeared from a
// walked root are marked gone upstream and stay archived.
func (s *Store) Import(ctx context.Context, paths []string, opts ImportOptions) (*ImportReport, error) {
	if len(paths) == 0 {
		paths = DefaultRoots()
	}
	unlock, err := s.lockImports(ctx, opts.Waiting)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var d Discovered
	if opts.Discovered != nil {
		d = *opts.Discovered
	} else {
		d = Discover(paths)
	}
	rep := &ImportReport{Files: []FileReport{}, Gone: []string{}}
	rep.Files = append(rep.Files, d.Reports()...)
	known, err := s.knownFiles(ctx, "")
	if err != nil {
		return rep, err
	}
	var total int64
	sizes := make([]int64, len(d.Files))
	ids := make([]*identity, len(d.Files))
	stats := make([]os.FileInfo, len(d.Files))
	statAll(d.Files, stats)
	for i, fi := range stats {
		if fi != nil {
			sizes[i] = fi.Size()
			total += sizes[i]
			id := statIdentity(fi)
			ids[i] = &id
		}
	}
	// A source of a format that reads its sources whole (not as a stream) is
	// compared with its stamp by the format (a folder's stat does not change when a
	// file in it is rewritten): it is never taken as unchanged here, nor begun early.
	fms := make([]format.Format, len(d.Files))
	for i, f := range d.Files {
		fms[i] = formatNamed(d.Formats[f])
	}
	seam := func(i int) bool { _, ok := fms[i].(format.StreamReader); return !ok }
	unchanged := func(i int) bool {
		if seam(i) {
			return false
		}
		k := known[d.Files[i]]
		return k != nil && ids[i] != nil && !k.gone && k.id.same(*ids[i]) && !retryLenient(opts, k.report) &&
			!(opts.ReplaceDamaged && k.upstream) && !(opts.TakeOver && k.report.SessionID == "")
	}
	bases := make([]int64, len(d.Files)) // bytes of the files before each one
	for i := 1; i < len(d.Files); i++ {
		bases[i] = bases[i-1] + sizes[i-1]
	}
	// Progress may now come from two files' readers, one after the other; the lock
	// keeps the caller's callback from ever running twice at once.
	var progressMu sync.Mutex
	fileOpts := func(i int) ImportOptions {
		fo := opts
		if opts.Progress != nil {
			fo.Progress = func(p Progress) {
				p.FileIndex, p.Files, p.DoneBytes, p.TotalBytes = i, len(d.Files), bases[i], total
				progressMu.Lock()
				defer progressMu.Unlock()
				opts.Progress(p)
			}
		}
		return fo
	}
	// Files never imported before are begun while the files before them are still
	// being written: once a file's records are all read, a core would otherwise wait
	// for its last block, totals and commit. With thousands of small sessions that
	// wait was most of an import's wall time. Up to readAheadFiles files are begun
	// ahead, each starting to read when the one before it has been read, so reading
	// stays in file order and runs on while a run of small files is being written.
	var queue []*early
	defer func() {
		for _, e := range queue {
			e.discard()
		}
	}()
	// Small files never imported before share a write transaction (see
	// writeBatch); any other file is imported after the batch is committed, in a
	// transaction of its own.
	batch := &writeBatch{}
	defer batch.rollback() // committed on every return but a panic's
	repAt := map[int]int{} // where each file's report is in rep.Files
	freeSpace := false     // a file failed on a full disk: checkpoint before going on
	// committed tells opts.CommittedSessions of the changed sessions among the
	// files (Import's indexes) just committed.
	committed := func(files ...int) {
		if opts.CommittedSessions == nil {
			return
		}
		var ids []string
		for _, k := range files {
			if fr := rep.Files[repAt[k]]; fr.Changed && fr.SessionID != "" {
				ids = append(ids, fr.SessionID)
			}
		}
		if len(ids) > 0 {
			opts.CommittedSessions(ids)
		}
	}
	settle := func() {
		pending := append([]int(nil), batch.pending...)
		ok := batch.commit() == nil && !batch.lost
		if freeSpace {
			// The WAL holds every page written since the last checkpoint, and a
			// failed transaction leaves it as large as it grew: moving it into the
			// database and truncating it gives the space back, so the files after
			// this one (and a lost batch's, imported again below) can still fit.
			// The batch is committed or rolled back by now, so the writer is free.
			freeSpace = false
			if _, err := s.write.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				s.Logger.Debug("checkpoint after a full disk failed", "err", err)
			}
		}
		if ok {
			committed(pending...)
			return
		}
		// Rolled back whole (a file in it failed, or SQLite gave up the transaction):
		// the batch's files are imported again, each on its own, and their reports
		// are the ones of that try.
		batch.pending, batch.bytes, batch.lost = batch.pending[:0], 0, false
		for _, k := range pending {
			rep.Files[repAt[k]] = s.importFile(ctx, fms[k], d.Files[k], fileOpts(k), nil, nil)
			committed(k)
		}
	}
	for i, f := range d.Files {
		if err := ctx.Err(); err != nil {
			settle()
			return rep, err
		}
		if unchanged(i) {
			// Unchanged since the last run: a stat decided it, no query needed.
			rep.Files = append(rep.Files, known[f].report)
			continue
		}
		if seam(i) {
			settle()
			fo := fileOpts(i)
			if fo.Progress != nil {
				fo.Progress(Progress{File: f})
			}
			repAt[i] = len(rep.Files)
			rep.Files = append(rep.Files, s.importSourceReport(ctx, fms[i], f, fo, known[f]))
			committed(i)
			continue
		}
		fo := fileOpts(i)
		var begun *begunFile
		readDone := newSignal()
		if len(queue) > 0 && queue[0].index == i {
			begun, readDone, queue = queue[0].take(), queue[0].readDone, queue[1:]
		} else if fo.Progress != nil {
			fo.Progress(Progress{File: f, FileSize: sizes[i]})
		}
		after, k := readDone, i+1
		if len(queue) > 0 {
			last := queue[len(queue)-1]
			after, k = last.readDone, last.index+1
		}
		for ; len(queue) < readAheadFiles && k < len(d.Files); k++ {
			if unchanged(k) {
				continue
			}
			if known[d.Files[k]] != nil || seam(k) {
				break // not a full read from the start: it is read in its turn
			}
			e := s.beginEarly(k, fms[k], d.Files[k], stats[k], fileOpts(k), after)
			queue, after = append(queue, e), e.readDone
		}
		if known[f] == nil && sizes[i] <= batchFileBytes {
			s.batch, batch.current = batch, i
		} else {
			settle()
		}
		fr := s.importFile(ctx, fms[i], f, fo, begun, readDone)
		s.batch = nil
		readDone.fire()
		repAt[i] = len(rep.Files)
		rep.Files = append(rep.Files, fr)
		if n := len(batch.pending); n > 0 && batch.pending[n-1] == i {
			batch.bytes += sizes[i]
		} else {
			committed(i) // in a transaction of its own, or failed
		}
		if fr.Error != nil && fr.Error.Kind == KindDiskFull {
			freeSpace = true
		}
		if batch.lost || freeSpace || batch.full() {
			settle()
		}
	}
	settle()
	gone, err := s.markGone(ctx, d.Roots, d.Files)
	if err != nil {
		return rep, err
	}
	rep.Gone = gone
	rep.Summary = summarize(rep.Files)
	return rep, nil
}

// statAll stats each of paths into stats (nil where it failed), on a few
// goroutines: thousands of small sessions took 50 ms, one after the other, before
// an import could begin.
func statAll(paths []string, stats []os.FileInfo) {
	eachOn(listWorkers, len(paths), func(i int) {
		if fi, err := os.Stat(paths[i]); err == nil {
			stats[i] = fi
		}
	})
}

// eachOn calls fn for each of 0..n-1 on up to workers goroutines, and returns
// when every call has.
func eachOn(workers, n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

func summarize(files []FileReport) Summary {
	var sum Summary
	for _, f := range files {
		sum.Files++
		switch f.Verdict {
		case VerdictOK:
			sum.OK++
		case VerdictRecovered:
			sum.Recovered++
		case VerdictCorrupt:
			sum.Corrupt++
		case VerdictUnsupported:
			sum.Unsupp++
		case VerdictFailed:
			sum.Failed++
		}
		if f.Changed {
			sum.Changed++
		} else {
			sum.Unchanged++
		}
		sum.Events += f.LogicalEvents
		sum.Bytes += f.Bytes
	}
	return sum
}

// ImportFile imports one session file incrementally: an unchanged file is skipped on
// its stat alone, an appended one is read from its cursor, and a rewritten one is
// read again with the lines it replaced kept as superseded records.
func (s *Store) ImportFile(ctx context.Context, path string, opts ImportOptions) FileReport {
	unlock, err := s.lockImports(ctx, opts.Waiting)
	if err != nil {
		return failedReport(path, err)
	}
	defer unlock()
	fm := formatNamed(formatOfPath(path))
	var fr FileReport
	if _, ok := fm.(format.StreamReader); !ok {
		fr = s.importSourceReport(ctx, fm, path, opts, nil)
	} else {
		fr = s.importFile(ctx, fm, path, opts, nil, nil)
	}
	if opts.CommittedSessions != nil && fr.Changed && fr.SessionID != "" {
		opts.CommittedSessions([]string{fr.SessionID})
	}
	return fr
}

// importSourceReport is importSource's report (see runReport).
func (s *Store) importSourceReport(ctx context.Context, f format.Format, path string, opts ImportOptions, known *knownFile) FileReport {
	fr, err := s.importSource(ctx, f, path, opts, known)
	return s.runReport(path, fr, err)
}

// importFile is ImportFile for a source file of a format that streams it, begun
// early (begun, or nil), whose reading fires readDone when it is over.
func (s *Store) importFile(ctx context.Context, fm format.Format, path string, opts ImportOptions, begun *begunFile, readDone *signal) FileReport {
	var fr FileReport
	var err error
	if begun != nil {
		fr, err = s.importBegun(ctx, begun)
	} else {
		fr, err = s.importPath(ctx, fm, path, opts, readDone)
	}
	return s.runReport(path, fr, err)
}

// runReport is the report of a source's import that ended with err.
func (s *Store) runReport(path string, fr FileReport, err error) FileReport {
	if err != nil {
		// A fault of this machine or of the run, never a verdict on the file: nothing
		// of this run's last transaction was kept, the file's stored identity is the
		// one before it, and the next import reads the file again.
		s.Logger.Error("import failed", "path", path, "err", err)
		sid := fr.SessionID
		fr = failedReport(path, err)
		fr.SessionID = sid
	}
	if fr.Warnings == nil {
		fr.Warnings = []Problem{} // the report's JSON lists warnings, never null
	}
	return fr
}

// importPath imports a source file its format streams: not at all when its stat
// is the one stored, from its stamp when the bytes before it are unchanged, else
// from its start (after guardRewrite has checked the new version).
func (s *Store) importPath(ctx context.Context, fm format.Format, path string, opts ImportOptions, readDone *signal) (FileReport, error) {
	fr := FileReport{Path: path, LastSeq: -1}
	fi, err := os.Stat(path)
	if err != nil {
		return fr, err
	}
	id := statIdentity(fi)
	row, err := s.fileRow(ctx, path)
	if err != nil {
		return fr, err
	}
	retry := row != nil && opts.LenientHeaders && !row.sessionPK.Valid && row.errorKind == string(format.KindBadHeader)
	replace := row != nil && opts.ReplaceDamaged && row.upstream != nil
	// A duplicate (no session of its own) that is to take its session over is
	// read again even when unchanged.
	takeOver := row != nil && opts.TakeOver && !row.sessionPK.Valid
	if row != nil && !row.gone && !retry && !replace && !takeOver && row.identity().same(id) {
		return s.storedReport(ctx, path, "unchanged")
	}
	// Never os.Open: opening a named pipe blocks until a writer comes.
	f, _, err := openRegular(path)
	if err != nil {
		return fr, err
	}
	defer f.Close()
	sr := fm.(format.StreamReader)
	if row != nil && row.cursorRaw != "" {
		row.offset, row.resumable = sr.Offset([]byte(row.cursorRaw))
	}
	if row != nil && row.resumable && row.sessionPK.Valid {
		same, err := sameCommittedPrefix(f, id, row)
		if err != nil {
			return fr, err
		}
		if same {
			return s.importAppend(ctx, fm, f, id, row, opts, readDone)
		}
		// The bytes the archive holds changed upstream. A version that holds less
		// (damaged lines, a shorter log) never replaces the archived one: that stays
		// served, and the new bytes are kept beside it for the person to choose.
		if !opts.ReplaceDamaged {
			if kept, err := s.guardRewrite(ctx, fm, f, id, row, opts); err != nil || kept != nil {
				if kept == nil {
					return fr, err
				}
				return *kept, err
			}
		}
	}
	b := s.begin(fm, f, id, opts, readDone)
	b.row = row
	return s.importFull(ctx, b)
}

// retryLenient reports whether an unchanged file must be read again: its header was
// refused (no session was made) and this import accepts pre-release headers.
func retryLenient(opts ImportOptions, stored FileReport) bool {
	return opts.LenientHeaders && stored.SessionID == "" && stored.Error != nil && stored.Error.Kind == format.KindBadHeader
}

// sameCommittedPrefix checks that the bytes an earlier import committed are still
// there, every one of them (prefix sums); for a row stored before sums were kept
// (its head and tail hashes are the only ones still read), the first bytes (header)
// and the 4 KiB before the cursor.
func sameCommittedPrefix(f *os.File, id identity, row *fileRow) (bool, error) {
	if id.size < row.offset {
		return false, nil
	}
	if row.sums != nil {
		return samePrefix(f, id.size, row.offset, row.sums)
	}
	head, tail, err := prefixHashes(f, row.offset)
	if err != nil {
		return false, err
	}
	return bytes.Equal(head, row.headHash) && bytes.Equal(tail, row.tailHash), nil
}

// prefixHashes hashes the first min(256, off) bytes and the min(4096, off) bytes
// before off.
func prefixHashes(f *os.File, off int64) ([]byte, []byte, error) {
	hn := min(off, 256)
	head := make([]byte, hn)
	if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read head: %w", err)
	}
	tn := min(off, 4096)
	tail := make([]byte, tn)
	if _, err := f.ReadAt(tail, off-tn); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read tail: %w", err)
	}
	h1, h2 := sha256.Sum256(head), sha256.Sum256(tail)
	return h1[:], h2[:], nil
}

// progressReader counts bytes for progress reports.
type progressReader struct {
	r    io.Reader
	n    int64
	size int64
	path string
	fn   func(Progress)
	last int64
	// summing is set while sum is the CRC-32C of every byte read from the file's
	// start, all in its first prefix-sum chunk: the prefix sum of a small file is
	// taken from the bytes read, not read again (see readSums).
	summing bool
	sum     uint32
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if p.summing {
		if p.n+int64(n) > sumChunk {
			p.summing = false // grown past a chunk since its stat: summed from the file
		} else {
			p.sum = crc32.Update(p.sum, castagnoli, b[:n])
		}
	}
	p.n += int64(n)
	if p.fn != nil && (p.n-p.last >= 4<<20 || err != nil) {
		p.last = p.n
		p.fn(Progress{File: p.path, FileBytes: p.n, FileSize: p.size})
	}
	return n, err
}

// begunFile is a file whose full read has begun: its stream is open and, when it
// accepted the file, its records are being read on their own goroutines.
type begunFile struct {
	fm   format.Format
	f    *os.File
	row  *fileRow
	opts ImportOptions
	pr   *progressReader
	job  *importJob // nil on err
	err  error
}

// begin starts reading an open file of format fm from its start.
func (s *Store) begin(fm format.Format, f *os.File, id identity, opts ImportOptions, readDone *signal) *begunFile {
	b := &begunFile{fm: fm, f: f, opts: opts}
	b.pr = &progressReader{r: f, size: id.size, path: f.Name(), fn: opts.Progress}
	b.pr.summing = id.size <= readAllBytes
	src := s.streamSource(opts, f.Name(), b.pr, nil, nil)
	src.Size = id.size
	st, err := fm.(format.StreamReader).Open(src)
	if err != nil {
		b.err = err
		return b
	}
	b.job = s.newJob(fm, f, id, st, opts, "new", readDone)
	b.job.read = b.pr
	if b.job.facts != nil {
		b.job.startReading()
	}
	return b
}

// refused reports whether the file's stream refused it: nothing of it is read.
func (b *begunFile) refused() bool { return b.job == nil || b.job.facts == nil }

// close stops the file's reading and releases its stream.
func (b *begunFile) close() {
	if b.job == nil {
		return
	}
	if b.job.stop != nil {
		b.job.stop()
	}
	b.job.stream.Close()
}

// importFull reads a file from its start: a new file, or one rewritten upstream.
func (s *Store) importFull(ctx context.Context, b *begunFile) (FileReport, error) {
	defer b.close()
	path := b.f.Name()
	if b.err != nil {
		return FileReport{Path: path, LastSeq: -1}, b.err
	}
	action := "new"
	if b.row != nil {
		action = "rewritten"
	}
	job := b.job
	job.row, job.action = b.row, action
	if job.facts == nil { // refused: unsupported version or a bad header
		if err := job.saveRefused(ctx); err != nil {
			return FileReport{Path: path, LastSeq: -1}, err
		}
		return s.readReport(ctx, path, action, b.pr.n)
	}
	if err := job.run(ctx, nil); err != nil {
		return FileReport{Path: path, LastSeq: -1}, err
	}
	return job.readReport(b.pr.n), nil
}

// readAheadFiles is how many files are begun ahead of the one being written. Only
// one of them reads at a time; the others hold at most a full channel of records.
const readAheadFiles = 2

// early is a file begun ahead of its turn by a goroutine of its own, once the file
// before it has been read (after). readDone fires when its own reading is over, or
// at once if it could not begin, so the file after it never waits in vain.
type early struct {
	index    int
	c        chan *begunFile
	readDone *signal
}

// beginEarly begins file i (never imported: a full read from the start) once
// after fires; fi is its stat as Import took it, or nil.
func (s *Store) beginEarly(i int, fm format.Format, path string, fi os.FileInfo, opts ImportOptions, after *signal) *early {
	e := &early{index: i, c: make(chan *begunFile, 1), readDone: newSignal()}
	s.workers.run(func() {
		<-after.c
		var size int64
		if fi != nil {
			size = fi.Size()
		}
		if opts.Progress != nil {
			opts.Progress(Progress{File: path, FileSize: size})
		}
		open := openRegular
		if fi != nil {
			open = func(path string) (*os.File, os.FileInfo, error) { return openStated(path, fi) }
		}
		f, fi, err := open(path)
		if err != nil {
			e.readDone.fire()
			e.c <- nil
			return
		}
		b := s.begin(fm, f, statIdentity(fi), opts, e.readDone)
		if b.refused() {
			e.readDone.fire() // refused or unreadable: nothing reads on
		}
		e.c <- b
	})
	return e
}

// take waits for the begun file; nil if it could not be opened (it is then
// imported the ordinary way, which reports why).
func (e *early) take() *begunFile { return <-e.c }

// discard stops an early file that will not be imported now; nil is allowed.
func (e *early) discard() {
	if e == nil {
		return
	}
	if b := e.take(); b != nil {
		b.close()
		b.f.Close()
	}
}

// importBegun imports a file begun early. Only a file the archive did not know
// when the import began is begun early, and none has been stored since: the import
// holds the archive's import lock (see lockImports), and a path is imported once
// per import. So it has no row, which saves a query per file.
func (s *Store) importBegun(ctx context.Context, b *begunFile) (FileReport, error) {
	defer b.f.Close()
	return s.importFull(ctx, b)
}

// importAppend resumes reading after the stored stamp.
func (s *Store) importAppend(ctx context.Context, fm format.Format, f *os.File, id identity, row *fileRow, opts ImportOptions, readDone *signal) (FileReport, error) {
	path := f.Name()
	var headerRaw string
	if err := s.read.QueryRowContext(ctx, `SELECT header_raw FROM sessions WHERE pk = ?`, row.sessionPK.Int64).Scan(&headerRaw); err != nil {
		return FileReport{Path: path, LastSeq: -1}, fmt.Errorf("load header: %w", err)
	}
	if _, err := f.Seek(row.offset, io.SeekStart); err != nil {
		return FileReport{Path: path, LastSeq: -1}, err
	}
	pr := &progressReader{r: f, size: id.size, path: path, fn: opts.Progress, n: row.offset}
	src := s.streamSource(opts, path, pr, []byte(row.cursorRaw), []byte(headerRaw))
	src.Size = id.size - row.offset
	st, err := fm.(format.StreamReader).Open(src)
	if err != nil {
		return FileReport{Path: path, LastSeq: -1}, err
	}
	defer st.Close()
	job := s.newJob(fm, f, id, st, opts, "appended", readDone)
	job.row, job.bytes = row, src.Size
	if err := job.run(ctx, row); err != nil {
		return FileReport{Path: path, LastSeq: -1}, err
	}
	return job.readReport(pr.n - row.offset), nil
}

// readReport is storedReport for a run that read the file: it adds the physical
// bytes read, which the archive does not store.
func (s *Store) readReport(ctx context.Context, path, action string, read int64) (FileReport, error) {
	fr, err := s.storedReport(ctx, path, action)
	fr.Bytes = read
	return fr, err
}
