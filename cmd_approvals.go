package main

import (
	"context"
	"strings"

	"github.com/logbook/logbook/archive"
)

// cmdApprovals runs `logbook approvals`: approval requests and their outcomes.
func cmdApprovals(ctx context.Context, e *env, args []string) error {
	return listCmd[archive.Approval]{
		name:   "approvals",
		query:  (*archive.Store).Approvals,
		header: "ASKED\tTOOL\tOUTCOME\tPOLICY\tSANDBOX\tSESSION\tREASON",
		row: func(a archive.Approval) string {
			outcome := "(undecided)"
			if a.Outcome != nil {
				outcome = *a.Outcome
			}
			return strings.Join([]string{fmtTime(a.AskedAt), a.ToolName, outcome, a.Policy, a.SandboxMode, a.SessionID,
				clip(oneLine(a.Reason), 60)}, "\t")
		},
	}.run(ctx, e, args)
}
