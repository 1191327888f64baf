package archive_test

import (
	"os"
	"path/filepath"
	"testing"

	"syscall"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// TestOpenHandsUnreadableFileIsAFault: an event file this machine cannot read
// (permission denied; as root, an I/O error from a file bound over it) fails the
// import with the fault's kind; the conversation is not archived as damaged, and
// once the file reads again it imports ok.
func TestOpenHandsUnreadableFileIsAFault(t *testing.T) {
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 3, Turns: 4})
	require.NoError(t, err)
	conv := facts.Unit.Path
	names, err := filepath.Glob(filepath.Join(conv, "events", "event-*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, names)
	victim := names[len(names)/2]

	want := archive.KindPermissionDenied
	restore := func() { require.NoError(t, os.Chmod(victim, 0o644)) }
	if os.Geteuid() == 0 {
		// Root reads any mode; /proc/self/mem read at offset 0 answers EIO.
		if err := syscall.Mount("/proc/self/mem", victim, "", syscall.MS_BIND, ""); err != nil {
			t.Skipf("cannot bind a file over the event file: %v", err)
		}
		want = archive.Kind("io-error") // dsh.KindIOError, the kind faultKind gives any other read error
		restore = func() { require.NoError(t, syscall.Unmount(victim, 0)) }
	} else {
		require.NoError(t, os.Chmod(victim, 0))
	}
	s := archivetest.MustOpen(t)
	fr := s.ImportFile(t.Context(), conv, archive.ImportOptions{})
	restore()
	require.Equal(t, archive.VerdictFailed, fr.Verdict, "%+v", fr)
	require.NotNil(t, fr.Error)
	assert.Equal(t, want, fr.Error.Kind)
	assert.Contains(t, fr.Error.Message, filepath.Base(victim))

	again := s.ImportFile(t.Context(), conv, archive.ImportOptions{})
	require.Equal(t, archive.VerdictOK, again.Verdict, "%+v", again.Error)
	assert.EqualValues(t, facts.Events, again.LogicalEvents)
}
