package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Writable reports whether the archive at path (and the folder that holds it, where
// SQLite keeps its WAL and lock files) can be written by this process: false on a
// read-only mount, a folder without write permission, or an archive file without
// it. An archive that does not exist yet is writable when its folder is.
func Writable(path string) bool {
	dir := filepath.Dir(path)
	if err := access(dir, wOK); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Writable(dir) // created by Open
		}
		return false
	}
	if err := access(path, wOK); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return true
}

// OpenReadOnly opens an existing archive for reading only: nothing is ever written
// to its file or its folder (no WAL, no migration, no lock file), so an archive on a
// read-only mount, in a folder without write permission, or in a backup being
// browsed can be read. The methods that write return ErrReadOnly (or SQLite's
// read-only error). The archive must be at the current schema: upgrading needs
// write access.
func (s *Store) OpenReadOnly(ctx context.Context) error {
	s.readOnly = true
	s.Logger = s.Logger.With("component", "archive")
	abs, err := filepath.Abs(s.Path)
	if err != nil {
		return fmt.Errorf("open archive: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("open archive %s read-only: %w", abs, err)
	}
	// mode=ro reads the WAL and its index as any reader does, which also sees what a
	// running Logbook writes; it needs the -shm file, which SQLite cannot create in a
	// folder it may not write. immutable=1 then reads the database file alone: right
	// for a read-only mount or a backup, which nothing writes.
	var lastErr error
	for _, mode := range []string{"mode=ro", "immutable=1"} {
		q := url.Values{}
		q.Add("_pragma", "busy_timeout(10000)")
		q.Add("_pragma", "query_only(1)")
		db, err := sql.Open("sqlite", "file:"+abs+"?"+q.Encode()+"&"+mode)
		if err == nil {
			db.SetMaxOpenConns(4)
			err = s.checkSchema(ctx, db)
			if err == nil {
				s.read, s.write = db, db
				break
			}
			db.Close()
		}
		lastErr = err
	}
	if s.read == nil {
		return fmt.Errorf("open archive %s read-only: %w", abs, lastErr)
	}
	if s.zdec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(2), zstd.WithDecoderMaxMemory(512<<20)); err != nil {
		return fmt.Errorf("open archive: %w", err)
	}
	return nil
}

// ReadOnly reports whether the Store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

// checkSchema makes sure every embedded migration has been applied to db.
func (s *Store) checkSchema(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT name FROM schema_migrations`)
	if err != nil {
		return err
	}
	defer rows.Close()
	applied := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		applied[n] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	var missing []string
	for _, n := range names {
		if base := strings.TrimPrefix(n, "migrations/"); !applied[base] {
			missing = append(missing, base)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the archive was written by an older Logbook and needs upgrading (%s), which needs write access", strings.Join(missing, ", "))
	}
	return nil
}
