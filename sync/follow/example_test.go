package follow_test

import (
	"context"
	"fmt"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/sync/follow"
)

// This is `logbook watch` in outline: the archive's import, one line per file
// an import changed, and one per root that is not watched, with the reason.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	store, err := archive.Open(ctx, "logbook.db")
	if err != nil {
		slog.Error("open archive", "err", err)
		return
	}
	defer store.Close()

	f := follow.New(follow.Options[archive.FileReport]{
		Roots: archive.DefaultRoots(), // plus the roots the person added
		Import: func(ctx context.Context, paths []string) ([]archive.FileReport, error) {
			rep, err := store.Import(ctx, paths, archive.ImportOptions{})
			if rep == nil {
				return nil, err
			}
			return rep.Files, err
		},
		Path: func(r archive.FileReport) string { return r.Path },
		Torn: func(r archive.FileReport) bool {
			return r.Verdict == dsh.VerdictRecovered && r.Error != nil && r.Error.Kind == dsh.KindTornTail
		},
		OnImport: func(b follow.Batch[archive.FileReport]) {
			for _, f := range b.Files {
				switch {
				case f.State == follow.Torn:
					fmt.Printf("%s: torn at line %d, and its writer is gone\n", f.Report.Path, f.Report.Error.Line)
				case f.Report.Changed && f.State == follow.Writing:
					fmt.Printf("%s: %s, %d events (being written)\n", f.Report.Path, f.Report.Action, f.Report.LogicalEvents)
				case f.Report.Changed:
					fmt.Printf("%s: %s, %s, %d events\n", f.Report.Path, f.Report.Action, f.Report.Verdict, f.Report.LogicalEvents)
				}
			}
		},
		OnStatus: func(s follow.Status) {
			if s.Mode != follow.Watching {
				fmt.Printf("%s: %s: %s\n", s.Root, s.Mode, s.Reason)
			}
		},
	})
	if err := f.Run(ctx); err != nil {
		slog.Error("watch", "err", err)
	}
}
