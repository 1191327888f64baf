package archive

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/logbook/logbook/archive/format"
)

// VerdictFailed is the verdict on a file this run could not import because of a
// fault of this machine or of the run (a full disk, a permission, a read-only
// archive, an interrupted import), or because the path is not a regular file (a
// pipe or device, never opened): it says nothing of the file's content, and the
// next import tries it again.
const VerdictFailed Verdict = "failed"

// Problem kinds of a failed import: the cause, for people and scripts.
const (
	KindDiskFull         Kind = "disk-full"         // no space left for the archive
	KindPermissionDenied Kind = "permission-denied" // the file or the archive could not be opened
	KindReadOnly         Kind = "read-only"         // the archive or its folder cannot be written
	KindInterrupted      Kind = "interrupted"       // the import was stopped before the file was done
	KindNotRegular       Kind = "not-regular-file"  // a FIFO, device or socket, never read
)

// faultKind names the cause of an import failure. Errors that are not a known
// fault are I/O errors: reading the file or writing the archive failed.
func faultKind(err error) Kind {
	var pe *problemError
	if errors.As(err, &pe) {
		return pe.p.Kind
	}
	msg := err.Error()
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return KindInterrupted
	case errors.Is(err, ErrNotRegular):
		return KindNotRegular
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT),
		strings.Contains(msg, "database or disk is full"), strings.Contains(msg, "SQLITE_FULL"):
		return KindDiskFull
	case errors.Is(err, ErrReadOnly), errors.Is(err, syscall.EROFS),
		strings.Contains(msg, "attempt to write a readonly database"), strings.Contains(msg, "SQLITE_READONLY"):
		return KindReadOnly
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return KindPermissionDenied
	}
	return format.KindIOError
}

// failedReport is the report of a file whose import failed with err.
func failedReport(path string, err error) FileReport {
	return FileReport{Path: path, Verdict: VerdictFailed, Action: "failed", LastSeq: -1, Warnings: []Problem{},
		Error: &Problem{Kind: faultKind(err), Offset: -1, Message: fmt.Sprintf("%s: %v", path, err)}}
}

// problemError carries a fault already classified (a failed report's problem) to
// the place that reports it, so its kind is kept rather than guessed from text.
type problemError struct{ p *Problem }

func (e *problemError) Error() string { return e.p.Message }
