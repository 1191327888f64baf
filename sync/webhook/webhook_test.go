package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/sync/webhook"
)

// A sender that batches (5 and 100 events), retries, redelivers and reorders,
// through a network that loses requests and answers, ends with an archive that
// holds exactly the sender's events, byte for byte; without the faults, in the
// sender's order too.
func TestSenderEndsWithSendersEvents(t *testing.T) {
	for _, size := range []int{5, 100} {
		t.Run(fmt.Sprintf("batch-%d", size), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rc := newReceiver(t, t.TempDir(), webhook.Options{}, flaky(uint64(size), 0.15, 0.15))
			turns := 2 * size // about 20 events a turn: several batches each
			convs := []conversation{genConversation(t, 1, turns), genConversation(t, 2, turns/2), genConversation(t, 3, turns+3)}
			var wg sync.WaitGroup
			senders := make([]*sender, len(convs))
			for i, c := range convs {
				s := newSender(rc.url, "k", size, uint64(100*size+i))
				s.redeliver, s.reorder = 0.2, 0.2
				senders[i] = s
				wg.Add(1)
				go func() { defer wg.Done(); assert.NoError(t, s.send(ctx, c.id, c.events)) }()
			}
			wg.Wait()
			failed := 0
			for _, s := range senders {
				failed += s.failed
			}
			assert.Greater(t, failed, 0, "the network failed some posts")
			for i, c := range convs {
				got := archivedEvents(t, rc.store, c.id)
				assert.Equal(t, byID(t, c.events), byID(t, got), "conversation %d", i)
				sess, err := rc.store.Session(ctx, openhands.NormalizeID(c.id))
				require.NoError(t, err)
				assert.Equal(t, "ok", sess.Health)
				assert.Equal(t, int64(len(c.events)), sess.Events)
			}
		})
	}
	t.Run("in-order", func(t *testing.T) {
		rc := newReceiver(t, t.TempDir(), webhook.Options{}, nil)
		c := genConversation(t, 4, 10)
		require.NoError(t, newSender(rc.url, "k", 5, 9).send(context.Background(), c.id, c.events))
		assert.Equal(t, c.events, archivedEvents(t, rc.store, c.id))
		// A fresh import of the archive's own folder gives the same session.
		fresh := archivetest.MustOpen(t)
		dir, err := rc.pushed.ConversationDir(c.id)
		require.NoError(t, err)
		fr := fresh.ImportFile(context.Background(), dir, archive.ImportOptions{})
		require.Equal(t, archive.VerdictOK, fr.Verdict, "%+v", fr.Error)
		want, err := fresh.Session(context.Background(), fr.SessionID)
		require.NoError(t, err)
		got, err := rc.store.Session(context.Background(), fr.SessionID)
		require.NoError(t, err)
		assert.Equal(t, want.Events, got.Events)
		assert.Equal(t, want.Messages, got.Messages)
		assert.Equal(t, want.ToolCalls, got.ToolCalls)
		assert.Equal(t, want.Title, got.Title)
	})
}

