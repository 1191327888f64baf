package export

import "github.com/logbook/logbook/archive"

// numberTurns gives a transcript whose log names no turns the turns a reader
// sees in it. An OpenHands conversation's events carry no turn (its log has no
// turn/start), so without this its export had no turn headings, no table of
// contents, and --turns or --around found nothing. Each prompt a person sent (a
// user message that is not injected context) starts a turn, numbered from 1, with
// a turn/start item before it at the prompt's seq, as a dsh log has; what comes
// before the first prompt (the system prompt) stays outside any turn. A log that
// names turns is left as it is, so a dsh session is numbered as the archive and
// the conversation view number it.
func (t *Transcript) numberTurns() {
	for i := range t.Items {
		if t.Items[i].Turn != nil || t.Items[i].Kind == archive.ItemTurn {
			return
		}
	}
	var n int64
	items := make([]archive.TimelineItem, 0, len(t.Items)+8)
	for _, it := range t.Items {
		if m := it.Message; m != nil && m.Role == "user" && m.Kind != "injected" {
			n++
			items = append(items, archive.TimelineItem{Seq: it.Seq, Type: "turn/start", Kind: archive.ItemTurn,
				Time: it.Time, Turn: turnPtr(n), Surface: it.Surface, Marker: &archive.Marker{}})
		}
		if n > 0 {
			it.Turn = turnPtr(n)
		}
		items = append(items, it)
	}
	if n == 0 {
		return
	}
	t.Items = items
	t.Session.Turns = n
}

func turnPtr(n int64) *int64 { return &n }
