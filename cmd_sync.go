package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/internal/memlimit"
	"github.com/logbook/logbook/sync/archivesync"
	"github.com/logbook/logbook/sync/crypt"
	"github.com/logbook/logbook/sync/repo"
)

// syncCommand is `logbook sync`: alone it pushes then pulls (as `sync now`);
// its sub-commands set it up, report and repair.
var syncCommand = command{name: "sync", args: "[--json] | sync COMMAND [ARGS]",
	summary: "keep several machines' archives in step through a folder or S3, end-to-end encrypted (alone: sync now)",
	doc: "URL is file:///path (or a folder path), or s3://BUCKET/PREFIX?endpoint=HOST:PORT[&insecure=1][&path-style=1][&region=R]\n" +
		"with credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. The passphrase comes from --passphrase-file,\n" +
		"else LOGBOOK_SYNC_PASSPHRASE, else the terminal.",
	run: cmdSync,
	sub: []command{
		{name: "init", args: "--remote URL [--passphrase-file F]", summary: "on the first machine create the archive's key on URL; on every other machine the same command joins it", run: cmdSyncInit},
		{name: "join", args: "--remote URL [--passphrase-file F]", summary: "the same as init (kept for scripts)", run: cmdSyncInit},
		{name: "add-remote", args: "URL [--passphrase-file F]", summary: "also sync through URL (the key is published there with the same passphrase)", run: cmdSyncAddRemote},
		{name: "now", args: "[--json]", summary: "push and pull once through every remote; print pushed, pulled, bytes_up, bytes_down, conflicts, errors", run: cmdSync},
		{name: "push", args: "[--json]", summary: "only upload the sessions that changed since the last push", run: cmdSyncPush},
		{name: "pull", args: "[--json]", summary: "only import the other machines' new and grown sessions; list conflicts", run: cmdSyncPull},
		{name: "status", args: "[--json]", summary: "the remotes, this machine, the last sync, pending bytes, errors and conflicts", run: cmdSyncStatus},
		{name: "resolve", args: "SESSION --keep MACHINE", summary: "settle a conflict by keeping MACHINE's version (the others stay on the remote; an agent's log here is never written)", run: cmdSyncResolve},
		{name: "gc", args: "[--grace DURATION] [--dry-run] [--json]", summary: "delete remote pieces and manifests no machine's manifest references, older than the grace period", run: cmdSyncGC},
	},
}

// syncScryptLogN is the passphrase's scrypt work factor (0: age's default);
// tests lower it.
var syncScryptLogN = 0

// passphrase reads the passphrase from file (its first line) when named,
// else from LOGBOOK_SYNC_PASSPHRASE, else from the terminal (twice when
// confirm, asked only then, says so), never echoing it.
func passphrase(e *env, file string, confirm func() bool) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("passphrase file: %w", err)
		}
		p, _, _ := strings.Cut(string(b), "\n")
		p = strings.TrimSuffix(p, "\r")
		if p == "" {
			return "", fmt.Errorf("passphrase file %s: its first line is empty", file)
		}
		return p, nil
	}
	if p, ok := os.LookupEnv("LOGBOOK_SYNC_PASSPHRASE"); ok {
		if p == "" {
			return "", errors.New("LOGBOOK_SYNC_PASSPHRASE is empty")
		}
		return p, nil
	}
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return "", errors.New("no terminal to read the passphrase from: set LOGBOOK_SYNC_PASSPHRASE")
	}
	fmt.Fprint(e.stderr, "Passphrase: ")
	p, err := term.ReadPassword(fd)
	fmt.Fprintln(e.stderr)
	if err != nil {
		return "", err
	}
	if len(p) == 0 {
		return "", errors.New("the passphrase is empty")
	}
	if confirm != nil && confirm() {
		fmt.Fprint(e.stderr, "Passphrase again: ")
		q, err := term.ReadPassword(fd)
		fmt.Fprintln(e.stderr)
		if err != nil {
			return "", err
		}
		if string(p) != string(q) {
			return "", errors.New("the passphrases differ")
		}
	}
	return string(p), nil
}

// wrongPassphrase is the message for crypt.ErrWrongPassphrase.
var wrongPassphrase = errors.New("wrong passphrase: it does not open the key published on the remote (use the passphrase given to `logbook sync init` on the first machine); nothing was changed")

