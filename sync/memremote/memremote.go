// Package memremote is an in-memory sync.Remote: the fake that app tests
// use, and the reference the conformance suite is checked against.
package memremote

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	arcsync "github.com/logbook/logbook/sync"
)

// Remote keeps objects in a map. The zero value is not usable; call New.
type Remote struct {
	// Now stamps ModTime; tests may replace it.
	Now func() time.Time

	mu      sync.Mutex
	objects map[string]object
}

type object struct {
	data    []byte
	modTime time.Time
}

var _ arcsync.Remote = (*Remote)(nil)

// New returns an empty Remote.
func New() *Remote {
	return &Remote{Now: time.Now, objects: map[string]object{}}
}

// List implements sync.Remote. It snapshots the matching names first so fn
// may call back into the Remote.
func (m *Remote) List(ctx context.Context, prefix string, fn func(arcsync.Object) error) error {
	if err := arcsync.ValidatePrefix(prefix); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	var objs []arcsync.Object
	for name, o := range m.objects {
		if strings.HasPrefix(name, prefix) {
			objs = append(objs, arcsync.Object{Name: name, Size: int64(len(o.data)), ModTime: o.modTime})
		}
	}
	m.mu.Unlock()
	sort.Slice(objs, func(i, j int) bool { return objs[i].Name < objs[j].Name })
	for _, o := range objs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// Open implements sync.Remote.
func (m *Remote) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	o, err := m.get(ctx, name)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(o.data)), nil
}

// Stat implements sync.Remote.
func (m *Remote) Stat(ctx context.Context, name string) (arcsync.Object, error) {
	o, err := m.get(ctx, name)
	if err != nil {
		return arcsync.Object{}, err
	}
	return arcsync.Object{Name: name, Size: int64(len(o.data)), ModTime: o.modTime}, nil
}

func (m *Remote) get(ctx context.Context, name string) (object, error) {
	if err := arcsync.ValidateName(name); err != nil {
		return object{}, err
	}
	if err := ctx.Err(); err != nil {
		return object{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objects[name]
	if !ok {
		return object{}, fmt.Errorf("%s: %w", name, arcsync.ErrNotExist)
	}
	return o, nil
}

// Put implements sync.Remote: the object appears only once all size bytes
// have been read.
func (m *Remote) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	if err := arcsync.ValidateName(name); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("put %s: negative size: %w", name, arcsync.ErrSizeMismatch)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(arcsync.ContextReader(ctx, r), size+1))
	if err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	if n != size {
		return fmt.Errorf("put %s: read %d bytes, want %d: %w", name, n, size, arcsync.ErrSizeMismatch)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	m.objects[name] = object{data: buf.Bytes(), modTime: m.Now()}
	m.mu.Unlock()
	return nil
}

// Delete implements sync.Remote.
func (m *Remote) Delete(ctx context.Context, name string) error {
	if err := arcsync.ValidateName(name); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.objects, name)
	m.mu.Unlock()
	return nil
}
