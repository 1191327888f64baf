package app

import (
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
	"github.com/logbook/logbook/internal/cputime"
)

// BenchmarkEventsAPISearchPage times search pages of a 10,000-event SDK
// conversation (event files of about the corpus's 3.4 KiB) over real HTTP with
// an API key: one op is one page of 100 events, drawn in turn from the first
// page, pages deep in the conversation (by page id, both orders), a kind's pages
// and a time window. It reports the latency's median and 95th percentile, and
// the CPU time a page costs (server and client together).
func BenchmarkEventsAPISearchPage(b *testing.B) {
	ctx := context.Background()
	s := archivetest.MustOpen(b)
	a := New(Deps{Archive: s, Version: "bench", DataDir: b.TempDir()})
	k, err := a.NewAPIKey("bench")
	require.NoError(b, err)
	srv := httptest.NewUnstartedServer(nil)
	addr := srv.Listener.Addr().String()
	srv.Config.Handler = NewServer(a, NewHub(), ServerOptions{Addr: addr, Token: testToken, Assets: testAssets})
	srv.Start()
	defer srv.Close()
	facts, err := openhandsgen.Generate(b.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 41, Turns: 1400, PadOutput: 6500})
	require.NoError(b, err)
	require.GreaterOrEqual(b, facts.Events, 10000)
	_, err = s.Import(ctx, []string{facts.Unit.Path}, archive.ImportOptions{})
	require.NoError(b, err)
	base := bases(facts.Unit.SessionID)[0]

	// fetch is one request: the whole answer read, not decoded.
	fetch := func(q url.Values) []byte {
		r, err := http.NewRequest("GET", "http://"+addr+base+"/search?"+q.Encode(), nil)
		require.NoError(b, err)
		r.Header.Set("X-Session-API-Key", k.Key)
		resp, err := http.DefaultClient.Do(r)
		require.NoError(b, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(b, err)
		require.Equal(b, http.StatusOK, resp.StatusCode, string(body))
		return body
	}
	get := func(q url.Values) page {
		var p page
		require.NoError(b, json.Unmarshal(fetch(q), &p))
		return p
	}
	// The page ids of every page, oldest first and newest first.
	var queries []url.Values
	for _, order := range []string{"TIMESTAMP", "TIMESTAMP_DESC"} {
		q := url.Values{"sort_order": {order}}
		for {
			queries = append(queries, url.Values{"sort_order": {order}, "page_id": q["page_id"]})
			p := get(q)
			if p.Next == nil {
				break
			}
			q.Set("page_id", *p.Next)
		}
	}
	require.GreaterOrEqual(b, len(queries), 200)
	// A window of the middle tenth of the conversation's time.
	stamp := func(q url.Values) string {
		var ev struct{ Timestamp string }
		require.NoError(b, json.Unmarshal(get(q).Items[0], &ev))
		return ev.Timestamp
	}
	n := len(queries) / 2
	from, to := stamp(queries[n*45/100]), stamp(queries[n*55/100])
	queries = append(queries,
		url.Values{"kind__eq": {"ObservationEvent"}},
		url.Values{"kind__eq": {"MessageEvent"}, "sort_order": {"TIMESTAMP_DESC"}},
		url.Values{"timestamp__gte": {from}, "timestamp__lt": {to}})
	rng := rand.New(rand.NewPCG(1, 2))
	var lat []time.Duration
	b.ResetTimer()
	cpu := cputime.Process()
	for b.Loop() {
		q := queries[rng.IntN(len(queries))]
		start := time.Now()
		body := fetch(q)
		lat = append(lat, time.Since(start))
		if len(body) < 1000 {
			b.Fatalf("no page for %v: %s", q, body)
		}
	}
	b.StopTimer()
	// CPU time, the server's and the client's, is what a machine shared with
	// other jobs does not distort.
	if used := cputime.Process() - cpu; used > 0 {
		b.ReportMetric(float64(used.Microseconds())/1000/float64(len(lat)), "cpu-ms/op")
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(float64(facts.Events), "events")
}