func cmdSyncInit(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("sync init", flag.ContinueOnError)
	remote := fs.String("remote", "", "the remote: file:///path or s3://bucket/prefix?endpoint=host:port")
	passFile := fs.String("passphrase-file", "", "read the passphrase from the first line of this file")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *remote == "" && len(pos) == 1 {
		*remote, pos = pos[0], nil
	}
	if *remote == "" || len(pos) > 0 {
		return usageError{errors.New("name the remote: --remote file:///path or --remote s3://bucket/prefix?endpoint=host:port")}
	}
	if err := e.needWritable("sync init"); err != nil {
		return err
	}
	// Refuse before asking for the passphrase (Setup checks again).
	if err := e.syncPaths().RefuseConfigured(); err != nil {
		return err
	}
	// Confirm a typed passphrase only when it may create the key.
	pass, err := passphrase(e, *passFile, func() bool { return !archivesync.RemoteHasArchive(ctx, *remote) })
	if err != nil {
		return err
	}
	c, k, created, err := archivesync.Setup(ctx, e.syncPaths(), *remote, pass, syncScryptLogN)
	if errors.Is(err, crypt.ErrWrongPassphrase) {
		return wrongPassphrase
	}
	if err != nil {
		return err
	}
	if !created {
		fmt.Fprintf(e.stdout, "Joined the archive on %s (key %s) as machine %s. Run `logbook sync now` to pull the other machines' sessions.\n", c.Remote, k.Fingerprint(), c.Machine)
		return nil
	}
	fmt.Fprintf(e.stdout, "Sync is set up: this machine is %s, the remote is %s.\n", c.Machine, c.Remote)
	fmt.Fprintf(e.stdout, "The archive key (fingerprint %s) is in %s; the remote holds it only wrapped with your passphrase.\n", k.Fingerprint(), e.syncPaths().Key())
	fmt.Fprintf(e.stdout, "\nTo add another machine, run there the same command with the same passphrase:\n\n    logbook sync init --remote %s --passphrase-file FILE\n\nThen `logbook sync now` on each machine pushes and pulls.\n", shellQuote(c.Remote))
	return nil
}

func cmdSyncAddRemote(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("sync add-remote", flag.ContinueOnError)
	passFile := fs.String("passphrase-file", "", "read the passphrase from the first line of this file")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{errors.New("name one URL: file:///path or s3://bucket/prefix?endpoint=host:port")}
	}
	if err := e.needWritable("sync add-remote"); err != nil {
		return err
	}
	pass, err := passphrase(e, *passFile, nil)
	if err != nil {
		return err
	}
	c, err := archivesync.AddRemote(ctx, e.syncPaths(), pos[0], pass, syncScryptLogN)
	if errors.Is(err, crypt.ErrWrongPassphrase) {
		return wrongPassphrase
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Added %s: %d remotes, each synced in turn by `logbook sync now`.\n", c.More[len(c.More)-1], len(c.Remotes()))
	return nil
}

func cmdSync(ctx context.Context, e *env, args []string) error {
	return runSync(ctx, e, "sync now", args, archivesync.Options{})
}

func cmdSyncPush(ctx context.Context, e *env, args []string) error {
	return runSync(ctx, e, "sync push", args, archivesync.Options{Push: true})
}

func cmdSyncPull(ctx context.Context, e *env, args []string) error {
	return runSync(ctx, e, "sync pull", args, archivesync.Options{Pull: true})
}

