package sync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"time"
)

// transientError marks an error that a retry may cure.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// Transient marks err as retryable: Remote implementations wrap errors such as
// HTTP 5xx, 429 or a dropped connection with it. Transient(nil) is nil.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &transientError{err}
}

// IsRetryable reports whether err may go away on retry: it was marked with
// Transient, or it is a network timeout or an unexpected EOF. Not-exist,
// invalid names, size mismatches and context cancellation never are.
func IsRetryable(err error) bool {
	if err == nil || err == errStop ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrNotExist) || errors.Is(err, ErrInvalidName) || errors.Is(err, ErrSizeMismatch) {
		return false
	}
	var te *transientError
	if errors.As(err, &te) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// Retry is a Remote decorator that retries retryable errors (IsRetryable)
// with capped exponential backoff and full jitter. Create it with NewRetry and
// adjust the exported fields before use.
type Retry struct {
	Remote
	// Attempts is the total number of tries per call, at least 1.
	Attempts int
	// Base is the backoff before the second try; it doubles up to Max.
	Base, Max time.Duration
	// Sleep waits d or until ctx is done; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, if set, is told about each failed try that will be retried.
	OnRetry func(op, name string, attempt int, err error)
}

var _ Remote = (*Retry)(nil)

// NewRetry wraps r with 5 attempts and 200ms…10s backoff.
func NewRetry(r Remote) *Retry {
	return &Retry{Remote: r, Attempts: 5, Base: 200 * time.Millisecond, Max: 10 * time.Second, Sleep: sleepCtx}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (r *Retry) do(ctx context.Context, op, name string, f func() error) error {
	d := r.Base
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil || attempt >= r.Attempts || !IsRetryable(err) {
			return err
		}
		if r.OnRetry != nil {
			r.OnRetry(op, name, attempt, err)
		}
		// Full jitter keeps two machines that failed together from
		// retrying in lockstep.
		wait := time.Duration(rand.Int64N(int64(d) + 1))
		if serr := r.Sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%s %s: %w (after %w)", op, name, serr, err)
		}
		if d *= 2; d > r.Max {
			d = r.Max
		}
	}
}

// List retries a failed listing, skipping the names already passed to fn
// (List delivers names in ascending order), so fn sees each object once.
func (r *Retry) List(ctx context.Context, prefix string, fn func(Object) error) error {
	var last string
	var delivered bool
	var fnErr error
	err := r.do(ctx, "list", prefix, func() error {
		err := r.Remote.List(ctx, prefix, func(o Object) error {
			if delivered && o.Name <= last {
				return nil
			}
			if fnErr = fn(o); fnErr != nil {
				return fnErr
			}
			last, delivered = o.Name, true
			return nil
		})
		if fnErr != nil {
			// The caller's own error is never retried.
			return errStop
		}
		return err
	})
	if err == errStop {
		return fnErr
	}
	return err
}

// errStop ends Retry.List's loop when the caller's fn failed.
var errStop = errors.New("sync: list stopped by caller")

// Open retries opening; errors while reading the stream are the caller's.
func (r *Retry) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	var rc io.ReadCloser
	err := r.do(ctx, "open", name, func() (err error) {
		rc, err = r.Remote.Open(ctx, name)
		return err
	})
	return rc, err
}

// Stat retries Stat.
func (r *Retry) Stat(ctx context.Context, name string) (Object, error) {
	var o Object
	err := r.do(ctx, "stat", name, func() (err error) {
		o, err = r.Remote.Stat(ctx, name)
		return err
	})
	return o, err
}

// Put retries only when rd is an io.Seeker, rewinding it to where it was
// before each retry; any other reader is tried once.
func (r *Retry) Put(ctx context.Context, name string, rd io.Reader, size int64) error {
	s, ok := rd.(io.Seeker)
	if !ok {
		return r.Remote.Put(ctx, name, rd, size)
	}
	start, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return r.Remote.Put(ctx, name, rd, size)
	}
	first := true
	return r.do(ctx, "put", name, func() error {
		if !first {
			if _, err := s.Seek(start, io.SeekStart); err != nil {
				return fmt.Errorf("put %s: rewind: %w", name, err)
			}
		}
		first = false
		return r.Remote.Put(ctx, name, rd, size)
	})
}

// Delete retries Delete, which is idempotent.
func (r *Retry) Delete(ctx context.Context, name string) error {
	return r.do(ctx, "delete", name, func() error { return r.Remote.Delete(ctx, name) })
}
