package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/logbook/logbook/archive"
)

// cmdCompactions runs `logbook compactions`: compactions and what they shadowed.
func cmdCompactions(ctx context.Context, e *env, args []string) error {
	return listCmd[archive.Compaction]{
		name:   "compactions",
		query:  (*archive.Store).Compactions,
		header: "WHEN\tKIND\tSTATUS\tSHADOWED\tTOKENS\tMODEL\tSESSION\tSUMMARY",
		row: func(c archive.Compaction) string {
			summary := clip(oneLine(c.Summary), 60)
			if c.Error != nil {
				summary = "error: " + clip(oneLine(*c.Error), 60)
			}
			toks := "-"
			if c.ShadowedTokens != nil {
				toks = fmt.Sprint(*c.ShadowedTokens)
			}
			return strings.Join([]string{fmtTime(c.StartedAt), c.Kind, c.Status, fmt.Sprintf("%d msgs", len(c.ShadowedSeqs)),
				toks, c.Model, c.SessionID, summary}, "\t")
		},
	}.run(ctx, e, args)
}
