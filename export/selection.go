package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/logbook/logbook/archive"
)

// TurnRange is an inclusive range of turn numbers, as the conversation view and
// the exports number them ("Turn 3").
type TurnRange struct{ From, To int64 }

// ParseTurns reads "A-B", "A-" (to the end), "-B" (from the start) or "A" (one
// turn).
func ParseTurns(s string) (TurnRange, error) {
	bad := func() (TurnRange, error) {
		return TurnRange{}, fmt.Errorf("turns %q: want A-B, A-, -B or A (turn numbers, as the exports head them)", s)
	}
	a, b, dash := strings.Cut(strings.TrimSpace(s), "-")
	r := TurnRange{From: 0, To: 1<<63 - 1}
	num := func(x string, p *int64) bool {
		if x = strings.TrimSpace(x); x == "" {
			return dash // an open end, only beside a dash
		}
		n, err := strconv.ParseInt(x, 10, 64)
		*p = n
		return err == nil && n >= 0
	}
	if !num(a, &r.From) || (a == "" && b == "") {
		return bad()
	}
	if !dash {
		r.To = r.From
	} else if !num(b, &r.To) {
		return bad()
	}
	if r.From > r.To {
		return TurnRange{}, fmt.Errorf("turns %q: %d comes after %d", s, r.From, r.To)
	}
	return r, nil
}

// String is "3-5", "3", "3-" or "-5".
func (r TurnRange) String() string {
	switch {
	case r.From == r.To:
		return strconv.FormatInt(r.From, 10)
	case r.To == 1<<63-1:
		return strconv.FormatInt(r.From, 10) + "-"
	case r.From == 0:
		return "-" + strconv.FormatInt(r.To, 10)
	}
	return fmt.Sprintf("%d-%d", r.From, r.To)
}

// Hit names a search hit: its block id as search results give it
// ("SESSION:SEQ:KIND"), or "SESSION:SEQ".
type Hit struct {
	SessionID string
	Seq       int64
}

// ParseHit reads a search hit's block id.
func ParseHit(s string) (Hit, error) {
	parts := strings.Split(s, ":")
	if len(parts) >= 2 {
		// A session id may itself hold colons: the seq is the last number.
		for i := len(parts) - 1; i >= 1; i-- {
			if n, err := strconv.ParseInt(parts[i], 10, 64); err == nil && n >= 0 {
				if id := strings.Join(parts[:i], ":"); id != "" {
					return Hit{SessionID: id, Seq: n}, nil
				}
			}
		}
	}
	return Hit{}, fmt.Errorf("hit %q: want a search hit's id, SESSION:SEQ:KIND (logbook search --json gives it as \"id\")", s)
}

// Turns returns the part of t in turns r: the items of those turns, in order.
// A range that holds no item is an error naming the turns the session has.
func (t *Transcript) Turns(r TurnRange) (*Transcript, error) {
	c := t.part(func(it *archive.TimelineItem) bool { return it.Turn != nil && *it.Turn >= r.From && *it.Turn <= r.To })
	if len(c.Items) == 0 {
		return nil, fmt.Errorf("turns %s: session %s has %s", r, t.Session.ID, t.turnSpan())
	}
	c.Range = "turns " + r.String() + "; the session has " + t.turnSpan()
	return c, nil
}

// Around returns the turns around seq (a search hit's): its turn and n turns
// either side. An item outside any turn is given with the n items either side.
func (t *Transcript) Around(seq, n int64) (*Transcript, error) {
	i := t.itemAt(seq)
	if i < 0 {
		return nil, fmt.Errorf("seq %d: not in session %s (it ends at seq %d)", seq, t.Session.ID, t.Session.LastSeq)
	}
	it := &t.Items[i]
	if it.Turn != nil {
		r := TurnRange{From: max(*it.Turn-n, 0), To: *it.Turn + n}
		c, err := t.Turns(r)
		if err != nil {
			return nil, err
		}
		c.Range = fmt.Sprintf("turns %s, around seq %d (turn %d); the session has %s", r, seq, *it.Turn, t.turnSpan())
		return c, nil
	}
	lo, hi := max(int64(i)-n, 0), min(int64(i)+n+1, int64(len(t.Items)))
	c := &Transcript{Session: t.Session, Items: t.Items[lo:hi], Redaction: t.Redaction}
	c.Range = fmt.Sprintf("%d items around seq %d", hi-lo, seq)
	return c, nil
}

// itemAt is the index of the item seq belongs to: the item of that seq, a tool
// call whose result it is, or else the last item before it; -1 past the end.
func (t *Transcript) itemAt(seq int64) int {
	last := -1
	for i := range t.Items {
		it := &t.Items[i]
		if it.Seq == seq || (it.Tool != nil && it.Tool.ResultSeq != nil && *it.Tool.ResultSeq == seq) {
			return i
		}
		if it.Seq < seq {
			last = i
		}
	}
	if seq > t.Session.LastSeq {
		return -1
	}
	return last
}

// part is a copy of t with the items keep says.
func (t *Transcript) part(keep func(*archive.TimelineItem) bool) *Transcript {
	c := &Transcript{Session: t.Session, Redaction: t.Redaction}
	for i := range t.Items {
		if keep(&t.Items[i]) {
			c.Items = append(c.Items, t.Items[i])
		}
	}
	return c
}

// turnSpan is "turns 1-40" (the first and last turn numbers of t), or "no turns".
func (t *Transcript) turnSpan() string {
	lo, hi, any := int64(0), int64(0), false
	for i := range t.Items {
		if tn := t.Items[i].Turn; tn != nil {
			if !any || *tn < lo {
				lo = *tn
			}
			if !any || *tn > hi {
				hi = *tn
			}
			any = true
		}
	}
	if !any {
		return "no turns"
	}
	return fmt.Sprintf("turns %d-%d", lo, hi)
}

// Part chooses part of a session: a turn range (Turns, as ParseTurns reads it),
// or the turns around an item (Around, a seq, with Context turns either side).
// The zero Part is the whole session.
type Part struct {
	Turns   string `json:"turns,omitempty"`
	Around  *int64 `json:"around,omitempty"`
	Context int64  `json:"context,omitempty"`
}

// Whole reports whether p is the whole session.
func (p Part) Whole() bool { return p.Turns == "" && p.Around == nil }

// Check validates p without a transcript: a readable range, not both choices, a
// context of 0 or more.
func (p Part) Check() error {
	if p.Turns != "" && p.Around != nil {
		return fmt.Errorf("a turn range and the turns around an item both choose the turns: give one")
	}
	if p.Context < 0 {
		return fmt.Errorf("context must be 0 or more turns, got %d", p.Context)
	}
	if p.Turns != "" {
		_, err := ParseTurns(p.Turns)
		return err
	}
	return nil
}

// Of returns the part of t that p chooses (t itself for the whole session).
func (p Part) Of(t *Transcript) (*Transcript, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	switch {
	case p.Turns != "":
		r, _ := ParseTurns(p.Turns)
		return t.Turns(r)
	case p.Around != nil:
		return t.Around(*p.Around, p.Context)
	}
	return t, nil
}
