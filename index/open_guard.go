package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// ErrDiskFull is wrapped around an error caused by a full disk: a fault of the
// machine, not of the index or the archive, which a caller can tell the user
// as such. errors.Is(err, syscall.ENOSPC) holds for such an error too. A Sync
// that fails so leaves the index on disk as its last complete batch left it,
// and the Index reopens it from there (see guarded).
var ErrDiskFull error = diskFull{}

type diskFull struct{}

func (diskFull) Error() string { return "the disk is full" }

// Is lets errors.Is match ENOSPC through ErrDiskFull, whose cause Bleve often
// flattens into text.
func (diskFull) Is(target error) bool { return target == syscall.ENOSPC }

// IsNoSpace reports whether err was caused by a full disk.
func IsNoSpace(err error) bool {
	return err != nil && hasErrno(err, syscall.ENOSPC)
}

// hasErrno reports whether e caused err: in its chain, or, as Bleve flattens
// some errors with %v (a failed segment write), in its text.
func hasErrno(err error, e syscall.Errno) bool {
	return errors.Is(err, e) || strings.Contains(err.Error(), e.Error())
}

// noSpace wraps err in ErrDiskFull when a full disk caused it.
func noSpace(err error) error {
	if IsNoSpace(err) && !errors.Is(err, ErrDiskFull) {
		return fmt.Errorf("%w: %w", ErrDiskFull, err)
	}
	return err
}

// errReopening is what a search gets from an index being reopened after a
// write failed on a full disk.
var errReopening = fmt.Errorf("%w: the search index is being reopened from disk; try again", ErrDiskFull)

// guarded is the Bleve index as Index holds it.
//
//   - A read-only index refuses writes: Bleve would wait for ever for the
//     persister it does not run in read-only mode.
//   - A write that fails on a full disk says so (ErrDiskFull) and poisons the
//     index: after a failed persist Bleve keeps segments in memory that it has
//     closed, and a search touching one panics. Every call then fails with
//     errReopening, and onPoison has the Index reopen the index from disk,
//     which holds the last complete batch.
type guarded struct {
	bl       bleve.Index
	readOnly bool
	poisoned atomic.Bool
	onPoison func()    // called once, when a write first fails on a full disk
	active   *activity // touched by every write and search (pages.go)
}

func (g *guarded) write(err error) error {
	if !IsNoSpace(err) {
		return err
	}
	if g.poisoned.CompareAndSwap(false, true) && g.onPoison != nil {
		g.onPoison()
	}
	return noSpace(err)
}

func (g *guarded) check() error {
	if g.readOnly {
		return ErrReadOnly
	}
	if g.poisoned.Load() {
		return errReopening
	}
	return nil
}

func (g *guarded) readable() error {
	if g.poisoned.Load() {
		return errReopening
	}
	return nil
}

func (g *guarded) Index(id string, data interface{}) error {
	if err := g.check(); err != nil {
		return err
	}
	return g.write(g.bl.Index(id, data))
}

func (g *guarded) Delete(id string) error {
	if err := g.check(); err != nil {
		return err
	}
	return g.write(g.bl.Delete(id))
}

func (g *guarded) NewBatch() *bleve.Batch { return g.bl.NewBatch() }

func (g *guarded) Batch(b *bleve.Batch) error {
	if err := g.check(); err != nil {
		return err
	}
	defer g.active.touch() // merges follow the batch
	return g.write(g.bl.Batch(b))
}

func (g *guarded) SetInternal(key, val []byte) error {
	if err := g.check(); err != nil {
		return err
	}
	return g.write(g.bl.SetInternal(key, val))
}

func (g *guarded) DeleteInternal(key []byte) error {
	if err := g.check(); err != nil {
		return err
	}
	return g.write(g.bl.DeleteInternal(key))
}

func (g *guarded) Document(id string) (bindex.Document, error) {
	if err := g.readable(); err != nil {
		return nil, err
	}
	g.active.touch()
	return g.bl.Document(id)
}

func (g *guarded) DocCount() (uint64, error) {
	if err := g.readable(); err != nil {
		return 0, err
	}
	return g.bl.DocCount()
}

func (g *guarded) Search(req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	return g.SearchInContext(context.Background(), req)
}

func (g *guarded) SearchInContext(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	if err := g.readable(); err != nil {
		return nil, err
	}
	g.active.touch()
	return g.bl.SearchInContext(ctx, req)
}

func (g *guarded) Fields() ([]string, error) {
	if err := g.readable(); err != nil {
		return nil, err
	}
	return g.bl.Fields()
}

func (g *guarded) FieldDict(field string) (bindex.FieldDict, error) {
	if err := g.readable(); err != nil {
		return nil, err
	}
	return g.bl.FieldDict(field)
}

func (g *guarded) FieldDictRange(field string, start, end []byte) (bindex.FieldDict, error) {
	if err := g.readable(); err != nil {
		return nil, err
	}
	return g.bl.FieldDictRange(field, start, end)
}

func (g *guarded) FieldDictPrefix(field string, prefix []byte) (bindex.FieldDict, error) {
	if err := g.readable(); err != nil {
		return nil, err
	}
	return g.bl.FieldDictPrefix(field, prefix)
}

func (g *guarded) Close() error                     { return g.bl.Close() }
func (g *guarded) Mapping() mapping.IndexMapping    { return g.bl.Mapping() }
func (g *guarded) Stats() *bleve.IndexStat          { return g.bl.Stats() }
func (g *guarded) StatsMap() map[string]interface{} { return g.bl.StatsMap() }
func (g *guarded) Name() string                     { return g.bl.Name() }
func (g *guarded) SetName(name string)              { g.bl.SetName(name) }

func (g *guarded) GetInternal(key []byte) ([]byte, error) {
	if err := g.readable(); err != nil {
		return nil, err
	}
	return g.bl.GetInternal(key)
}

func (g *guarded) Advanced() (bindex.Index, error) {
	if err := g.readable(); err != nil {
		return nil, err
	}
	g.active.touch() // planned searches read the segments through it
	return g.bl.Advanced()
}

var _ bleve.Index = (*guarded)(nil)
