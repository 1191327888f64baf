// Package archive owns Logbook's storage: a pure-Go SQLite archive that keeps every
// session record exactly as written, the derived views the UI and CLI query, and the
// import pipeline that fills it from agent session logs.
package archive

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// ErrNotFound is returned when a session or item does not exist.
var ErrNotFound = errors.New("archive: not found")

// Store is the archive: one SQLite file opened as a single-connection writer and a
// reader pool, so imports never block the UI's reads (WAL) and never race each other.
type Store struct {
	Path   string
	Logger *slog.Logger
	Now    func() time.Time

	write *sql.DB
	read  *sql.DB
	zdec  *zstd.Decoder // shared: DecodeAll is safe for concurrent use
	zenc  *zstd.Encoder // shared: EncodeAll is safe for concurrent use
	// stmts are the import's statements by name, prepared once on the writer: an
	// import binds them to its transaction instead of preparing a dozen statements
	// per file, which cost more than a small session's inserts.
	stmts     map[string]*sql.Stmt
	blockBufs sync.Pool // block buffers reused from file to file (see newBlockWriter)
	workers   workers   // goroutines reused from file to file (see workers)
	// bound holds stmts bound to the write transaction they last ran in (boundTx):
	// binding a dozen statements to every file's transaction cost about as much as a
	// small session's inserts, and a batch's files share one transaction.
	boundMu sync.Mutex
	boundTx *sql.Tx
	bound   map[string]*sql.Stmt
	// batch is the write transaction the new files of the running Import share, or
	// nil (see writeBatch). Only the importing goroutine, under the import lock,
	// touches it.
	batch *writeBatch
	// readStmts are the reader's statements that an index build runs for every
	// session (blocksSQL), prepared at their first use.
	readStmts lazyStmts
	// importFault, when set (by a test), is asked before each file's session is
	// saved: an error it returns is a fault of the machine in the middle of the
	// file, its records written but not its totals.
	importFault func(path string) error
	// readOnly is set by OpenReadOnly: nothing is ever written, and the methods that
	// write return ErrReadOnly.
	readOnly bool
}

// New returns a Store for the database file at path; call Open before use.
func New(path string) *Store {
	return &Store{Path: path, Logger: slog.Default(), Now: time.Now, readStmts: lazyStmts{queries: blocksSQL}}
}

// archivedBlockMax bounds one decoded block of archived lines. A block is about
// blockTarget bytes of lines, or one longer line (at most dsh.DefaultMaxLineBytes
// now); before lines were capped, a line of a zstd session could reach the old 512
// MiB frame limit, and the blocks holding such lines must stay readable.
const archivedBlockMax = 512 << 20

// Open opens (creating if needed) the database and applies pending migrations.
func Open(ctx context.Context, path string) (*Store, error) {
	s := New(path)
	if err := s.Open(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Open does the I/O for a Store made with New.
func (s *Store) Open(ctx context.Context) error {
	s.Logger = s.Logger.With("component", "archive")
	abs, err := filepath.Abs(s.Path)
	if err != nil {
		return fmt.Errorf("open archive: %w", err)
	}
	if err := ownerOnly(abs); err != nil {
		return fmt.Errorf("open archive: %w", err)
	}
	if err := createWithLargePages(abs); err != nil {
		return fmt.Errorf("open archive: %w", err)
	}
	// busy_timeout comes first so that every later pragma (journal_mode in particular,
	// which needs a lock) waits for a concurrent connection instead of failing with
	// SQLITE_BUSY. WAL lets readers run while the single writer imports; NORMAL
	// synchronous is durable across application crashes in WAL mode; foreign keys are
	// off by default in SQLite and must be asked for on every connection.
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	// Checkpoint every 64 MiB of WAL (4096 pages of 16 KiB) rather than 4 MiB: each
	// checkpoint syncs the database file, and during bulk imports those syncs
	// dominated the wall time.
	q.Add("_pragma", "wal_autocheckpoint(4096)")
	dsn := "file:" + abs + "?" + q.Encode()
	// The page cache is per connection and outside the Go heap: 8 MiB for the one
	// writer (imports) and for each of the four readers, which mostly read a
	// session's recent pages once (the kernel caches the file for them anyway). An
	// import appends, so a larger writer cache only holds pages it is done with:
	// 64 MiB each let a large import with the index reading along reach ~580 MB,
	// and 32 MiB for the writer cost 20-40 MB more peak RSS than 8 and no less
	// time (1 GB import 102 s against 94; 10,000 small sessions 4.6-4.7 s against
	// 4.4-4.7), plus 75-110 ms to free it page by page at close.
	if s.write, err = sql.Open("sqlite", dsn+"&_pragma=cache_size(-8192)&_txlock=immediate"); err != nil {
		return fmt.Errorf("open archive writer: %w", err)
	}
	s.write.SetMaxOpenConns(1)
	if s.read, err = sql.Open("sqlite", dsn+"&_pragma=cache_size(-8192)&mode=ro"); err != nil {
		return fmt.Errorf("open archive reader: %w", err)
	}
	s.read.SetMaxOpenConns(4)
	// One decoder and one encoder serve every import and read: both are costly to
	// create (per file they cost more than a small session's import). The decoder
	// reads the archive's own blocks and texts, and the frames of session files that
	// a format's stream has scanned and found small (format.StreamSource.Decoder;
	// see dsh.Options.Decoder): a larger or hostile frame goes to a decoder of the
	// stream's own, capped at dsh.DefaultMaxFrameBytes. Its own cap is
	// archivedBlockMax, the size the blocks of archives made before lines were
	// capped may reach; the window is capped with it, as a frame's window is only
	// ever that frame's output here (DecodeAll).
	if s.zdec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(2), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(archivedBlockMax), zstd.WithDecoderMaxWindow(archivedBlockMax)); err != nil {
		return fmt.Errorf("open archive: %w", err)
	}
	// Blocks are about blockTarget (1 MiB) of lines, so a 2 MiB window loses them
	// nothing; the default 8 MiB window made each of the two encoders hold 16 MiB.
	if s.zenc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(2),
		zstd.WithWindowSize(2<<20), zstd.WithLowerEncoderMem(true)); err != nil {
		return fmt.Errorf("open archive: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		return err
	}
	return s.prepare(ctx)
}

// prepare prepares the import's statements (the projection's, the block INSERT and
// those that save a file and a session's totals).
func (s *Store) prepare(ctx context.Context) error {
	s.stmts = map[string]*sql.Stmt{}
	queries := map[string]string{blockInsertName: blockInsertSQL}
	for name, q := range projectorSQL {
		queries[name] = q
	}
	for n := eventTail; n >= 1; n /= 2 {
		queries[eventsName(n)] = eventsInsert(n)
	}
	for name, q := range fileSQL {
		queries[name] = q
	}
	for name, q := range sessionSQL {
		queries[name] = q
	}
	for name, q := range queries {
		stmt, err := s.write.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %s: %w", name, err)
		}
		s.stmts[name] = stmt
	}
	return nil
}

