package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
)

// The OpenHands-compatible events API (shared/docs/openhands-events.md §3.1,
// §3.2): archived OpenHands conversations answered as OpenHands' app server
// (/api/v1/conversation/{id}/events/…) and agent server
// (/api/conversations/{id}/events/…) answer them, with the same parameters, JSON
// shapes and status codes, behind an API key (machine). Each event is its
// original JSON bytes, never re-encoded; the archive does the filtering and
// sorting (archive/ohevents.go).
//
// Where OpenHands fails with a 500 (a page id or event id it cannot parse) this
// answers 422, and an unknown conversation is 404 on both, as the agent server
// answers (the app server gives an empty page).

// maxEventIDs is how many events one batch get may ask for.
const maxEventIDs = 100

// maxEventLimit is the largest page, and the default.
const maxEventLimit = 100

// eventsDialect is which OpenHands server an endpoint speaks as.
type eventsDialect int

const (
	appServer   eventsDialect = iota // /api/v1/conversation/{id}/events
	agentServer                      // /api/conversations/{id}/events
)

// routeEvents registers the events API's endpoints, each behind machine.
func (s *Server) routeEvents() {
	for pre, d := range map[string]eventsDialect{"/api/v1/conversation/{id}/events": appServer, "/api/conversations/{id}/events": agentServer} {
		s.mux.Handle(pre+"/search", s.machine(getOnly(s.eventsHandler(d, s.searchEvents))))
		s.mux.Handle(pre+"/count", s.machine(getOnly(s.eventsHandler(d, s.countEvents))))
		s.mux.Handle(pre, s.machine(getOnly(s.eventsHandler(d, s.batchEvents))))
	}
	s.mux.Handle("/api/conversations/{id}/events/{event_id}", s.machine(getOnly(s.eventsHandler(agentServer, s.oneEvent))))
}

// getOnly answers any method but GET as FastAPI answers a route's other methods.
func getOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", "GET")
			writeDetail(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// eventsRequest is one events API request with its conversation found.
type eventsRequest struct {
	w       http.ResponseWriter
	r       *http.Request
	dialect eventsDialect
	log     *archive.EventLog
}

// eventsHandler finds the request's conversation (404 when there is none) and
// hands it to h.
func (s *Server) eventsHandler(d eventsDialect, h func(*eventsRequest)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l, err := s.app.deps.Archive.EventLog(r.Context(), r.PathValue("id"))
		if errors.Is(err, archive.ErrNotFound) {
			writeDetail(w, http.StatusNotFound, "Not Found")
			return
		}
		if err != nil {
			s.eventsFailed(w, err)
			return
		}
		h(&eventsRequest{w: w, r: r, dialect: d, log: l})
	})
}

// eventsFailed answers a fault of this machine (not of the request).
func (s *Server) eventsFailed(w http.ResponseWriter, err error) {
	s.log.Error("events API", "err", err)
	status := http.StatusInternalServerError
	if errors.Is(err, archive.ErrReadOnly) {
		status = http.StatusServiceUnavailable
	}
	writeDetail(w, status, FormatError(err))
}

// validationError is one entry of FastAPI's 422 detail.
type validationError struct {
	Type  string         `json:"type"`
	Loc   []any          `json:"loc"`
	Msg   string         `json:"msg"`
	Input any            `json:"input"`
	Ctx   map[string]any `json:"ctx,omitempty"`
}

// queryErrors gathers the validation errors of a request, as FastAPI reports
// them all at once.
type queryErrors []validationError

func (e *queryErrors) add(typ, param string, input any, msg string, ctx map[string]any) {
	*e = append(*e, validationError{Type: typ, Loc: []any{"query", param}, Msg: msg, Input: input, Ctx: ctx})
}

// write answers 422 when there are errors, and reports whether it did.
func (e queryErrors) write(w http.ResponseWriter) bool {
	if len(e) == 0 {
		return false
	}
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": e})
	return true
}

// param is the last value of a query parameter (as Starlette reads one), and
// whether it was given.
func param(q url.Values, name string) (string, bool) {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1], true
}

