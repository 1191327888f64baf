package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// eventsFixture is a test server with an API key and archived OpenHands
// conversations, and the events each one's files hold, read back from disk.
type eventsFixture struct {
	*testServer
	key string
}

// storedEvent is one event of a conversation as its source holds it.
type storedEvent struct {
	id   string
	kind string
	time time.Time
	raw  []byte
	seq  int
}

func newEventsFixture(t *testing.T) *eventsFixture {
	t.Helper()
	ts := newTestServer(t)
	k, err := ts.NewAPIKey("tests")
	require.NoError(t, err)
	return &eventsFixture{testServer: ts, key: k.Key}
}

// importPath archives path and returns the report of each session source.
func (f *eventsFixture) importPath(t *testing.T, path string) []archive.FileReport {
	t.Helper()
	rep, err := f.deps.Archive.Import(context.Background(), []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	return rep.Files
}

// stored reads a conversation's events from its source with the OpenHands
// reader: the bytes the API must give back. A single file's event that spans
// lines (a pretty-printed array element) is archived as one line, its
// whitespace removed; every other event is its bytes as written.
func stored(t *testing.T, u openhands.Unit) []storedEvent {
	t.Helper()
	conv, err := openhands.NewReader().Read(context.Background(), u)
	require.NoError(t, err)
	var out []storedEvent
	for i, r := range conv.Records {
		raw := r.Raw
		if u.Layout.SingleFile() && bytes.IndexByte(raw, '\n') >= 0 {
			var b bytes.Buffer
			require.NoError(t, json.Compact(&b, raw))
			raw = b.Bytes()
		}
		tm, _ := openhands.ParseTime(r.Event.Timestamp, time.UTC)
		out = append(out, storedEvent{id: r.Event.ID, kind: r.Event.Kind, time: tm, raw: raw, seq: i})
	}
	return out
}

// inTimeOrder sorts events by time, then conversation order; desc reverses.
func inTimeOrder(evs []storedEvent, desc bool) []storedEvent {
	out := append([]storedEvent(nil), evs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if desc {
			a, b = b, a
		}
		if !a.time.Equal(b.time) {
			return a.time.Before(b.time)
		}
		return a.seq < b.seq
	})
	return out
}

// get sends a GET with the API key and returns the status and body.
func (f *eventsFixture) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	r := f.req(t, "GET", path, "", false)
	r.Header.Set("X-Session-API-Key", f.key)
	resp, body := do(t, r)
	assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"), path)
	return resp.StatusCode, []byte(body)
}

// page is a search answer, its items kept as the bytes sent.
type page struct {
	Items []json.RawMessage `json:"items"`
	Next  *string           `json:"next_page_id"`
}

// searchAll follows next_page_id from the first page to the last.
func (f *eventsFixture) searchAll(t *testing.T, base string, q url.Values) [][]byte {
	t.Helper()
	var out [][]byte
	for pages := 0; ; pages++ {
		require.Less(t, pages, 20000, "paging never ends")
		code, body := f.get(t, base+"/search?"+q.Encode())
		require.Equal(t, http.StatusOK, code, string(body))
		var p page
		require.NoError(t, json.Unmarshal(body, &p), string(body))
		for _, it := range p.Items {
			out = append(out, it)
		}
		if p.Next == nil {
			return out
		}
		require.NotEmpty(t, p.Items, "a page with a next page is not empty")
		q.Set("page_id", *p.Next)
	}
}

func (f *eventsFixture) count(t *testing.T, base string, q url.Values) int {
	t.Helper()
	code, body := f.get(t, base+"/count?"+q.Encode())
	require.Equal(t, http.StatusOK, code, string(body))
	var n int
	require.NoError(t, json.Unmarshal(body, &n), string(body))
	return n
}

func raws(evs []storedEvent) [][]byte {
	out := make([][]byte, len(evs))
	for i, e := range evs {
		out[i] = e.raw
	}
	return out
}

