package archive

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
	"time"

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
		{fmt.Errorf("check: %w", &problemError{&dsh.Problem{Kind: KindPermissionDenied, Message: "p: permission denied"}}), KindPermissionDenied},
	} {
		assert.Equal(t, tc.want, faultKind(tc.err), "%v", tc.err)
		fr := failedReport("/p", tc.err)
		assert.Equal(t, VerdictFailed, fr.Verdict)
		assert.Equal(t, "failed", fr.Action)
	}
}

// TestImportFileNeverOpensAPipe imports a FIFO named directly: it is refused as
// not-regular-file at once, never opened (which would block until a writer came).
func TestImportFileNeverOpensAPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := dir + "/session.jsonl"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	s := New(dir + "/logbook.db")
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan FileReport, 1)
	go func() { done <- s.ImportFile(context.Background(), fifo, ImportOptions{}) }()
	select {
	case fr := <-done:
		assert.Equal(t, VerdictFailed, fr.Verdict)
		assert.Equal(t, KindNotRegular, fr.Error.Kind, fr.Error.Message)
	case <-time.After(10 * time.Second):
		t.Fatal("ImportFile blocked on a named pipe")
	}
	chk := CheckFile(fifo, ImportOptions{})
	assert.Equal(t, KindNotRegular, chk.Error.Kind)
}
