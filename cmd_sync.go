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

	"github.com/logbook/logbook/sync/archivesync"
	"github.com/logbook/logbook/sync/crypt"
)

// syncCommand is `logbook sync`: alone it pushes then pulls; its sub-commands
// set it up and do one half.
var syncCommand = command{name: "sync", args: "[--json] | sync COMMAND [ARGS]",
	summary: "keep several machines' archives in step through a folder or S3, end-to-end encrypted (alone: push, then pull)",
	doc: "REMOTE is a folder, or s3://BUCKET/PREFIX?endpoint=HOST:PORT[&insecure=1][&path-style=1][&region=R]\n" +
		"with credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. The passphrase is read from\n" +
		"the terminal, or from LOGBOOK_SYNC_PASSPHRASE in scripts.",
	run: cmdSync,
	sub: []command{
		{name: "init", args: "REMOTE", summary: "create this archive's key, publish it wrapped with a passphrase, and remember REMOTE", run: cmdSyncInit},
		{name: "join", args: "REMOTE", summary: "add this machine to the archive on REMOTE, with the passphrase given at init", run: cmdSyncJoin},
		{name: "push", args: "[--json]", summary: "upload the sessions that changed since the last push", run: cmdSyncPush},
		{name: "pull", args: "[--json]", summary: "import the other machines' new and grown sessions; list conflicts", run: cmdSyncPull},
		{name: "status", args: "[--json]", summary: "the remote, this machine, the last push and pull, and conflicts", run: cmdSyncStatus},
	},
}

// syncScryptLogN is the passphrase's scrypt work factor (0: age's default);
// tests lower it.
var syncScryptLogN = 0