// assertSameBytes compares two lists of events byte for byte. An item decoded
// from an answer is the JSON value without the whitespace around it, which an
// event file may end with (TestEventsAPIDefaultPageIsOneHundredOldestFirst
// checks a whole answer's bytes, that whitespace included).
func assertSameBytes(t *testing.T, want, got [][]byte, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(got), msg)
	for i := range want {
		if !bytes.Equal(bytes.TrimSpace(want[i]), got[i]) {
			at := 0
			for at < min(len(want[i]), len(got[i])) && want[i][at] == got[i][at] {
				at++
			}
			t.Fatalf("%s: event %d differs at byte %d (lengths %d, %d):\nwant %.200q\n got %.200q", msg, i, at, len(want[i]), len(got[i]),
				want[i][max(0, at-40):], got[i][max(0, at-40):])
		}
	}
}

// bases are the app server's and the agent server's paths of a conversation.
func bases(id string) []string {
	return []string{"/api/v1/conversation/" + id + "/events", "/api/conversations/" + id + "/events"}
}

// generated archives a generated conversation and returns it with its events.
func (f *eventsFixture) generated(t *testing.T, opt openhandsgen.Options) (openhandsgen.Facts, []storedEvent) {
	t.Helper()
	facts, err := openhandsgen.Generate(t.TempDir(), opt)
	require.NoError(t, err)
	reps := f.importPath(t, facts.Unit.Path)
	require.Len(t, reps, 1)
	require.Equal(t, archive.VerdictOK, reps[0].Verdict, "%+v", reps[0].Error)
	evs := stored(t, facts.Unit)
	require.Len(t, evs, facts.Events)
	return facts, evs
}

func TestEventsAPIPagesEveryEventByteForByte(t *testing.T) {
	f := newEventsFixture(t)
	layouts := []openhandsgen.Options{
		{Layout: openhands.LayoutSDK, Seed: 3, Turns: 6, Extras: true},
		{Layout: openhands.LayoutAppB, Seed: 4, Turns: 4}, // pretty-printed files, nulls
		{Layout: openhands.LayoutJSONL, Seed: 5, Turns: 4},
	}
	for _, opt := range layouts {
		facts, evs := f.generated(t, opt)
		hex := strings.ReplaceAll(facts.Unit.SessionID, "-", "")
		for _, base := range append(bases(facts.Unit.SessionID), bases(hex)...) {
			for _, order := range []string{"TIMESTAMP", "TIMESTAMP_DESC"} {
				for _, limit := range []string{"1", "7", "100", ""} {
					t.Run(fmt.Sprintf("%s %s %s limit=%s", opt.Layout, base[:12], order, limit), func(t *testing.T) {
						q := url.Values{"sort_order": {order}}
						if limit != "" {
							q.Set("limit", limit)
						}
						if limit == "1" && !strings.Contains(base, "-") {
							return // one page per event: the dashed path has shown it
						}
						got := f.searchAll(t, base, q)
						assertSameBytes(t, raws(inTimeOrder(evs, order == "TIMESTAMP_DESC")), got, base)
					})
				}
			}
			assert.Equal(t, len(evs), f.count(t, base, nil))
		}
	}
}

func TestEventsAPIDefaultPageIsOneHundredOldestFirst(t *testing.T) {
	f := newEventsFixture(t)
	facts, evs := f.generated(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 21, Turns: 30})
	require.Greater(t, len(evs), 100)
	code, body := f.get(t, bases(facts.Unit.SessionID)[0]+"/search")
	require.Equal(t, http.StatusOK, code)
	var p page
	require.NoError(t, json.Unmarshal(body, &p))
	require.Len(t, p.Items, 100)
	require.NotNil(t, p.Next)
	assertSameBytes(t, raws(inTimeOrder(evs, false)[:100]), toBytes(p.Items), "first page")
	// The shape is exactly {"items": [...], "next_page_id": "..."}, and every
	// event is its file's bytes.
	next, _ := json.Marshal(*p.Next)
	want := `{"items":[` + string(bytes.Join(raws(inTimeOrder(evs, false)[:100]), []byte(","))) + `],"next_page_id":` + string(next) + "}\n"
	assert.Equal(t, want, string(body))
}