// runSync syncs once through every remote and prints the summary. A
// failure (wrong key, tampered object, unreachable remote) still prints
// the summary, with the failure in errors, and exits non-zero.
func runSync(ctx context.Context, e *env, name string, args []string, o archivesync.Options) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print a JSON summary")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", pos[0])}
	}
	if err := e.needWritable("sync"); err != nil {
		return err
	}
	memlimit.Apply() // a pull imports
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if !*asJSON {
		o.Progress = func(msg string) { fmt.Fprintln(e.stderr, "logbook sync:", termSafe(msg)) }
	}
	sum, syncErr := archivesync.SyncAll(ctx, s, e.syncPaths(), o)
	if sum == nil {
		return syncErr
	}
	var imports []*archive.ImportReport
	for _, r := range sum.Remotes {
		if r.Pull != nil && r.Pull.Import != nil {
			imports = append(imports, r.Pull.Import)
		}
	}
	if len(imports) > 0 {
		// Pulled sessions are searchable at once, as after `logbook import`.
		ix, err := e.openIndex(ctx, s, holderSync, *asJSON)
		if err != nil {
			fmt.Fprintf(e.stderr, "logbook sync: search index not updated (the next search or import does it): %v\n", err)
		} else {
			ix.Close()
		}
	}
	if *asJSON {
		if err := writeJSON(e.stdout, sum); err != nil {
			return err
		}
	} else {
		printSyncSummary(e, sum)
	}
	if syncErr != nil {
		if errors.Is(syncErr, crypt.ErrCorrupt) {
			return fmt.Errorf("%w; refused: nothing from it was imported (the archive is unchanged). If you did not change the remote, it was damaged or tampered with", syncErr)
		}
		return syncErr
	}
	for _, ir := range imports {
		if err := importExit(ir, true); err != nil {
			return err
		}
	}
	return nil
}

func printSyncSummary(e *env, sum *archivesync.Summary) {
	for _, r := range sum.Remotes {
		fmt.Fprintf(e.stdout, "%s\n", termSafe(r.Remote))
		if p := r.Push; p != nil {
			fmt.Fprintf(e.stdout, "  push: %d sessions listed, %d pushed, %d unchanged, %d other machines'; %d pieces (%d bytes) uploaded, %d already there\n",
				p.Sessions, p.Pushed, p.Unchanged, p.FromOthers, p.Pieces, p.Bytes, p.Existing)
		}
		if p := r.Pull; p != nil {
			fmt.Fprintf(e.stdout, "  pull: %d machines, %d sessions imported (%d bytes), %d unchanged, %d behind this archive\n",
				len(p.Machines), p.Pulled, p.Bytes, p.Unchanged, p.Behind)
			if p.Import != nil {
				printReports(e.human(), p.Import.Files)
			}
			printConflicts(e, p.Conflicts)
		}
		if r.Error != "" {
			fmt.Fprintf(e.stdout, "  error: %s\n", termSafe(r.Error))
		}
	}
	fmt.Fprintf(e.stdout, "pushed %d, pulled %d, %d bytes up, %d bytes down, %d conflicts, %d errors\n",
		sum.Pushed, sum.Pulled, sum.BytesUp, sum.BytesDown, sum.Conflicts, len(sum.Errors))
}

func printConflicts(e *env, cs []archivesync.Conflict) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "%d conflicts (versions that are not prefixes of one another; all kept, none imported over this archive's):\n", len(cs))
	for _, c := range cs {
		fmt.Fprintf(e.stdout, "  %s\n", termSafe(c.SessionID))
		for _, v := range c.Versions {
			where := "this archive"
			if !v.Local {
				where = v.Path
			}
			fmt.Fprintf(e.stdout, "    %-24s %10d bytes  %s\n", termSafe(v.Machine), v.Length, termSafe(where))
		}
	}
}

// syncStatus is what `logbook sync status --json` prints.
type syncStatus struct {
	Remote          string                 `json:"remote"`
	Remotes         []string               `json:"remotes"`
	Machine         string                 `json:"machine"`
	LastSync        any                    `json:"last_sync"`
	LastPush        any                    `json:"last_push"`
	LastPull        any                    `json:"last_pull"`
	SessionsPushed  int                    `json:"sessions_pushed"`
	SessionsPulled  int                    `json:"sessions_pulled"`
	PendingSessions int                    `json:"pending_sessions"`
	PendingBytes    int64                  `json:"pending_bytes"`
	Errors          []string               `json:"errors"`
	Conflicts       []archivesync.Conflict `json:"conflicts"`
}