// eventQuery reads the filters, order, page and limit of a search or count.
func (er *eventsRequest) eventQuery(errs *queryErrors) archive.EventQuery {
	q := er.r.URL.Query()
	eq := archive.EventQuery{Limit: maxEventLimit}
	for _, name := range []string{"kind__eq", "kind"} {
		v, ok := param(q, name)
		if !ok {
			continue
		}
		// The agent server names a kind by its module path
		// (openhands.sdk.event.llm_convertible.message.MessageEvent).
		kind := v[strings.LastIndexByte(v, '.')+1:]
		known, err := er.log.IsKind(er.r.Context(), kind)
		if err != nil || !known {
			errs.add("literal_error", name, v, "Input should be the name of an OpenHands event kind, e.g. 'MessageEvent' or 'ActionEvent'", nil)
			continue
		}
		eq.Kind = kind
	}
	eq.Since = timeParam(q, "timestamp__gte", errs)
	eq.Before = timeParam(q, "timestamp__lt", errs)
	if v, ok := param(q, "sort_order"); ok {
		switch v {
		case "TIMESTAMP":
		case "TIMESTAMP_DESC":
			eq.Desc = true
		default:
			errs.add("enum", "sort_order", v, "Input should be 'TIMESTAMP' or 'TIMESTAMP_DESC'", map[string]any{"expected": "'TIMESTAMP' or 'TIMESTAMP_DESC'"})
		}
	}
	if v, ok := param(q, "limit"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		switch {
		case err != nil:
			errs.add("int_parsing", "limit", v, "Input should be a valid integer, unable to parse string as an integer", nil)
		case n < 1:
			errs.add("greater_than_equal", "limit", v, "Input should be greater than or equal to 1", map[string]any{"ge": 1})
		case n > maxEventLimit:
			errs.add("less_than_equal", "limit", v, fmt.Sprintf("Input should be less than or equal to %d", maxEventLimit), map[string]any{"le": maxEventLimit})
		default:
			eq.Limit = n
		}
	}
	// The agent server's other filters are not served: answering them with every
	// event would be a wrong answer, not a smaller one.
	for _, name := range []string{"source", "body"} {
		if v, ok := param(q, name); ok {
			errs.add("value_error", name, v, "Value error, Logbook's events API does not filter by "+name, nil)
		}
	}
	return eq
}

// pageID reads page_id into eq, once the order is known: a page id this server
// gave, or for the agent server the id of the event a page starts at.
func (er *eventsRequest) pageID(eq *archive.EventQuery, errs *queryErrors) {
	v, ok := param(er.r.URL.Query(), "page_id")
	if !ok || v == "" {
		return
	}
	id := v
	var err error
	if er.dialect == agentServer && !archive.IsPageID(v) {
		id, err = er.log.PageIDAt(er.r.Context(), v, eq.Desc)
	}
	if err == nil {
		err = archive.CheckPageID(id, eq.Desc)
	}
	if errors.Is(err, archive.ErrBadPageID) {
		errs.add("value_error", "page_id", v, "Value error, "+strings.TrimSuffix(err.Error(), ": "+archive.ErrBadPageID.Error())+": not a page id of this conversation's events", nil)
		return
	}
	eq.PageID = id
}

// timeLayouts are the datetime forms a filter takes (pydantic's ISO 8601
// forms); one without a zone is UTC, as archived event times are read.
var timeLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02",
}

// timeParam reads a datetime filter; the zero time when it is absent or bad.
func timeParam(q url.Values, name string, errs *queryErrors) time.Time {
	v, ok := param(q, name)
	if !ok {
		return time.Time{}
	}
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, strings.TrimSpace(v), time.UTC); err == nil {
			return t
		}
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 && secs < 1e11 {
		return time.Unix(0, int64(secs*1e9)).UTC() // pydantic reads a number as Unix seconds
	}
	errs.add("datetime_from_date_parsing", name, v, "Input should be a valid datetime or date, e.g. 2026-02-18T19:10:19.447587", nil)
	return time.Time{}
}