func TestEventsAPIKeepsAFilesWhitespace(t *testing.T) {
	f := newEventsFixture(t)
	facts, evs := f.generated(t, openhandsgen.Options{Layout: openhands.LayoutAppB, Seed: 22, Turns: 2})
	ordered := inTimeOrder(evs, false)
	require.Contains(t, string(ordered[0].raw), "\n  ", "app-server files are pretty-printed")
	code, body := f.get(t, bases(facts.Unit.SessionID)[0]+"/search?limit=2")
	require.Equal(t, http.StatusOK, code)
	assert.True(t, strings.HasPrefix(string(body), `{"items":[`+string(ordered[0].raw)+`,`+string(ordered[1].raw)+`],"next_page_id":"`), "%.300s", body)
}

func toBytes(items []json.RawMessage) [][]byte {
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}

func TestEventsAPIFilters(t *testing.T) {
	f := newEventsFixture(t)
	facts, evs := f.generated(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 8, Turns: 8, Confirmation: true})
	ordered := inTimeOrder(evs, false)
	mid := ordered[len(ordered)/2].time
	late := ordered[len(ordered)*3/4].time
	stamp := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.999999") }
	cases := []struct {
		name string
		q    url.Values
		keep func(storedEvent) bool
	}{
		{"kind__eq", url.Values{"kind__eq": {"ActionEvent"}}, func(e storedEvent) bool { return e.kind == "ActionEvent" }},
		{"kind dotted", url.Values{"kind": {"openhands.sdk.event.llm_convertible.message.MessageEvent"}}, func(e storedEvent) bool { return e.kind == "MessageEvent" }},
		{"known kind with no events", url.Values{"kind__eq": {"PauseEvent"}}, func(e storedEvent) bool { return e.kind == "PauseEvent" }},
		{"timestamp__gte", url.Values{"timestamp__gte": {stamp(mid)}}, func(e storedEvent) bool { return !e.time.Before(mid) }},
		{"timestamp__lt", url.Values{"timestamp__lt": {stamp(mid)}}, func(e storedEvent) bool { return e.time.Before(mid) }},
		{"window and kind", url.Values{"timestamp__gte": {stamp(mid)}, "timestamp__lt": {stamp(late)}, "kind__eq": {"ObservationEvent"}},
			func(e storedEvent) bool {
				return !e.time.Before(mid) && e.time.Before(late) && e.kind == "ObservationEvent"
			}},
		{"zone converted to UTC", url.Values{"timestamp__gte": {mid.In(time.FixedZone("", 2*3600)).Format(time.RFC3339Nano)}}, func(e storedEvent) bool { return !e.time.Before(mid) }},
		{"empty window", url.Values{"timestamp__gte": {stamp(late)}, "timestamp__lt": {stamp(mid)}}, func(storedEvent) bool { return false }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want []storedEvent
			for _, e := range evs {
				if c.keep(e) {
					want = append(want, e)
				}
			}
			if c.name != "known kind with no events" && c.name != "empty window" {
				require.NotEmpty(t, want, "the case selects something")
				require.Less(t, len(want), len(evs), "the case leaves something out")
			}
			for _, base := range bases(facts.Unit.SessionID) {
				assert.Equal(t, len(want), f.count(t, base, c.q), base)
				for _, desc := range []bool{false, true} {
					q := url.Values{"limit": {"5"}}
					for k, v := range c.q {
						q[k] = v
					}
					if desc {
						q.Set("sort_order", "TIMESTAMP_DESC")
					}
					assertSameBytes(t, raws(inTimeOrder(want, desc)), f.searchAll(t, base, q), base)
				}
			}
		})
	}
}

// validation is a FastAPI 422 answer.
type validation struct {
	Detail []struct {
		Type  string `json:"type"`
		Loc   []any  `json:"loc"`
		Msg   string `json:"msg"`
		Input any    `json:"input"`
	} `json:"detail"`
}

