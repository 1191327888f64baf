package index

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHolderRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	first, err := OpenWith(dir, Options{Holder: Holder{Command: "logbook import", OneShot: true}})
	require.NoError(t, err)
	defer first.Close()

	_, err = OpenWith(dir, Options{Wait: -1})
	require.ErrorIs(t, err, ErrInUse)
	var iu *InUseError
	require.ErrorAs(t, err, &iu)
	require.NotNil(t, iu.Holder, "the holder named itself")
	assert.Equal(t, os.Getpid(), iu.Holder.PID)
	assert.Equal(t, "logbook import", iu.Holder.Command)
	assert.True(t, iu.Holder.OneShot)
	assert.False(t, iu.Holder.Gone)
	assert.WithinDuration(t, time.Now(), iu.Holder.Since, time.Minute)
	assert.Contains(t, err.Error(), fmt.Sprintf("`logbook import` (pid %d) has it open", os.Getpid()))

	require.NoError(t, first.Close())
	assert.NoFileExists(t, filepath.Join(dir, holderFile), "Close removes the record")
	second, err := OpenWith(dir, Options{Wait: -1})
	require.NoError(t, err)
	require.NoError(t, second.Close())
}

func TestHolderRecordStale(t *testing.T) {
	dir := brokenIndex(t, texts("deploy failed"), func(*testing.T, string) {})
	dead := deadPID(t)
	require.NoError(t, writeHolder(dir, Holder{PID: dead, Command: "logbook serve"}))
	h := readHolder(dir)
	require.NotNil(t, h)
	assert.True(t, h.Gone, "pid %d has exited", dead)
	assert.Contains(t, h.String(), "no longer running")

	t.Run("does not keep anyone out", func(t *testing.T) {
		ix, err := OpenWith(dir, Options{Wait: -1, Holder: Holder{Command: "logbook search"}})
		require.NoError(t, err)
		assert.False(t, ix.Rebuilt())
		h := readHolder(dir)
		require.NotNil(t, h)
		assert.Equal(t, os.Getpid(), h.PID, "replaced by the live holder's")
		assert.Equal(t, "logbook search", h.Command)
		require.NoError(t, ix.Close())
	})
	t.Run("is not mistaken for the real holder", func(t *testing.T) {
		require.NoError(t, writeHolder(dir, Holder{PID: dead, Command: "logbook serve"}))
		// A read-only reader holds the index and leaves no record of its own.
		ro, err := OpenWith(dir, Options{ReadOnly: true})
		require.NoError(t, err)
		defer ro.Close()
		_, err = OpenWith(dir, Options{Wait: -1})
		var iu *InUseError
		require.ErrorAs(t, err, &iu)
		require.NotNil(t, iu.Holder)
		assert.True(t, iu.Holder.Gone)
		assert.Contains(t, err.Error(), "cannot be it")
	})
}

// holderEnv makes the test binary a process that holds an index; see
// TestHoldIndexProcess.
const holderEnv = "LOGBOOK_TEST_HOLD_INDEX"

// TestHoldIndexProcess is not a test: run by TestHolderAcrossProcesses as a second
// process, it opens the index named by holderEnv, says "ready" and holds it until
// its stdin closes.
func TestHoldIndexProcess(t *testing.T) {
	dir := os.Getenv(holderEnv)
	if dir == "" {
		t.Skip("a helper process for TestHolderAcrossProcesses")
	}
	ix, err := OpenWith(dir, Options{Holder: Holder{Command: "logbook serve"}})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	_ = ix.Close()
	os.Exit(0)
}

func TestHolderAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	src := texts("deploy failed", "deploy worked")
	dir := brokenIndex(t, src, func(*testing.T, string) {})

	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldIndexProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), holderEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready", strings.TrimSpace(line))

	// Every way in is refused while the other process holds the index, and
	// names it.
	for _, o := range []Options{{Wait: -1}, {Wait: -1, Fresh: true}, {Wait: -1, ReadOnly: true}} {
		_, err := OpenWith(dir, o)
		var iu *InUseError
		require.ErrorAs(t, err, &iu, "%+v", o)
		require.NotNil(t, iu.Holder)
		assert.Equal(t, cmd.Process.Pid, iu.Holder.PID)
		assert.Equal(t, "logbook serve", iu.Holder.Command)
		assert.False(t, iu.Holder.OneShot)
		assert.False(t, iu.Holder.Gone)
		assert.Contains(t, err.Error(), "`logbook serve` (pid "+strconv.Itoa(cmd.Process.Pid)+") has it open")
	}

	// Killed, it leaves its record behind but not its locks.
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	_ = stdin.Close()
	h := readHolder(dir)
	require.NotNil(t, h, "a killed process cannot remove its record")
	assert.True(t, h.Gone, "the record is recognised as stale")
	ix, err := OpenWith(dir, Options{Wait: -1})
	require.NoError(t, err)
	defer ix.Close()
	assert.False(t, ix.Rebuilt(), "the index of a killed holder is kept")
	assert.Equal(t, []string{"b0", "b1"}, sorted(searchAll(t, ix, Query{Text: "deploy"})))
	st, err := ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	assert.Zero(t, st.Indexed)
}

func TestInUseErrorText(t *testing.T) {
	for _, tc := range []struct {
		h    *Holder
		want string
	}{
		{nil, "it left no record of which"},
		{&Holder{PID: 7, Command: "logbook import"}, "`logbook import` (pid 7) has it open"},
		{&Holder{PID: 7}, "a Logbook process (pid 7) has it open"},
		{&Holder{PID: 7, Command: "logbook serve", Gone: true}, "the last recorded holder, `logbook serve` (pid 7), no longer running, cannot be it"},
	} {
		err := error(&InUseError{Holder: tc.h})
		assert.Contains(t, err.Error(), tc.want)
		assert.True(t, errors.Is(fmt.Errorf("open: %w", err), ErrInUse))
	}
}
