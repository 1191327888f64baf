package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/logbook/logbook/archive"
)

// listCmd is the shape every archive-wide list shares: --json and --session flags
// (plus any a command adds), a query over the archive, then JSON or a table.
type listCmd[T any] struct {
	name   string
	flags  func(fs *flag.FlagSet) func() error // extra flags; the returned check runs after parsing
	query  func(s *archive.Store, ctx context.Context, f archive.ItemFilter) ([]T, error)
	header string
	row    func(T) string
}

func (c listCmd[T]) run(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	session := fs.String("session", "", "only this session")
	check := func() error { return nil }
	if c.flags != nil {
		check = c.flags(fs)
	}
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := check(); err != nil {
		return err
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := c.query(s, ctx, archive.ItemFilter{SessionID: *session})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, list)
	}
	tw := tabwriter.NewWriter(e.human(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, c.header)
	for _, item := range list {
		fmt.Fprintln(tw, c.row(item))
	}
	return tw.Flush()
}

// fmtTime is a list's local time, or "-" for none.
func fmtTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}