func TestEventsAPIRejectsBadParameters(t *testing.T) {
	f := newEventsFixture(t)
	facts, _ := f.generated(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 9, Turns: 3})
	base := bases(facts.Unit.SessionID)[0]
	code, body := f.get(t, base+"/search?limit=2")
	require.Equal(t, http.StatusOK, code)
	var p page
	require.NoError(t, json.Unmarshal(body, &p))
	require.NotNil(t, p.Next)
	cases := []struct{ query, param, typ string }{
		{"limit=0", "limit", "greater_than_equal"},
		{"limit=101", "limit", "less_than_equal"},
		{"limit=ten", "limit", "int_parsing"},
		{"sort_order=NEWEST", "sort_order", "enum"},
		{"sort_order=timestamp", "sort_order", "enum"},
		{"kind__eq=NoSuchEvent", "kind__eq", "literal_error"},
		{"kind=openhands.sdk.event.Nope", "kind", "literal_error"},
		{"timestamp__gte=yesterday", "timestamp__gte", "datetime_from_date_parsing"},
		{"timestamp__lt=2026-13-01T00:00:00", "timestamp__lt", "datetime_from_date_parsing"},
		{"page_id=100", "page_id", "value_error"},
		{"page_id=lb1.!!!", "page_id", "value_error"},
		{"page_id=" + url.QueryEscape(*p.Next) + "&sort_order=TIMESTAMP_DESC", "page_id", "value_error"},
		{"source=user", "source", "value_error"},
		{"body=hello", "body", "value_error"},
	}
	for _, c := range cases {
		for _, b := range bases(facts.Unit.SessionID) {
			for _, ep := range []string{"/search", "/count"} {
				if ep == "/count" && (c.param == "limit" || c.param == "sort_order" || c.param == "page_id") {
					continue // count takes only filters
				}
				code, body := f.get(t, b+ep+"?"+c.query)
				require.Equal(t, http.StatusUnprocessableEntity, code, "%s%s?%s: %s", b, ep, c.query, body)
				var v validation
				require.NoError(t, json.Unmarshal(body, &v), string(body))
				require.Len(t, v.Detail, 1, string(body))
				assert.Equal(t, []any{"query", c.param}, v.Detail[0].Loc, c.query)
				assert.Equal(t, c.typ, v.Detail[0].Type, c.query)
				assert.NotEmpty(t, v.Detail[0].Msg)
			}
		}
	}
	t.Run("every error at once", func(t *testing.T) {
		code, body := f.get(t, base+"/search?limit=0&sort_order=X&kind__eq=Y")
		require.Equal(t, http.StatusUnprocessableEntity, code)
		var v validation
		require.NoError(t, json.Unmarshal(body, &v))
		assert.Len(t, v.Detail, 3, string(body))
	})
	t.Run("agent server page id: an unknown event id", func(t *testing.T) {
		code, _ := f.get(t, bases(facts.Unit.SessionID)[1]+"/search?page_id=not-an-event")
		assert.Equal(t, http.StatusUnprocessableEntity, code)
	})
}

func TestEventsAPIAgentServerPageIDIsAnEventID(t *testing.T) {
	f := newEventsFixture(t)
	facts, evs := f.generated(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 12, Turns: 4})
	ordered := inTimeOrder(evs, false)
	from := ordered[5]
	got := f.searchAll(t, bases(facts.Unit.SessionID)[1], url.Values{"page_id": {from.id}, "limit": {"4"}})
	assertSameBytes(t, raws(ordered[5:]), got, "from an event id")
}

