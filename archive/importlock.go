package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrReadOnly is returned by the methods that write when the archive was opened
// read-only (a read-only mount, a data directory without write permission, a backup
// being browsed).
var ErrReadOnly = errors.New("archive: opened read-only")

// importLockPath is the file whose lock serialises imports of one archive.
func (s *Store) importLockPath() string { return s.Path + ".import-lock" }

// lockImports takes the archive's import lock, waiting for an import by another
// process (or another Store in this one) to finish: two imports that both saw a
// file as new would each store it, and the second would record a rewrite that
// never happened. SQLite alone serialises transactions, not the decisions taken
// between them. The lock is an flock, so the kernel drops it when a process dies.
// While it waits, waiting (if set) is told once who holds the lock.
func (s *Store) lockImports(ctx context.Context, waiting func(holder string)) (release func(), err error) {
	if s.readOnly {
		return nil, fmt.Errorf("import into %s: %w", s.Path, ErrReadOnly)
	}
	f, err := os.OpenFile(s.importLockPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open import lock: %w", err)
	}
	told := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("take import lock %s: %w", f.Name(), err)
		}
		if ok {
			break
		}
		if !told {
			told = true
			holder := "another import"
			if b, err := os.ReadFile(f.Name()); err == nil && strings.TrimSpace(string(b)) != "" {
				holder = strings.TrimSpace(string(b))
			}
			s.Logger.Info("waiting for another import to finish", "holder", holder)
			if waiting != nil {
				waiting(holder)
			}
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte("an import by "+processName()+" (pid "+strconv.Itoa(os.Getpid())+")\n"), 0)
	return func() {
		_ = f.Truncate(0)
		unlock(f)
		f.Close()
	}, nil
}

// processName is this program's name, as a person would recognise it in a message.
func processName() string {
	if len(os.Args) > 1 {
		base := os.Args[0]
		if i := strings.LastIndexByte(base, '/'); i >= 0 {
			base = base[i+1:]
		}
		return base + " " + os.Args[1]
	}
	return "this program"
}
