package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/logbook/logbook/internal/apikey"
)

// apikeyCommand is the `logbook apikey` group: the keys tools and scripts present
// in the X-Session-API-Key header (package apikey).
var apikeyCommand = command{
	name:    "apikey",
	summary: "manage the API keys tools and scripts use (X-Session-API-Key)",
	doc:     "A key is printed once, when it is made; the data directory keeps only its hash (apikeys.json).",
	sub: []command{
		{name: "new", args: "[--name NAME] [--json]",
			summary: "make a key and print it (only this once)", run: cmdAPIKeyNew},
		{name: "list", args: "[--json]",
			summary: "list the keys: name, created, last used, fingerprint (never the key)", run: cmdAPIKeyList},
		{name: "revoke", args: "NAME",
			summary: "delete a key; requests with it are refused from then on (the webhook conversations it made go to the next key that pushes to them)", run: cmdAPIKeyRevoke},
	},
}

// cmdAPIKeyNew prints a new key alone on standard output (KEY=$(logbook apikey
// new)), and what it is on standard error.
func cmdAPIKeyNew(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("apikey new", flag.ContinueOnError)
	name := fs.String("name", "", "the key's name (default key-1, key-2, …): letters, digits, '.', '_', '-'")
	asJSON := fs.Bool("json", false, "print JSON: the key, name, fingerprint and creation time")
	if err := noPositionals(fs, args); err != nil {
		return err
	}
	if err := e.needWritable("apikey new"); err != nil {
		return err
	}
	k, err := e.apiKeys().Create(*name)
	if errors.Is(err, apikey.ErrBadName) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, struct {
			Key string `json:"key"`
			apikey.Info
		}{k.Key, k.Info})
	}
	fmt.Fprintln(e.stdout, k.Key)
	fmt.Fprintf(e.stderr, "API key %q (fingerprint %s) made. It is shown only now: keep it somewhere safe. Send it in the X-Session-API-Key header.\n",
		k.Info.Name, k.Info.Fingerprint)
	return nil
}

// cmdAPIKeyList lists the keys, oldest first.
func cmdAPIKeyList(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("apikey list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := noPositionals(fs, args); err != nil {
		return err
	}
	keys, err := e.apiKeys().List()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, keys)
	}
	if len(keys) == 0 {
		fmt.Fprintln(e.stderr, "no API keys; make one with `logbook apikey new --name NAME`")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCREATED\tLAST USED\tFINGERPRINT")
	for _, k := range keys {
		used := "never"
		if k.LastUsed != nil {
			used = k.LastUsed.Local().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Name, k.Created.Local().Format(time.DateTime), used, k.Fingerprint)
	}
	return tw.Flush()
}

// cmdAPIKeyRevoke deletes a key by name.
func cmdAPIKeyRevoke(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("apikey revoke", flag.ContinueOnError)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{errors.New("name one key to revoke (see `logbook apikey list`)")}
	}
	if err := e.needWritable("apikey revoke"); err != nil {
		return err
	}
	err = e.apiKeys().Revoke(pos[0])
	if errors.Is(err, apikey.ErrNotFound) {
		return fmt.Errorf("no API key named %q (see `logbook apikey list`)", pos[0])
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "API key %q revoked\n", pos[0])
	return nil
}

// noPositionals parses a command's flags when it takes no other argument.
func noPositionals(fs *flag.FlagSet, args []string) error {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", pos[0])}
	}
	return nil
}