// searchEvents answers …/events/search: {"items": [...], "next_page_id": …}.
func (s *Server) searchEvents(er *eventsRequest) {
	var errs queryErrors
	eq := er.eventQuery(&errs)
	if len(errs) == 0 {
		er.pageID(&eq, &errs)
	}
	if errs.write(er.w) {
		return
	}
	page, err := er.log.Search(er.r.Context(), eq)
	if err != nil {
		s.eventsFailed(er.w, err)
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"items":`)
	writeRawArray(&b, page.Items)
	b.WriteString(`,"next_page_id":`)
	if page.NextPageID == "" {
		b.WriteString("null")
	} else {
		next, _ := json.Marshal(page.NextPageID)
		b.Write(next)
	}
	b.WriteString("}\n")
	writeRaw(er.w, http.StatusOK, b.Bytes())
}

// countEvents answers …/events/count: a bare integer.
func (s *Server) countEvents(er *eventsRequest) {
	var errs queryErrors
	eq := er.eventQuery(&errs)
	if errs.write(er.w) {
		return
	}
	n, err := er.log.Count(er.r.Context(), eq)
	if err != nil {
		s.eventsFailed(er.w, err)
		return
	}
	writeJSON(er.w, http.StatusOK, n)
}

// batchEvents answers the batch get: the events with the ids asked, in order,
// null for an id with no event. The app server takes ids as repeated ?id=
// UUIDs; the agent server as event_ids, a JSON array in the body (FastAPI reads
// a list parameter declared without Query() from the body) or repeated
// ?event_ids=.
func (s *Server) batchEvents(er *eventsRequest) {
	ids, ok := er.batchIDs()
	if !ok {
		return
	}
	if len(ids) > maxEventIDs {
		writeDetail(er.w, http.StatusBadRequest, fmt.Sprintf("Cannot request more than %d events at once, got %d", maxEventIDs, len(ids)))
		return
	}
	raws, err := er.log.Get(er.r.Context(), ids)
	if err != nil {
		s.eventsFailed(er.w, err)
		return
	}
	var b bytes.Buffer
	writeRawArray(&b, raws)
	b.WriteString("\n")
	writeRaw(er.w, http.StatusOK, b.Bytes())
}

// batchIDs reads the ids of a batch get; on a bad request it has answered 422.
func (er *eventsRequest) batchIDs() ([]string, bool) {
	q := er.r.URL.Query()
	var errs queryErrors
	if er.dialect == appServer {
		ids := q["id"]
		for i, id := range ids {
			if !isUUID(id) {
				errs = append(errs, validationError{Type: "uuid_parsing", Loc: []any{"query", "id", i}, Input: id,
					Msg: "Input should be a valid UUID, e.g. 0b6c3f5e-1d2a-4c3b-9e8f-7a6b5c4d3e2f or its 32 hex digits"})
			}
		}
		return ids, !errs.write(er.w)
	}
	if ids, ok := q["event_ids"]; ok {
		return ids, true
	}
	body, err := io.ReadAll(http.MaxBytesReader(er.w, er.r.Body, maxBody))
	body = bytes.TrimSpace(body)
	var ids []string
	switch {
	case err != nil:
		errs = append(errs, validationError{Type: "json_invalid", Loc: []any{"body"}, Msg: "JSON body unreadable: " + err.Error()})
	case len(body) == 0:
		errs = append(errs, validationError{Type: "missing", Loc: []any{"body"}, Msg: "Field required"})
	case json.Unmarshal(body, &ids) != nil:
		errs = append(errs, validationError{Type: "list_type", Loc: []any{"body"}, Input: string(body),
			Msg: "Input should be a valid list of event id strings"})
	}
	return ids, !errs.write(er.w)
}

// isUUID reports whether id is a UUID, dashed or as 32 hex digits.
func isUUID(id string) bool {
	hex := id
	if len(id) == 36 {
		if id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' {
			return false
		}
		hex = id[:8] + id[9:13] + id[14:18] + id[19:23] + id[24:]
	}
	return len(hex) == 32 && strings.Trim(strings.ToLower(hex), "0123456789abcdef") == ""
}

// oneEvent answers the agent server's …/events/{event_id}: the event, or 404.
func (s *Server) oneEvent(er *eventsRequest) {
	raws, err := er.log.Get(er.r.Context(), []string{er.r.PathValue("event_id")})
	if err != nil {
		s.eventsFailed(er.w, err)
		return
	}
	if raws[0] == nil {
		writeDetail(er.w, http.StatusNotFound, "Not Found")
		return
	}
	writeRaw(er.w, http.StatusOK, append(raws[0], '\n'))
}

// writeRawArray writes items as a JSON array, each as its bytes, null for nil.
func writeRawArray(b *bytes.Buffer, items []json.RawMessage) {
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if it == nil {
			b.WriteString("null")
		} else {
			b.Write(it)
		}
	}
	b.WriteByte(']')
}

// writeRaw writes a JSON answer already encoded.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