func TestEventsAPIBatchGet(t *testing.T) {
	f := newEventsFixture(t)
	facts, evs := f.generated(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 10, Turns: 4})
	app, agent := bases(facts.Unit.SessionID)[0], bases(facts.Unit.SessionID)[1]
	missing := "0b6c3f5e-1d2a-4c3b-9e8f-7a6b5c4d3e2f"
	a, b := evs[3], evs[len(evs)-1]
	decode := func(body []byte) []json.RawMessage {
		var out []json.RawMessage
		require.NoError(t, json.Unmarshal(body, &out), string(body))
		return out
	}
	check := func(t *testing.T, got []json.RawMessage) {
		require.Len(t, got, 4)
		assert.Equal(t, string(b.raw), string(got[0]))
		assert.Equal(t, "null", string(got[1]))
		assert.Equal(t, string(a.raw), string(got[2]))
		assert.Equal(t, string(b.raw), string(got[3]), "an id asked twice is answered twice")
	}
	t.Run("app server: ?id=, null for a missing id, dashed or hex", func(t *testing.T) {
		q := url.Values{"id": {b.id, missing, strings.ReplaceAll(strings.ToUpper(a.id), "-", ""), b.id}}
		code, body := f.get(t, app+"?"+q.Encode())
		require.Equal(t, http.StatusOK, code, string(body))
		check(t, decode(body))
	})
	t.Run("app server: no ids", func(t *testing.T) {
		code, body := f.get(t, app)
		require.Equal(t, http.StatusOK, code)
		assert.Equal(t, "[]", strings.TrimSpace(string(body)))
	})
	t.Run("app server: an id that is no UUID", func(t *testing.T) {
		code, body := f.get(t, app+"?id="+a.id+"&id=abc")
		require.Equal(t, http.StatusUnprocessableEntity, code)
		var v validation
		require.NoError(t, json.Unmarshal(body, &v))
		require.Len(t, v.Detail, 1)
		assert.Equal(t, []any{"query", "id", float64(1)}, v.Detail[0].Loc)
		assert.Equal(t, "uuid_parsing", v.Detail[0].Type)
	})
	t.Run("agent server: event_ids in the body", func(t *testing.T) {
		ids, _ := json.Marshal([]string{b.id, missing, a.id, b.id})
		r := f.req(t, "GET", agent, string(ids), false)
		r.Header.Set("X-Session-API-Key", f.key)
		resp, body := do(t, r)
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		check(t, decode([]byte(body)))
	})
	t.Run("agent server: event_ids in the query", func(t *testing.T) {
		q := url.Values{"event_ids": {b.id, missing, a.id, b.id}}
		code, body := f.get(t, agent+"?"+q.Encode())
		require.Equal(t, http.StatusOK, code, string(body))
		check(t, decode(body))
	})
	t.Run("agent server: no ids, or not a list", func(t *testing.T) {
		code, _ := f.get(t, agent)
		assert.Equal(t, http.StatusUnprocessableEntity, code)
		r := f.req(t, "GET", agent, `{"event_ids": "x"}`, false)
		r.Header.Set("X-Session-API-Key", f.key)
		resp, _ := do(t, r)
		assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	})
	t.Run("agent server: one event", func(t *testing.T) {
		code, body := f.get(t, agent+"/"+a.id)
		require.Equal(t, http.StatusOK, code)
		assert.Equal(t, string(a.raw), strings.TrimSuffix(string(body), "\n"))
		code, body = f.get(t, agent+"/"+missing)
		assert.Equal(t, http.StatusNotFound, code)
		assert.JSONEq(t, `{"detail":"Not Found"}`, string(body))
	})
	t.Run("more than 100 ids", func(t *testing.T) {
		q := url.Values{}
		var ids []string
		for i := range 101 {
			ids = append(ids, fmt.Sprintf("0b6c3f5e-1d2a-4c3b-9e8f-%012d", i))
		}
		q["id"] = ids
		code, body := f.get(t, app+"?"+q.Encode())
		assert.Equal(t, http.StatusBadRequest, code)
		assert.JSONEq(t, `{"detail":"Cannot request more than 100 events at once, got 101"}`, string(body))
		q = url.Values{"event_ids": ids}
		code, body = f.get(t, agent+"?"+q.Encode())
		assert.Equal(t, http.StatusBadRequest, code)
		assert.JSONEq(t, `{"detail":"Cannot request more than 100 events at once, got 101"}`, string(body))
		q["id"] = ids[:100]
		code, body = f.get(t, app+"?"+url.Values{"id": ids[:100]}.Encode())
		require.Equal(t, http.StatusOK, code)
		assert.Len(t, decode(body), 100)
	})
}

