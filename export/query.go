package export

import (
	"context"
	"fmt"

	"github.com/logbook/logbook/index"
)

// MaxQuerySessions bounds the sessions of a bundle a search chooses (`logbook
// export --query`, and the Export dialog of search results).
const MaxQuerySessions = 1000

// TooManySessionsError is QuerySessions' refusal of a search that finds more
// sessions than a bundle may hold.
type TooManySessionsError struct {
	Query string
	Max   int
}

func (e *TooManySessionsError) Error() string {
	return fmt.Sprintf("the search %q finds more than %d sessions, more than a bundle holds: narrow it (a project:, agent: or since: filter)", e.Query, e.Max)
}

// QuerySessions returns the ids of every session a search finds (the query
// language of `logbook search`, filters included), the one with the newest hit
// first. It reads every page of hits (index.MaxLimit each), not just the pages a
// result list has loaded, so a bundle of a search holds all its sessions; a
// search finding more than max sessions (MaxQuerySessions for a bundle) gets a
// *TooManySessionsError, never a silently cut bundle. A query the language
// refuses gets the index's *index.QueryError.
func QuerySessions(ctx context.Context, ix *index.Index, q string, max int) ([]string, error) {
	var ids []string
	seen := map[string]bool{}
	cursor := ""
	for {
		res, err := ix.Search(ctx, index.Query{Text: q, Sort: index.SortRecent, Limit: index.MaxLimit, Cursor: cursor})
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			if !seen[h.SessionID] {
				if len(ids) == max {
					return nil, &TooManySessionsError{Query: q, Max: max}
				}
				seen[h.SessionID] = true
				ids = append(ids, h.SessionID)
			}
		}
		if res.NextCursor == "" || len(res.Hits) == 0 {
			return ids, nil
		}
		cursor = res.NextCursor
	}
}
