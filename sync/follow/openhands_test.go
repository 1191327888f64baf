package follow_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
	"github.com/logbook/logbook/sync/follow"
)

// TestFollowOpenHands writes generated OpenHands conversations as their agents
// do, while a follower with the archive's SourceOf imports them into a real
// archive: an SDK folder event file by event file (side files first), the 2025
// agent-server's event_service/ folder, a V0 session folder, and an events.jsonl
// appended in pieces that cut lines. Each is followed live (every event file maps
// to its conversation folder), and the archive ends as a fresh import of the
// finished conversation makes it.
func TestFollowOpenHands(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opt    openhandsgen.Options
		pieces bool // append the single file in pieces, not file by file
	}{
		{"SDK", openhandsgen.Options{Seed: 31, Layout: openhands.LayoutSDK, Turns: 4}, false},
		{"AgentServer2025", openhandsgen.Options{Seed: 32, Layout: openhands.LayoutSDK, Turns: 3, Legacy: true}, false},
		{"V0Session", openhandsgen.Options{Seed: 33, Layout: openhands.LayoutV0Session, Turns: 3}, false},
		{"JSONL", openhandsgen.Options{Seed: 34, Layout: openhands.LayoutJSONL, Turns: 4}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stage := t.TempDir()
			f, err := openhandsgen.Generate(stage, tc.opt)
			require.NoError(t, err)
			rel, err := filepath.Rel(stage, f.Unit.Path)
			require.NoError(t, err)
			// The root holds the conversation's parent folder, made after the
			// follower started (a new conversation of a running agent).
			root := t.TempDir()
			src := filepath.Join(root, rel)

			s := archivetest.MustOpen(t)
			s.Logger = quietLogger()
			o, batches := archiveFollow(s, root)
			o.Source = archive.SourceOf
			o.Logger = quietLogger()
			o.Debounce, o.MaxDelay = 30*time.Millisecond, 100*time.Millisecond
			start(t, o)

			rng := rand.New(rand.NewPCG(tc.opt.Seed, 1))
			if tc.pieces {
				data, err := os.ReadFile(f.Unit.Path)
				require.NoError(t, err)
				require.NoError(t, os.MkdirAll(filepath.Dir(src), 0o755))
				require.NoError(t, os.WriteFile(src, nil, 0o644))
				for off := 0; off < len(data); {
					n := min(len(data)-off, 16+rng.IntN(600))
					appendTo(t, src, string(data[off:off+n]))
					off += n
					time.Sleep(time.Duration(rng.IntN(25)) * time.Millisecond)
				}
			} else {
				for _, name := range f.Files {
					data, err := os.ReadFile(filepath.Join(f.Unit.Path, filepath.FromSlash(name)))
					require.NoError(t, err)
					p := filepath.Join(src, filepath.FromSlash(name))
					require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
					require.NoError(t, os.WriteFile(p, data, 0o644))
					time.Sleep(time.Duration(rng.IntN(25)) * time.Millisecond)
				}
			}
			id := openhands.NormalizeID(f.Unit.SessionID)
			require.Eventually(t, func() bool {
				sess, err := s.Session(context.Background(), id)
				return err == nil && sess.Events == int64(f.Events)
			}, 10*time.Second, 10*time.Millisecond, "followed to the end")
			imports := len(batches.all())
			assert.Greater(t, imports, 1, "imported while it was written, not once at the end")
			states := map[follow.State]int{}
			for _, b := range batches.all() {
				assert.Equal(t, src, b.Report.Path, "every file maps to the conversation")
				// A line cut by the writer is "still being written", never damage.
				assert.Contains(t, []archive.Verdict{archive.VerdictOK, archive.VerdictRecovered}, b.Report.Verdict, "%+v", b.Report.Error)
				states[b.State]++
			}
			// The writer writes each event file in place (os.WriteFile, as the SDK
			// does), so a read may land mid-file: that is a torn tail, still being
			// written, and the next write finishes it. The last read is whole.
			assert.Eventually(t, func() bool {
				all := batches.all()
				last := all[len(all)-1]
				return last.State == follow.Imported && last.Report.Verdict == archive.VerdictOK
			}, 5*time.Second, 10*time.Millisecond, "the conversation ends whole")
			t.Logf("%d events, %d files: %d imports %v", f.Events, len(f.Files), imports, states)

			fresh := archivetest.MustOpen(t)
			fr := fresh.ImportFile(context.Background(), src, archive.ImportOptions{})
			require.Equal(t, archive.VerdictOK, fr.Verdict, "%+v", fr.Error)
			// An events.jsonl's header (a summary of the conversation's metadata:
			// title, usage so far) is the one of the conversation's first read: the
			// store renews a session's header only when a source is read again in
			// full. Everything else must be equal.
			sameArchive(t, fresh, s, id, tc.pieces)
		})
	}
}