func cmdSyncStatus(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("sync status", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	p := e.syncPaths()
	c, err := archivesync.LoadConfig(p)
	if err != nil {
		return err
	}
	out := syncStatus{Remote: c.Remote, Remotes: c.Remotes(), Machine: c.Machine, Errors: []string{}, Conflicts: []archivesync.Conflict{}}
	seen := map[string]bool{}
	for i := range c.Remotes() {
		st, err := archivesync.LoadState(p.ForRemote(c, i))
		if err != nil {
			return err
		}
		if i == 0 {
			out.SessionsPulled = len(st.Pulled)
			for _, ps := range st.Pushed {
				if ps.Entry != nil {
					out.SessionsPushed++
				}
			}
			if !st.LastPush.IsZero() {
				out.LastPush = st.LastPush
			}
			if !st.LastPull.IsZero() {
				out.LastPull = st.LastPull
			}
		}
		for _, cf := range st.Conflicts {
			if !seen[cf.SessionID] {
				seen[cf.SessionID] = true
				out.Conflicts = append(out.Conflicts, cf)
			}
		}
	}
	if sum, err := archivesync.LastSummary(p); err != nil {
		return err
	} else if sum != nil {
		out.LastSync = sum.Finished
		out.Errors = sum.Errors
	}
	if s, err := e.openArchive(ctx); err == nil {
		out.PendingSessions, out.PendingBytes, err = archivesync.Pending(ctx, s, p)
		s.Close()
		if err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	never := func(v any) string {
		if t, ok := v.(time.Time); ok {
			return t.Local().Format(time.RFC3339)
		}
		return "never"
	}
	fmt.Fprintf(e.stdout, "remotes:   %s\nmachine:   %s\nlast sync: %s\nlast push: %s (%d sessions published by this machine)\nlast pull: %s (%d sessions from other machines)\npending:   %d sessions, %d bytes\n",
		termSafe(strings.Join(c.Remotes(), ", ")), termSafe(c.Machine), never(out.LastSync), never(out.LastPush), out.SessionsPushed, never(out.LastPull), out.SessionsPulled, out.PendingSessions, out.PendingBytes)
	for _, m := range out.Errors {
		fmt.Fprintf(e.stdout, "error:     %s\n", termSafe(m))
	}
	if len(out.Conflicts) == 0 {
		fmt.Fprintln(e.stdout, "conflicts: none")
	}
	printConflicts(e, out.Conflicts)
	return nil
}

func cmdSyncResolve(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("sync resolve", flag.ContinueOnError)
	keep := fs.String("keep", "", "the machine whose version to keep (see `logbook sync status`)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *keep == "" {
		return usageError{errors.New("name one SESSION and --keep MACHINE")}
	}
	if err := e.needWritable("sync resolve"); err != nil {
		return err
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := archivesync.Resolve(ctx, s, e.syncPaths(), pos[0], *keep, archive.ImportOptions{})
	if err != nil {
		return err
	}
	if rep != nil {
		printReports(e.human(), rep.Files)
		ix, err := e.openIndex(ctx, s, holderSync, true)
		if err == nil {
			ix.Close()
		}
	}
	fmt.Fprintf(e.stdout, "Kept %s's version of %s; the other versions stay on the remote and are no longer reported.\n", termSafe(*keep), termSafe(pos[0]))
	if rep != nil {
		fmt.Fprintln(e.stdout, "What this archive held of it stays archived as superseded lines; an agent's log it was read from is left as it is, and importing it again does not undo this choice.")
	}
	return nil
}

// syncGCReport is one remote's line of `logbook sync gc --json`.
type syncGCReport struct {
	Remote string `json:"remote"`
	repo.GCStats
}

func cmdSyncGC(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("sync gc", flag.ContinueOnError)
	grace := fs.Duration("grace", repo.DefaultGrace, "delete only objects unreferenced and older than this")
	dry := fs.Bool("dry-run", false, "only count what would be deleted")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	p := e.syncPaths()
	c, release, err := archivesync.LockConfig(p)
	if err != nil {
		return err
	}
	defer release()
	out := []syncGCReport{}
	for _, spec := range c.Remotes() {
		rp, err := archivesync.OpenRepo(ctx, p, spec)
		if err != nil {
			return err
		}
		st, err := rp.GC(ctx, *grace, *dry)
		if err != nil {
			return fmt.Errorf("%s: %w", spec, err)
		}
		out = append(out, syncGCReport{Remote: spec, GCStats: st})
	}
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	verb := "deleted"
	if *dry {
		verb = "would delete"
	}
	for _, r := range out {
		fmt.Fprintf(e.stdout, "%s: %d objects, %d referenced, %d unreferenced but younger than %v; %s %d (%d bytes)\n",
			termSafe(r.Remote), r.Objects, r.Referenced, r.Young, *grace, verb, r.Deleted, r.DeletedSize)
	}
	return nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
