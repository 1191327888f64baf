package archive

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/logbook/logbook/archive/dsh"
)

func TestFaultKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want dsh.Kind
	}{
		{fmt.Errorf("save: %w", errors.New("database or disk is full (13)")), KindDiskFull},
		{&fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, KindDiskFull},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}, KindPermissionDenied},
		{fmt.Errorf("open: %w", fs.ErrPermission), KindPermissionDenied},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EROFS}, KindReadOnly},
		{errors.New("attempt to write a readonly database (8)"), KindReadOnly},
		{fmt.Errorf("import: %w", ErrReadOnly), KindReadOnly},
		{fmt.Errorf("line 3: %w", context.Canceled), KindInterrupted},
		{&fs.PathError{Op: "read", Path: "x", Err: syscall.EIO}, dsh.KindIOError},
	} {
		assert.Equal(t, tc.want, faultKind(tc.err), "%v", tc.err)
		fr := failedReport("/p", tc.err)
		assert.Equal(t, VerdictFailed, fr.Verdict)
		assert.Equal(t, "failed", fr.Action)
	}
}