// txStmt is the prepared statement name bound to tx. It stays bound until tx ends
// (database/sql closes it then): callers never close it.
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, name string) *sql.Stmt {
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	if s.boundTx != tx {
		s.boundTx, s.bound = tx, map[string]*sql.Stmt{}
	}
	st := s.bound[name]
	if st == nil {
		st = tx.StmtContext(context.WithoutCancel(ctx), s.stmts[name])
		s.bound[name] = st
	}
	return st
}

// ownerOnly makes the archive file readable by its owner alone (0600), creating it
// empty if it does not exist: sessions hold prompts, code and often secrets, and a
// data directory is not always 0700. SQLite gives the WAL and shared-memory files
// the database file's permissions, so they follow. Files of an older archive that
// were made 0644 are narrowed too.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
				return err
			}
		}
	}
	return nil
}

// pageSize is the page size of new archives. SQLite's default of 4 KiB makes a
// message of more than about 1 KiB spill part of its row into an overflow page of
// its own (messages is a WITHOUT ROWID table), which left a third of a generated
// archive empty; with 16 KiB pages texts of a few KiB stay in their row, and an
// import writes a quarter as many pages.
const pageSize = 16384

// createWithLargePages creates the archive file with pageSize pages when it does not
// exist yet. The page size is fixed once the first page is written, and the driver
// runs a DSN's pragmas in its own order (journal_mode before page_size), so a
// connection of its own sets the size and then WAL mode, which writes the header.
func createWithLargePages(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.Size() > 0:
		return nil // an existing archive keeps its page size
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil // reported when the archive itself is opened
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA page_size = %d`, pageSize)); err != nil {
		return err
	}
	_, err = db.Exec(`PRAGMA journal_mode = WAL`)
	return err
}

// Close closes both pools; it is safe on a partly opened Store.
func (s *Store) Close() error {
	errs := []error{s.readStmts.close()}
	if s.read != nil {
		errs = append(errs, s.read.Close())
	}
	if s.zdec != nil {
		s.zdec.Close()
	}
	if s.zenc != nil {
		_ = s.zenc.Close()
	}
	for _, stmt := range s.stmts {
		errs = append(errs, stmt.Close())
	}
	if s.write != nil && !s.readOnly { // a read-only Store's write is its read pool
		_, _ = s.write.Exec(`PRAGMA optimize`)
		errs = append(errs, s.write.Close())
	}
	return errors.Join(errs...)
}

// Maintain checkpoints the WAL back into the database and refreshes planner
// statistics; run it after bulk imports and periodically.
func (s *Store) Maintain(ctx context.Context) error {
	if _, err := s.write.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if _, err := s.write.ExecContext(ctx, `PRAGMA optimize`); err != nil {
		return fmt.Errorf("optimize: %w", err)
	}
	return nil
}

// migrate applies embedded migrations in lexical order, each in its own transaction,
// recording them in schema_migrations. Shipped files are never edited.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name       TEXT PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := s.migrateFile(ctx, name); err != nil {
			return fmt.Errorf("migrate %s: %w", name, err)
		}
	}
	return nil
}

func (s *Store) migrateFile(ctx context.Context, name string) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	base := strings.TrimPrefix(name, "migrations/")
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, base).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := migrations.ReadFile(name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, base, s.Now().UnixMilli()); err != nil {
		return err
	}
	return tx.Commit()
}

// zstdMagic opens every zstd frame. Texts packed by earlier versions are zstd frames;
// an S2 block of at least packAbove bytes starts with a multi-byte length (a first
// byte of 0x80 or more), so it never begins like one.
var zstdMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}

// unpackText reads a column written by the projection's pack: TEXT as is, a BLOB
// S2-compressed (or zstd-compressed, by earlier versions).
func (s *Store) unpackText(v any) (string, error) {
	switch t := v.(type) {
	case nil:
		return "", nil
	case string:
		return t, nil
	case []byte:
		var b []byte
		var err error
		if bytes.HasPrefix(t, zstdMagic) {
			b, err = s.zdec.DecodeAll(t, nil)
		} else {
			b, err = s2.Decode(nil, t)
		}
		if err != nil {
			return "", fmt.Errorf("archived text does not decompress: %w", err)
		}
		return string(b), nil
	default:
		return fmt.Sprint(t), nil
	}
}