func TestEventsAPIRefusals(t *testing.T) {
	f := newEventsFixture(t)
	facts, _ := f.generated(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 13, Turns: 2})
	dsh := f.generate(t, 77, "/work/project")
	f.importPath(t, f.root)
	sess, err := f.deps.Archive.Session(context.Background(), dsh.ID())
	require.NoError(t, err, "the dsh session is archived")
	for _, base := range append(bases(facts.Unit.SessionID), bases(sess.ID)[0], bases(sess.ID)[1]) {
		for _, ep := range []string{"/search", "/count", ""} {
			p := base + ep
			if !strings.Contains(base, facts.Unit.SessionID) {
				code, body := f.get(t, p)
				assert.Equal(t, http.StatusNotFound, code, "a dsh session is no OpenHands conversation: %s", p)
				assert.JSONEq(t, `{"detail":"Not Found"}`, string(body))
				continue
			}
			code, detail := f.machineCall(t, "GET", p, "", true)
			assert.Equal(t, http.StatusUnauthorized, code, p)
			assert.Equal(t, "X-Session-API-Key header is required", detail)
			code, detail = f.machineCall(t, "GET", p, f.key+"x", false)
			assert.Equal(t, http.StatusUnauthorized, code, p)
			assert.Equal(t, "Invalid session API key", detail)
			code, detail = f.machineCall(t, "POST", p, f.key, false)
			assert.Equal(t, http.StatusMethodNotAllowed, code, p)
			assert.Equal(t, "Method Not Allowed", detail)
		}
	}
	for _, id := range []string{"0b6c3f5e-1d2a-4c3b-9e8f-7a6b5c4d3e2f", "0b6c3f5e1d2a4c3b9e8f7a6b5c4d3e2f", "nope", facts.Unit.SessionID[:8]} {
		for _, base := range bases(id) {
			code, body := f.get(t, base+"/search")
			assert.Equal(t, http.StatusNotFound, code, "%s: %s", base, body)
			assert.JSONEq(t, `{"detail":"Not Found"}`, string(body))
		}
	}
}

// TestEventsAPIPageIDsSurviveAppends: a page id names a place in the events,
// not a count of events before it, so a client paging while the conversation
// grows misses nothing and sees nothing twice.
func TestEventsAPIPageIDsSurviveAppends(t *testing.T) {
	f := newEventsFixture(t)
	facts, evs := f.generated(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 14, Turns: 4})
	for _, base := range bases(facts.Unit.SessionID) {
		for _, desc := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s desc=%v", base[:12], desc), func(t *testing.T) {
				q := url.Values{"limit": {"10"}}
				if desc {
					q.Set("sort_order", "TIMESTAMP_DESC")
				}
				code, body := f.get(t, base+"/search?"+q.Encode())
				require.Equal(t, http.StatusOK, code)
				var first page
				require.NoError(t, json.Unmarshal(body, &first))
				require.NotNil(t, first.Next)

				before := evs
				added := appendEvents(t, facts.Unit.Path, 3)
				reps := f.importPath(t, facts.Unit.Path)
				require.Len(t, reps, 1)
				require.Equal(t, "appended", reps[0].Action, "%+v", reps[0])
				evs = append(evs, added...)

				// The new events are the latest: oldest first, the pages
				// after the first end with them; newest first, they come
				// before the first page, and the pages after it are the same.
				want := raws(inTimeOrder(evs, false))
				if desc {
					want = raws(inTimeOrder(before, true))
				}
				q.Set("page_id", *first.Next)
				rest := f.searchAll(t, base, q)
				assertSameBytes(t, want, append(toBytes(first.Items), rest...), "paged across an append")
				if desc {
					all := f.searchAll(t, base, url.Values{"sort_order": {"TIMESTAMP_DESC"}})
					assertSameBytes(t, raws(inTimeOrder(evs, true)), all, "a new search")
				}
			})
		}
	}
}

// appendEvents writes n more events after the last event file of an SDK
// conversation, later than any before, and returns them.
func appendEvents(t *testing.T, dir string, n int) []storedEvent {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "events", "event-*.json"))
	require.NoError(t, err)
	next := len(names)
	var out []storedEvent
	for i := range n {
		id := fmt.Sprintf("7e57a99e-0000-4000-8000-%012d", next+i)
		tm := time.Date(2099, 1, 1, 0, 0, next+i, 123000, time.UTC)
		raw := fmt.Sprintf(`{"id":"%s","timestamp":"%s","source":"user","llm_message":{"role":"user","content":[{"type":"text","text":"later %d"}]},"kind":"MessageEvent"}`,
			id, tm.Format("2006-01-02T15:04:05.999999"), i)
		name := filepath.Join(dir, "events", fmt.Sprintf("event-%05d-%s.json", next+i, id))
		require.NoError(t, os.WriteFile(name, []byte(raw), 0o644))
		out = append(out, storedEvent{id: id, kind: "MessageEvent", time: tm, raw: []byte(raw), seq: 1 << 20})
	}
	for i := range out {
		out[i].seq += i
	}
	return out
}