// Bodies that are not an array of events get 422 and store nothing; an event of
// a kind nobody knows, or without an id, is kept and never fails the batch.
func TestBadBodies(t *testing.T) {
	rc := newReceiver(t, t.TempDir(), webhook.Options{}, nil)
	c := genConversation(t, 5, 2)
	u := rc.url + "/events/" + c.id
	for _, tc := range []struct {
		name, url, body, detail string
	}{
		{"not JSON", u, `[{"id": "x"`, "the body is not JSON"},
		{"an object", u, `{"id":"x","kind":"MessageEvent"}`, "must be a JSON array of events, not an object"},
		{"numbers", u, `[1, 2]`, "element 1 of the array is a number"},
		{"a nested array", u, `[` + string(c.events[0]) + `, [1]]`, "element 2 of the array is an array"},
		{"empty", u, ``, "the body is not JSON"},
		{"two values", u, `[] []`, "the body is not JSON"},
		{"id not a UUID", rc.url + "/events/not-a-uuid", `[]`, `not-a-uuid\" is not a UUID`},
		{"info not an object", rc.url + "/conversations", `[]`, "must be a JSON object"},
		{"info without id", rc.url + "/conversations", `{"title":"x"}`, "not a UUID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, tc.url, "", []byte(tc.body))
			assert.Equal(t, http.StatusUnprocessableEntity, code, body)
			assert.Contains(t, body, tc.detail)
		})
	}
	_, err := os.Stat(rc.pushed.Dir())
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing was written")

	code, body := post(t, u, "", []byte(`[]`))
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"success":true}`, body)

	unknown := json.RawMessage(`{"id":"5b8e8e8e-1111-4222-8333-944455556666","timestamp":"2026-03-01T09:00:00","source":"agent","kind":"NoSuchEventYet","payload":{"x":[1,2,3]}}`)
	noID := json.RawMessage(`{"timestamp":"2026-03-01T09:00:01","source":"agent","kind":"MessageEvent"}`)
	batch := append(append([]json.RawMessage{}, c.events...), unknown, noID)
	code, body = post(t, u, "", array(batch))
	require.Equal(t, http.StatusOK, code, body)
	got := archivedEvents(t, rc.store, c.id)
	require.Len(t, got, len(batch))
	assert.Equal(t, string(unknown), string(got[len(got)-2]), "the unknown kind is kept as sent")
	assert.Equal(t, string(noID), string(got[len(got)-1]), "the id-less event's bytes are kept")
	sess, err := rc.store.Session(context.Background(), openhands.NormalizeID(c.id))
	require.NoError(t, err)
	assert.Equal(t, int64(len(c.events)+1), sess.Events, "the id-less event is no event of the views")

	// The same batch again, and once more with its whitespace changed: nothing new.
	code, _ = post(t, u, "", array(batch))
	require.Equal(t, http.StatusOK, code)
	indented := make([]json.RawMessage, len(batch))
	for i, e := range batch {
		var b bytes.Buffer
		require.NoError(t, json.Indent(&b, e, "", "  "))
		indented[i] = b.Bytes()
	}
	code, _ = post(t, u, "", array(indented))
	require.Equal(t, http.StatusOK, code)
	assert.Len(t, archivedEvents(t, rc.store, c.id), len(batch))
}

// A body above the limit gets 413 without being read, with a length or chunked;
// one at the limit is taken.
func TestTooLarge(t *testing.T) {
	rc := newReceiver(t, t.TempDir(), webhook.Options{MaxBody: 4096}, nil)
	c := genConversation(t, 6, 3)
	var small, big []json.RawMessage
	size := 2
	for _, e := range c.events {
		if size+len(e)+1 <= 4096 {
			small = append(small, e)
			size += len(e) + 1
		}
		big = append(big, e)
	}
	require.Greater(t, len(array(big)), 4096)
	u := rc.url + "/events/" + c.id
	code, body := post(t, u, "", array(big))
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)
	assert.Contains(t, body, "limit of 4096 bytes")

	// Chunked (no length): cut at the limit.
	pr, pw := io.Pipe()
	go func() { _, _ = pw.Write(array(big)); _ = pw.Close() }()
	req, err := http.NewRequest(http.MethodPost, u, pr)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)

	code, body = post(t, u, "", array(small))
	require.Equal(t, http.StatusOK, code, body)
	assert.Len(t, archivedEvents(t, rc.store, c.id), len(small))
}

// A storage failure is a 5xx, so the sender keeps the batch and retries; once the
// fault is gone the retry succeeds and nothing is lost.
func TestStorageFailureIs5xx(t *testing.T) {
	t.Run("archive closed", func(t *testing.T) {
		rc := newReceiver(t, t.TempDir(), webhook.Options{}, nil)
		c := genConversation(t, 7, 2)
		require.NoError(t, rc.store.Close())
		code, body := post(t, rc.url+"/events/"+c.id, "", array(c.events))
		assert.Equal(t, http.StatusInternalServerError, code)
		assert.Contains(t, body, "could not be stored")
	})
	t.Run("disk full", func(t *testing.T) {
		dir := t.TempDir()
		rc := newReceiver(t, dir, webhook.Options{}, nil)
		// The pushed folder on a small file system of its own, filled up.
		// (Each file takes a page of it: the conversation's ~64 event files, its
		// meta and its index of ids need ~300k once the filler is gone.)
		mnt := archivetest.Tmpfs(t, "384k")
		require.NoError(t, os.MkdirAll(filepath.Dir(rc.pushed.Dir()), 0o700))
		require.NoError(t, os.Symlink(mnt, rc.pushed.Dir()))
		filler := filepath.Join(mnt, "filler")
		require.NoError(t, os.WriteFile(filler, make([]byte, 378<<10), 0o600))
		c := genConversation(t, 8, 6)
		s := newSender(rc.url, "k", 5, 1)
		s.numRetries = 0
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		err := s.send(ctx, c.id, c.events)
		cancel()
		require.Error(t, err, "nothing can be acknowledged while the disk is full")
		code, body := post(t, rc.url+"/events/"+c.id, "", array(c.events[:5]))
		assert.Equal(t, http.StatusInternalServerError, code)
		assert.Contains(t, body, "no space left on device")

		require.NoError(t, os.Remove(filler))
		require.NoError(t, s.send(context.Background(), c.id, c.events))
		assert.Equal(t, c.events, archivedEvents(t, rc.store, c.id))
	})
}

// The older path with a sandbox id works alike; a known path with another
// method is 405, an unknown one 404.
func TestPaths(t *testing.T) {
	rc := newReceiver(t, t.TempDir(), webhook.Options{}, nil)
	c := genConversation(t, 9, 2)
	dashed := openhands.NormalizeID(c.id)
	code, body := post(t, rc.url+"/sandbox-1/events/"+dashed, "", array(c.events))
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, c.events, archivedEvents(t, rc.store, c.id))

	resp, err := http.Get(rc.url + "/events/" + c.id)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	code, _ = post(t, rc.url+"/nothing/here/at/all", "", []byte(`[]`))
	assert.Equal(t, http.StatusNotFound, code)
}

// Conversation info sets the title and model, at once for a conversation with
// events; a late redelivery of an older one does not take them back; every one
// is kept; a conversation first seen by its info is imported with its first event.
func TestConversationInfo(t *testing.T) {
	ctx := context.Background()
	rc := newReceiver(t, t.TempDir(), webhook.Options{}, nil)
	c := genConversation(t, 10, 2)
	dashed := openhands.NormalizeID(c.id)
	info := func(title, updated string) []byte {
		return []byte(fmt.Sprintf(`{"id":%q,"title":%q,"agent":{"kind":"Agent","llm":{"model":"openai/gpt-5"}},"execution_status":"running","created_at":"2026-03-01T09:00:00Z","updated_at":%q,"tags":{}}`,
			dashed, title, updated))
	}
	code, body := post(t, rc.url+"/conversations", "", info("First title", "2026-03-01T09:00:00Z"))
	require.Equal(t, http.StatusOK, code, body)
	_, err := rc.store.Session(ctx, dashed)
	require.ErrorIs(t, err, archive.ErrNotFound, "no event yet: nothing to show")

	n := len(c.events) - 3
	code, body = post(t, rc.url+"/events/"+c.id, "", array(c.events[:n]))
	require.Equal(t, http.StatusOK, code, body)
	sess, err := rc.store.Session(ctx, dashed)
	require.NoError(t, err)
	assert.Equal(t, "First title", sess.Title)

	code, _ = post(t, rc.url+"/conversations", "", info("Renamed", "2026-03-01T10:00:00Z"))
	require.Equal(t, http.StatusOK, code)
	sess, err = rc.store.Session(ctx, dashed)
	require.NoError(t, err)
	assert.Equal(t, "Renamed", sess.Title, "an info after the events shows at once, not with the next event")
	code, _ = post(t, rc.url+"/conversations", "", info("First title", "2026-03-01T09:00:00Z"))
	require.Equal(t, http.StatusOK, code)
	sess, err = rc.store.Session(ctx, dashed)
	require.NoError(t, err)
	assert.Equal(t, "Renamed", sess.Title, "a late older info takes nothing back")
	code, _ = post(t, rc.url+"/events/"+c.id, "", array(c.events[n:]))
	require.Equal(t, http.StatusOK, code)
	sess, err = rc.store.Session(ctx, dashed)
	require.NoError(t, err)
	assert.Equal(t, "Renamed", sess.Title, "the newer info stands")
	assert.Contains(t, sess.Models, "openai/gpt-5")

	hist, err := os.ReadFile(filepath.Join(rc.pushed.Dir(), c.id+".info.ndjson"))
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(hist), "\n"), "every info is kept")
	assert.Equal(t, c.events, archivedEvents(t, rc.store, c.id))
}

// statusOf records the status the receiver wrote for each request, for bodies
// whose sender is gone before it could read the answer.
type statusOf struct {
	http.ResponseWriter
	got chan int
}

// Unwrap lets the receiver reach the connection (its body deadline).
func (s statusOf) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s statusOf) WriteHeader(code int) {
	s.got <- code
	s.ResponseWriter.WriteHeader(code)
}

// TestBodyReadFailures: a body that stops arriving is 408 once the body
// deadline passes; one whose connection breaks mid-body is 400, not a timeout.
func TestBodyReadFailures(t *testing.T) {
	got := make(chan int, 4)
	rc := newReceiver(t, t.TempDir(), webhook.Options{BodyTimeout: 200 * time.Millisecond}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(statusOf{w, got}, r) })
	})
	u := rc.url + "/events/" + genConversation(t, 8, 1).id

	// Stalls: half an array, then nothing until long after the deadline.
	pr, pw := io.Pipe()
	go func() { _, _ = pw.Write([]byte(`[{"id":"a"`)); time.Sleep(2 * time.Second); _ = pw.Close() }()
	req, err := http.NewRequest(http.MethodPost, u, pr)
	require.NoError(t, err)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	assert.Equal(t, http.StatusRequestTimeout, <-got)

	// Breaks: the sender's connection ends before the length it announced.
	conn, err := net.Dial("tcp", rc.srv.Listener.Addr().String())
	require.NoError(t, err)
	path := strings.TrimPrefix(u, rc.srv.URL)
	_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[{\"id\":", path)
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	select {
	case code := <-got:
		assert.Equal(t, http.StatusBadRequest, code)
	case <-time.After(5 * time.Second):
		t.Fatal("no answer for a broken body")
	}
}

// A conversation whose events came first, with no info (titled by its first user
// message), shows its ConversationInfo's title as soon as the info is answered.
func TestConversationInfoAfterEvents(t *testing.T) {
	ctx := context.Background()
	rc := newReceiver(t, t.TempDir(), webhook.Options{}, nil)
	c := genConversation(t, 11, 2)
	dashed := openhands.NormalizeID(c.id)
	code, body := post(t, rc.url+"/events/"+c.id, "", array(c.events))
	require.Equal(t, http.StatusOK, code, body)
	before, err := rc.store.Session(ctx, dashed)
	require.NoError(t, err)
	require.NotEqual(t, "Set by the info", before.Title)

	code, body = post(t, rc.url+"/conversations", "", []byte(fmt.Sprintf(
		`{"id":%q,"title":"Set by the info","execution_status":"finished","updated_at":"2026-03-01T10:00:00Z"}`, dashed)))
	require.Equal(t, http.StatusOK, code, body)
	sess, err := rc.store.Session(ctx, dashed)
	require.NoError(t, err)
	assert.Equal(t, "Set by the info", sess.Title)
	assert.Equal(t, before.Events, sess.Events, "no event more, none less")
	assert.Equal(t, c.events, archivedEvents(t, rc.store, c.id))
}
