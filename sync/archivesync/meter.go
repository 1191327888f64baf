package archivesync

import (
	"context"
	"io"
	"sync/atomic"

	arcsync "github.com/logbook/logbook/sync"
)

// Meter counts the bytes a Remote moves: Up for every Put that succeeded
// (pieces, manifests, heads), Down for every byte read from Open. Its
// counters are what `logbook sync now` reports as bytes_up and bytes_down.
type Meter struct {
	arcsync.Remote
	Up, Down atomic.Int64
}

// Put stores the object and counts its size once it is stored.
func (m *Meter) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	err := m.Remote.Put(ctx, name, r, size)
	if err == nil {
		m.Up.Add(size)
	}
	return err
}

// Open opens the object with a reader that counts what is read.
func (m *Meter) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	rc, err := m.Remote.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	return &countingReader{ReadCloser: rc, n: &m.Down}, nil
}

type countingReader struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// Metered returns r's Meter when it is one.
func Metered(r arcsync.Remote) *Meter {
	m, _ := r.(*Meter)
	return m
}