// TestEventsAPIRealCorpus serves every conversation of the real corpus: its
// count is the number of events imported, and paging through it gives back
// every event's bytes.
func TestEventsAPIRealCorpus(t *testing.T) {
	root := archivetest.Corpus(t, "openhands")
	f := newEventsFixture(t)
	reps := f.importPath(t, root)
	require.GreaterOrEqual(t, len(reps), 15)
	for _, r := range reps {
		require.Equal(t, "openhands", r.Agent, r.Path)
		base := bases(r.SessionID)[0]
		assert.Equal(t, int(r.LogicalEvents), f.count(t, base, nil), r.Path)
		evs := stored(t, openhands.Unit{Path: r.Path, Layout: openhands.Layout(r.Format), SessionID: r.SessionID})
		require.Len(t, evs, int(r.LogicalEvents), r.Path)
		assertSameBytes(t, raws(inTimeOrder(evs, false)), f.searchAll(t, base, url.Values{"limit": {"100"}}), r.Path)
		assertSameBytes(t, raws(inTimeOrder(evs, true)), f.searchAll(t, bases(r.SessionID)[1], url.Values{"limit": {"33"}, "sort_order": {"TIMESTAMP_DESC"}}), r.Path)
	}
}

// TestEventsAPITimeOrderTies: events of the same time keep conversation order
// (reversed newest first), an event of no time comes first, and a time with a
// zone is placed by its UTC instant.
func TestEventsAPITimeOrderTies(t *testing.T) {
	f := newEventsFixture(t)
	dir := filepath.Join(t.TempDir(), "0b6c3f5e1d2a4c3b9e8f7a6b5c4d3e2f")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "events"), 0o755))
	times := []string{"2026-05-01T10:00:00.5", "2026-05-01T10:00:00.5", "", "2026-05-01T12:00:00+03:00", "2026-05-01T10:00:00.5", "2026-05-01T09:59:59"}
	var raws [][]byte
	for i, ts := range times {
		id := fmt.Sprintf("7e57a99e-0000-4000-8000-%012d", i)
		field := ""
		if ts != "" {
			field = fmt.Sprintf(`"timestamp":%q,`, ts)
		}
		raw := fmt.Sprintf(`{"id":%q,%s"source":"user","llm_message":{"role":"user","content":[{"type":"text","text":"m%d"}]},"kind":"MessageEvent"}`, id, field, i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "events", fmt.Sprintf("event-%05d-%s.json", i, id)), []byte(raw), 0o644))
		raws = append(raws, []byte(raw))
	}
	reps := f.importPath(t, dir)
	require.Len(t, reps, 1)
	// 12:00+03:00 is 09:00 UTC: before 09:59:59.
	asc := [][]byte{raws[2], raws[3], raws[5], raws[0], raws[1], raws[4]}
	desc := [][]byte{raws[4], raws[1], raws[0], raws[5], raws[3], raws[2]}
	for _, base := range bases("0b6c3f5e-1d2a-4c3b-9e8f-7a6b5c4d3e2f") {
		assertSameBytes(t, asc, f.searchAll(t, base, url.Values{"limit": {"2"}}), "oldest first")
		assertSameBytes(t, desc, f.searchAll(t, base, url.Values{"limit": {"2"}, "sort_order": {"TIMESTAMP_DESC"}}), "newest first")
		assert.Equal(t, 3, f.count(t, base, url.Values{"timestamp__gte": {"2026-05-01T10:00:00.5"}}))
		assert.Equal(t, 3, f.count(t, base, url.Values{"timestamp__lt": {"2026-05-01T10:00:00.5"}}), "the event of no time is before any time")
		assert.Equal(t, 1, f.count(t, base, url.Values{"timestamp__gte": {"2026-05-01T08:30:00Z"}, "timestamp__lt": {"2026-05-01T09:30:00"}}))
	}
}
