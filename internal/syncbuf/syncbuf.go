// Package syncbuf holds a bytes.Buffer that is safe to write from one
// goroutine while another reads it, as tests do with a command's or a
// server's output.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer guarded by a mutex. The zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what has been written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