// passphrase reads the passphrase from LOGBOOK_SYNC_PASSPHRASE or, without it,
// from the terminal (twice when confirm), never echoing it.
func passphrase(e *env, confirm bool) (string, error) {
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
	if confirm {
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

func oneRemote(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usageError{errors.New("name one REMOTE: a folder or s3://bucket/prefix?endpoint=host")}
	}
	return pos[0], nil
}

func cmdSyncInit(ctx context.Context, e *env, args []string) error {
	remote, err := oneRemote(flag.NewFlagSet("sync init", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	if err := e.needWritable("sync init"); err != nil {
		return err
	}
	pass, err := passphrase(e, true)
	if err != nil {
		return err
	}
	c, k, err := archivesync.Init(ctx, e.syncPaths(), remote, pass, syncScryptLogN)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Sync is set up: this machine is %s, the remote is %s.\n", c.Machine, c.Remote)
	fmt.Fprintf(e.stdout, "The archive key (fingerprint %s) is in %s; the remote holds it only wrapped with your passphrase.\n", k.Fingerprint(), e.syncPaths().Key())
	fmt.Fprintf(e.stdout, "\nTo add another machine, run there:\n\n    logbook sync join %s\n\nand enter the same passphrase. Then `logbook sync` on each machine pushes and pulls.\n", shellQuote(c.Remote))
	return nil
}

func cmdSyncJoin(ctx context.Context, e *env, args []string) error {
	remote, err := oneRemote(flag.NewFlagSet("sync join", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	if err := e.needWritable("sync join"); err != nil {
		return err
	}
	pass, err := passphrase(e, false)
	if err != nil {
		return err
	}
	c, k, err := archivesync.Join(ctx, e.syncPaths(), remote, pass)
	if errors.Is(err, crypt.ErrWrongPassphrase) {
		return errors.New("wrong passphrase: it does not open the key published on the remote (use the passphrase given to `logbook sync init`)")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Joined the archive on %s (key %s) as machine %s. Run `logbook sync` to pull the other machines' sessions.\n", c.Remote, k.Fingerprint(), c.Machine)
	return nil
}

// withSyncer opens the archive and the repo and runs fn with a Syncer on them.
func (e *env) withSyncer(ctx context.Context, quiet bool, fn func(*archivesync.Syncer) error) error {
	if err := e.needWritable("sync"); err != nil {
		return err
	}
	release, err := archivesync.Lock(e.syncPaths())
	if err != nil {
		return err
	}
	defer release()
	c, rp, err := archivesync.Open(ctx, e.syncPaths())
	if err != nil {
		return err
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	sy := archivesync.New(s, rp, e.syncPaths(), c.Machine)
	sy.Logger = e.logger
	if !quiet {
		sy.Progress = func(msg string) { fmt.Fprintln(e.stderr, "logbook sync:", termSafe(msg)) }
	}
	return fn(sy)
}

// syncReport is what `logbook sync --json` prints.
type syncReport struct {
	Push *archivesync.PushReport `json:"push"`
	Pull *archivesync.PullReport `json:"pull"`
}

func cmdSync(ctx context.Context, e *env, args []string) error {
	return runSync(ctx, e, "sync", args, true, true)
}

func cmdSyncPush(ctx context.Context, e *env, args []string) error {
	return runSync(ctx, e, "sync push", args, true, false)
}

func cmdSyncPull(ctx context.Context, e *env, args []string) error {
	return runSync(ctx, e, "sync pull", args, false, true)
}

func runSync(ctx context.Context, e *env, name string, args []string, push, pull bool) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print a JSON report")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", pos[0])}
	}
	var rep syncReport
	err = e.withSyncer(ctx, *asJSON, func(sy *archivesync.Syncer) error {
		if push {
			if rep.Push, err = sy.Push(ctx); err != nil {
				return fmt.Errorf("push: %w", err)
			}
		}
		if pull {
			if rep.Pull, err = sy.Pull(ctx); err != nil {
				return fmt.Errorf("pull: %w", err)
			}
			if rep.Pull.Import != nil {
				// Pulled sessions are searchable at once, as after `logbook import`.
				ix, err := e.openIndex(ctx, sy.Archive, holderSync, *asJSON)
				if err != nil {
					fmt.Fprintf(e.stderr, "logbook sync: search index not updated (the next search or import does it): %v\n", err)
				} else {
					ix.Close()
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if *asJSON {
		switch {
		case push && pull:
			err = writeJSON(e.stdout, rep)
		case push:
			err = writeJSON(e.stdout, rep.Push)
		default:
			err = writeJSON(e.stdout, rep.Pull)
		}
		if err != nil {
			return err
		}
	} else {
		printSyncReport(e, rep)
	}
	if rep.Pull != nil && rep.Pull.Import != nil {
		return importExit(rep.Pull.Import, true)
	}
	return nil
}

func printSyncReport(e *env, rep syncReport) {
	if p := rep.Push; p != nil {
		fmt.Fprintf(e.stdout, "push: %d sessions listed, %d pushed, %d unchanged, %d other machines'; %d pieces (%d bytes) uploaded, %d already there\n",
			p.Sessions, p.Pushed, p.Unchanged, p.FromOthers, p.Pieces, p.Bytes, p.Existing)
	}
	if p := rep.Pull; p != nil {
		fmt.Fprintf(e.stdout, "pull: %d machines, %d sessions imported (%d bytes), %d unchanged, %d behind this archive\n",
			len(p.Machines), p.Pulled, p.Bytes, p.Unchanged, p.Behind)
		if p.Import != nil {
			printReports(e.human(), p.Import.Files)
		}
		printConflicts(e, p.Conflicts)
	}
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
	Remote         string                 `json:"remote"`
	Machine        string                 `json:"machine"`
	LastPush       any                    `json:"last_push"`
	LastPull       any                    `json:"last_pull"`
	SessionsPushed int                    `json:"sessions_pushed"`
	SessionsPulled int                    `json:"sessions_pulled"`
	Conflicts      []archivesync.Conflict `json:"conflicts"`
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
	st, err := archivesync.LoadState(p)
	if err != nil {
		return err
	}
	out := syncStatus{Remote: c.Remote, Machine: c.Machine, SessionsPulled: len(st.Pulled), Conflicts: st.Conflicts}
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
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	never := func(v any) string {
		if t, ok := v.(time.Time); ok {
			return t.Local().Format(time.RFC3339)
		}
		return "never"
	}
	fmt.Fprintf(e.stdout, "remote:    %s\nmachine:   %s\nlast push: %s (%d sessions published by this machine)\nlast pull: %s (%d sessions from other machines)\n",
		termSafe(c.Remote), termSafe(c.Machine), never(out.LastPush), out.SessionsPushed, never(out.LastPull), out.SessionsPulled)
	if len(st.Conflicts) == 0 {
		fmt.Fprintln(e.stdout, "conflicts: none")
	}
	printConflicts(e, st.Conflicts)
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
