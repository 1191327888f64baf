package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/logbook/logbook/archive/openhands"
)

// Pushed keeps the OpenHands conversations an agent server pushes to the webhook
// (sync/webhook). Each one is an agent-server conversation folder of the archive's
// own, under Dir, written exactly as the agent server persists one (doc §2.1):
//
//	<Dir>/<conversation hex>/events/event-NNNNN-<event id>.json   one event, the bytes as pushed
//	<Dir>/<conversation hex>/meta.json                            the newest ConversationInfo
//
// and imported through the normal importer, so a pushed conversation gets the same
// verdicts, views, search and export (`logbook export ID --format openhands`) as
// one read from disk. Every ConversationInfo received is also kept, one a line and
// in arrival order, in <Dir>/<conversation hex>.info.ndjson (not .jsonl, which an
// import would take for an events file).
//
// A conversation is bound to the API key of its first push (PushKey, kept in
// <Dir>/<conversation hex>.apikey): a push with another key is ErrOtherKey. When
// that key is revoked, the next key to push claims the conversation, so an agent
// server given a new key carries on with its running conversations; the key
// revoked can no longer push anywhere.
//
// Writes are durable before an import starts (each event file is synced before it
// is renamed into place, and the folder after), and a call returns only once the
// import has committed: the webhook answers 200 only then. Calls for one
// conversation are serialised; calls for different conversations write in
// parallel and import one after the other (the archive's import lock).
type Pushed struct {
	store *Store
	dir   string
	// Options are the import's options (LenientHeaders and the like).
	Options ImportOptions
	// KeyLive reports whether an API key still exists (not revoked): a
	// conversation bound to a key that does not is claimed by the next key that
	// pushes to it. Nil: every key is taken as live.
	KeyLive func(PushKey) (bool, error)

	mu    sync.Mutex
	convs map[string]*pushedConv
	clock uint64 // counts uses, for evict
}

// pushedConv is what Pushed knows of one conversation folder.
type pushedConv struct {
	users int    // calls holding or waiting for it (under Pushed.mu)
	used  uint64 // Pushed.clock at its last use (under Pushed.mu)

	mu     sync.Mutex
	loaded bool
	next   int64               // the idx of the next event file
	seen   map[string][32]byte // event id → SHA-256 of its compacted JSON
	held   map[[32]byte]bool   // every event's compacted digest (id-less events are known by it)
	meta   time.Time           // updated_at of the meta.json held (zero: none, or none readable)
	dirty  bool                // files were written that no import has committed yet
	key    PushKey             // the API key the conversation is bound to (zero: none yet)
	// added names the files written since the last import committed (paths in
	// the folder), so it reads those alone; nil while that is not known (a
	// folder loaded from disk: the import then compares it whole).
	added []string
}

// PushKey names the API key a push was authenticated with: its name and
// fingerprint (apikey.Info), never the key. A conversation is bound to the key
// of its first push; the fingerprint tells a key apart from a later one given
// the same name.
type PushKey struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
}

// IsZero reports whether no key is named (a caller that authenticates nobody).
func (k PushKey) IsZero() bool { return k == PushKey{} }

// PushResult is what one push did.
type PushResult struct {
	// SessionID is the archive's id of the conversation (its dashed UUID).
	SessionID string `json:"session_id"`
	// Stored is how many events were new and written; Duplicates how many the
	// conversation already held (redelivery), byte for byte as JSON.
	Stored     int `json:"stored"`
	Duplicates int `json:"duplicates"`
	// Imported says an import ran; Report is its report (zero when none ran).
	Imported bool       `json:"imported"`
	Report   FileReport `json:"report"`
}

// Errors of a push the caller must answer as the sender's fault (422).
var (
	// ErrBadConversationID: the conversation id is not a UUID (hex or dashed).
	ErrBadConversationID = errors.New("the conversation id is not a UUID")
	// ErrNotObject: an event, or a conversation info, is not a JSON object.
	ErrNotObject = errors.New("not a JSON object")
	// ErrOtherKey: the conversation is bound to another API key, which still
	// exists (answered 401).
	ErrOtherKey = errors.New("the conversation belongs to another API key")
)

// PushedDirName is the folder of the data directory pushed conversations are kept in.
const PushedDirName = "pushed"

// NewPushed returns the keeper of pushed conversations for s, in the folder
// pushed/openhands beside the archive's database.
func NewPushed(s *Store) *Pushed {
	return &Pushed{store: s, dir: filepath.Join(filepath.Dir(s.Path), PushedDirName, "openhands"),
		convs: map[string]*pushedConv{}}
}

// Dir is the folder the pushed conversations are kept in.
func (p *Pushed) Dir() string { return p.dir }

// ConversationDir is the folder of a conversation (its id hex or dashed), or
// ErrBadConversationID.
func (p *Pushed) ConversationDir(id string) (string, error) {
	hexID, err := conversationHex(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(p.dir, hexID), nil
}

// conversationHex is a conversation id's 32 lowercase hex digits.
func conversationHex(id string) (string, error) {
	n := openhands.NormalizeID(strings.TrimSpace(id))
	if len(n) != 36 || n[8] != '-' {
		return "", fmt.Errorf("%w: %q", ErrBadConversationID, id)
	}
	return strings.ReplaceAll(n, "-", ""), nil
}

// maxLoaded bounds the conversations whose state (every event's id and digest)
// Pushed keeps in memory; the least recently used idle one is let go past it, and
// read again from its folder when it is pushed to next.
const maxLoaded = 16

// conv returns the conversation's state, loaded from its folder on first use, and
// locked; release it with p.done.
func (p *Pushed) conv(hexID string) (*pushedConv, error) {
	p.mu.Lock()
	c := p.convs[hexID]
	if c == nil {
		c = &pushedConv{}
		p.convs[hexID] = c
	}
	c.users++
	p.clock++
	c.used = p.clock
	p.evict()
	p.mu.Unlock()
	c.mu.Lock()
	if !c.loaded {
		if err := c.load(filepath.Join(p.dir, hexID)); err != nil {
			p.done(c)
			return nil, err
		}
	}
	return c, nil
}

// done unlocks a conversation conv returned.
func (p *Pushed) done(c *pushedConv) {
	c.mu.Unlock()
	p.mu.Lock()
	c.users--
	p.mu.Unlock()
}

// evict lets go of the least recently used conversations nobody is using while
// more than maxLoaded are held; p.mu is held. One in use is never dropped: two
// states of one folder would write the same event numbers.
func (p *Pushed) evict() {
	for len(p.convs) > maxLoaded {
		var oldest string
		for id, c := range p.convs {
			if c.users == 0 && (oldest == "" || c.used < p.convs[oldest].used) {
				oldest = id
			}
		}
		if oldest == "" {
			return
		}
		delete(p.convs, oldest)
	}
}

// pushedEventName matches the event files Pushed writes (openhands' SDK layout).
var pushedEventName = regexp.MustCompile(`^event-(\d{5,})-([0-9a-fA-F-]{8,})\.json$`)

// tmpPrefix starts the names of files being written; they are renamed into place
// once synced, so a file under its final name is always whole.
const tmpPrefix = ".push-"

// idsSuffix names, after a conversation folder's path, its index of the event
// files written: one line a file, [idx,"SHA-256 of its compacted JSON","event
// id"], appended and synced with each batch. A conversation is loaded from it,
// not by reading every event file, and only the files written after its last
// line (a process killed between the two) are read.
const idsSuffix = ".ids.ndjson"

// load reads what a conversation folder already holds: the next idx, every event's
// id and digest (from the index, and the event files it does not list), the
// meta.json's time, the key it is bound to. Files left half-written by a process
// that died (never acknowledged) are removed. The folder is taken as not yet
// imported.
func (c *pushedConv) load(dir string) error {
	c.seen, c.held, c.next, c.meta = map[string][32]byte{}, map[[32]byte]bool{}, 0, time.Time{}
	indexed, ok := c.readIndex(dir + idsSuffix)
	if !ok {
		// Missing or damaged: rebuilt from the files.
		c.seen, c.held, c.next, indexed = map[string][32]byte{}, map[[32]byte]bool{}, 0, 0
	}
	events := filepath.Join(dir, "events")
	entries, err := os.ReadDir(events)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("pushed conversation %s: %w", dir, err)
	}
	var lines []byte
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			if err := os.Remove(filepath.Join(events, name)); err != nil {
				return fmt.Errorf("pushed conversation %s: remove an unfinished write: %w", dir, err)
			}
			continue
		}
		m := pushedEventName.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		idx, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			continue
		}
		c.next = max(c.next, idx+1)
		if idx < indexed {
			continue // listed by the index
		}
		data, err := os.ReadFile(filepath.Join(events, name))
		if err != nil {
			return fmt.Errorf("pushed conversation %s: %w", dir, err)
		}
		id, sum, err := eventKey(data)
		if err != nil {
			continue // never written by Pushed (it writes only objects): not ours to judge
		}
		c.note(id, sum)
		lines = indexLine(lines, idx, id, sum)
	}
	switch {
	case !ok && len(entries) > 0:
		if err := writeSynced(filepath.Dir(dir), []pendingFile{{name: filepath.Base(dir) + idsSuffix, data: lines, replace: true}}); err != nil {
			return fmt.Errorf("pushed conversation %s: rebuild its index: %w", dir, err)
		}
	case len(lines) > 0:
		if err := appendSynced(dir+idsSuffix, lines); err != nil {
			return fmt.Errorf("pushed conversation %s: index: %w", dir, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	switch {
	case err == nil:
		c.meta, _ = infoTime(data)
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("pushed conversation %s: %w", dir, err)
	}
	c.key = PushKey{}
	data, err = os.ReadFile(dir + keyFileSuffix)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &c.key); err != nil || c.key.IsZero() {
			// Closed, not open: a binding that cannot be read lets nobody push.
			return fmt.Errorf("pushed conversation %s: its API key binding %s is unreadable; remove it to let the next key claim the conversation", dir, dir+keyFileSuffix)
		}
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("pushed conversation %s: %w", dir, err)
	}
	c.loaded, c.dirty, c.added = true, true, nil
	return nil
}

// readIndex notes the events a conversation's index lists and returns the idx
// after the last; ok is false when there is none or it is damaged (a line cut
// short by a crash included: the files are read again then).
func (c *pushedConv) readIndex(path string) (next int64, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte{'\n'})
		if !found {
			return 0, false
		}
		data = rest
		var rec [3]json.RawMessage
		var idx int64
		var digest, id string
		var sum [32]byte
		if json.Unmarshal(line, &rec) != nil || json.Unmarshal(rec[0], &idx) != nil ||
			json.Unmarshal(rec[1], &digest) != nil || json.Unmarshal(rec[2], &id) != nil {
			return 0, false
		}
		if len(digest) != 2*len(sum) {
			return 0, false
		}
		if _, err := hex.Decode(sum[:], []byte(digest)); err != nil {
			return 0, false
		}
		c.note(id, sum)
		next = max(next, idx+1)
	}
	c.next = next
	return next, true
}

// indexLine appends an event file's index line to buf.
func indexLine(buf []byte, idx int64, id string, sum [32]byte) []byte {
	q, _ := json.Marshal(id)
	buf = fmt.Appendf(buf, "[%d,%q,", idx, hex.EncodeToString(sum[:]))
	return append(append(buf, q...), "]\n"...)
}

// note records an event as held; an id seen before keeps its first digest, as the
// reader keeps the first event of an id.
func (c *pushedConv) note(id string, sum [32]byte) {
	if _, ok := c.seen[id]; !ok && id != "" {
		c.seen[id] = sum
	}
	c.held[sum] = true
}

// keyFileSuffix names, after a conversation folder's path, the file that binds
// it to an API key: {"name":…,"fingerprint":…} (not .json, which a scan of the
// folder would sniff as a conversation).
const keyFileSuffix = ".apikey"

// bind checks that key may push to a conversation (c locked), and binds it to
// key on its first push: a conversation takes pushes from the key that created
// it alone. One bound to a key that was revoked since is claimed by key. A
// zero key checks and binds nothing.
func (p *Pushed) bind(c *pushedConv, hexID string, key PushKey) error {
	if key.IsZero() || c.key == key {
		return nil
	}
	if !c.key.IsZero() {
		live := true
		if p.KeyLive != nil {
			var err error
			if live, err = p.KeyLive(c.key); err != nil {
				return fmt.Errorf("check the API key of conversation %s: %w", hexID, err)
			}
		}
		if live {
			// The bound key's name is the person's to read in the log, not the
			// sender's in the answer.
			p.store.Logger.Warn("push refused: the conversation is bound to another API key",
				"conversation", openhands.NormalizeID(hexID), "bound", c.key.Name, "pushed_with", key.Name)
			return fmt.Errorf("conversation %s: %w", openhands.NormalizeID(hexID), ErrOtherKey)
		}
		p.store.Logger.Warn("pushed conversation's API key was revoked; the key pushing now claims it",
			"conversation", openhands.NormalizeID(hexID), "revoked", c.key.Name, "claimed_by", key.Name)
	}
	data, _ := json.Marshal(key)
	if err := writeSynced(p.dir, []pendingFile{{name: hexID + keyFileSuffix, data: data, replace: true}}); err != nil {
		return fmt.Errorf("bind conversation %s to its API key: %w", openhands.NormalizeID(hexID), err)
	}
	c.key = key
	return nil
}

// eventKey is an event's id ("" when it has none) and the digest of its compacted
// JSON, or ErrNotObject.
func eventKey(raw []byte) (string, [32]byte, error) {
	var sum [32]byte
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return "", sum, ErrNotObject
	}
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return "", sum, err
	}
	var buf bytes.Buffer
	buf.Grow(len(raw))
	if err := json.Compact(&buf, raw); err != nil {
		return "", sum, err
	}
	sum = sha256.Sum256(buf.Bytes())
	id := ""
	if len(head.ID) > 0 && string(head.ID) != "null" {
		var s string
		if json.Unmarshal(head.ID, &s) == nil {
			id = s
		} else {
			id = string(head.ID) // a V0 integer id
		}
	}
	return id, sum, nil
}

// fileID is the id an event file is named by: the event's id when the SDK's file
// name pattern takes it, else a digest of it (or of the event, when it has no id).
func fileID(id string, sum [32]byte) string {
	if id != "" && len(id) >= 8 && strings.Trim(id, "0123456789abcdefABCDEF-") == "" {
		return id
	}
	if id != "" {
		h := sha256.Sum256([]byte(id))
		return hex.EncodeToString(h[:16])
	}
	return hex.EncodeToString(sum[:16])
}

// Events keeps the events an agent server pushed for a conversation (id hex or
// dashed) and imports them. Events the conversation already holds, the same JSON,
// are skipped; an event whose id is held with other content is kept too (the
// archive's views keep the first, and its file stays with the conversation). An
// event of a kind nobody knows is kept as is. Every event must be a JSON object
// (ErrNotObject names the first that is not, and nothing is written). It returns
// once the events are written, synced and imported; an error is a fault of this
// machine (or the archive), to answer with a 5xx so the sender retries.
func (p *Pushed) Events(ctx context.Context, key PushKey, conversation string, events []json.RawMessage) (PushResult, error) {
	hexID, err := conversationHex(conversation)
	if err != nil {
		return PushResult{}, err
	}
	res := PushResult{SessionID: openhands.NormalizeID(hexID)}
	type todo struct {
		raw  []byte
		name string
		idx  int64
		id   string
		sum  [32]byte
	}
	keys := make([]struct {
		id  string
		sum [32]byte
	}, len(events))
	for i, raw := range events {
		id, sum, err := eventKey(raw)
		if err != nil {
			if errors.Is(err, ErrNotObject) {
				return res, fmt.Errorf("event %d (of %d): %w", i+1, len(events), ErrNotObject)
			}
			return res, fmt.Errorf("event %d (of %d): %w: %v", i+1, len(events), ErrNotObject, err)
		}
		keys[i].id, keys[i].sum = id, sum
	}
	c, err := p.conv(hexID)
	if err != nil {
		return res, err
	}
	defer p.done(c)
	if err := p.bind(c, hexID, key); err != nil {
		return res, err
	}
	dir := filepath.Join(p.dir, hexID)
	var write []todo
	next := c.next
	for i, raw := range events {
		k := keys[i]
		if c.held[k.sum] {
			res.Duplicates++
			continue
		}
		if prev, ok := c.seen[k.id]; ok && prev != k.sum {
			p.store.Logger.Warn("pushed event repeats an id with other content; both are kept, the first counts",
				"conversation", res.SessionID, "event", k.id)
		}
		c.note(k.id, k.sum)
		write = append(write, todo{raw: raw, name: fmt.Sprintf("event-%05d-%s.json", next, fileID(k.id, k.sum)),
			idx: next, id: k.id, sum: k.sum})
		next++
	}
	if len(write) > 0 {
		files := make([]pendingFile, len(write))
		for i, w := range write {
			files[i] = pendingFile{name: w.name, data: w.raw}
		}
		if err := writeSynced(filepath.Join(dir, "events"), files); err != nil {
			// What was written stays (a retry finds it held); what was not is
			// forgotten, so the retry writes it.
			c.loaded = false
			return res, fmt.Errorf("keep pushed events of %s: %w", res.SessionID, err)
		}
		var lines []byte
		for _, w := range write {
			lines = indexLine(lines, w.idx, w.id, w.sum)
		}
		if err := appendSynced(dir+idsSuffix, lines); err != nil {
			// The files are kept; a load finds those the index does not list.
			c.loaded = false
			return res, fmt.Errorf("index pushed events of %s: %w", res.SessionID, err)
		}
		c.next, c.dirty = next, true
		res.Stored = len(write)
		if c.added != nil {
			for _, w := range write {
				c.added = append(c.added, "events/"+w.name)
			}
		}
	}
	if !c.dirty {
		return res, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "events")); err != nil {
		return res, nil // no event yet: nothing to import (an empty batch)
	}
	return p.importConv(ctx, c, dir, res)
}

// Conversation keeps a ConversationInfo an agent server pushed: it is added to the
// conversation's info history, and becomes its meta.json (title, status, model,
// stats…) unless the one held is newer by updated_at, so a late redelivery never
// takes a conversation back. A conversation with events is imported again at
// once, so its title shows before the next event; one the info announces takes
// it with its first event.
func (p *Pushed) Conversation(ctx context.Context, key PushKey, info json.RawMessage) (PushResult, error) {
	t := bytes.TrimLeft(info, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return PushResult{}, fmt.Errorf("conversation info: %w", ErrNotObject)
	}
	var head struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(info, &head); err != nil {
		return PushResult{}, fmt.Errorf("conversation info: %w: %v", ErrNotObject, err)
	}
	hexID, err := conversationHex(head.ID)
	if err != nil {
		return PushResult{}, fmt.Errorf("conversation info: %w", err)
	}
	res := PushResult{SessionID: openhands.NormalizeID(hexID)}
	var line bytes.Buffer
	if err := json.Compact(&line, info); err != nil {
		return res, fmt.Errorf("conversation info: %w: %v", ErrNotObject, err)
	}
	line.WriteByte('\n')
	c, err := p.conv(hexID)
	if err != nil {
		return res, err
	}
	defer p.done(c)
	if err := p.bind(c, hexID, key); err != nil {
		return res, err
	}
	dir := filepath.Join(p.dir, hexID)
	if err := appendSynced(filepath.Join(p.dir, hexID+".info.ndjson"), line.Bytes()); err != nil {
		return res, fmt.Errorf("keep conversation info of %s: %w", res.SessionID, err)
	}
	at, ok := infoTime(info)
	if ok && !c.meta.IsZero() && at.Before(c.meta) {
		return res, nil // older than the one held: history only
	}
	if err := writeSynced(dir, []pendingFile{{name: "meta.json", data: info, replace: true}}); err != nil {
		return res, fmt.Errorf("keep conversation info of %s: %w", res.SessionID, err)
	}
	if ok {
		c.meta = at
	}
	c.dirty = true
	if c.added != nil {
		c.added = append(c.added, "meta.json")
	}
	if _, err := os.Stat(filepath.Join(dir, "events")); err != nil {
		// No event yet: the conversation is archived with its first, and takes
		// its title from this meta.json then.
		return res, nil
	}
	// Imported now, so the title shows at once, not with the next event.
	return p.importConv(ctx, c, dir, res)
}

// infoTime is a ConversationInfo's updated_at (else created_at).
func infoTime(info []byte) (time.Time, bool) {
	var t struct {
		UpdatedAt string `json:"updated_at"`
		CreatedAt string `json:"created_at"`
	}
	if json.Unmarshal(info, &t) != nil {
		return time.Time{}, false
	}
	s := t.UpdatedAt
	if s == "" {
		s = t.CreatedAt
	}
	return openhands.ParseTime(s, time.UTC)
}

// importConv imports a conversation folder; c is locked.
func (p *Pushed) importConv(ctx context.Context, c *pushedConv, dir string, res PushResult) (PushResult, error) {
	// Only the files written since the last import are read (their names are
	// known when this process imported the folder before): a push costs what it
	// holds, not what the conversation does.
	opts := p.Options
	opts.Added = c.added
	fr := p.store.ImportFile(ctx, dir, opts)
	res.Imported, res.Report = true, fr
	if fr.Verdict == VerdictFailed {
		msg := "import failed"
		if fr.Error != nil {
			msg = fr.Error.Message
		}
		return res, &PushFault{Kind: kindOf(fr), Message: msg}
	}
	c.dirty, c.added = false, []string{}
	if fr.SessionID != "" {
		res.SessionID = fr.SessionID
	}
	return res, nil
}

func kindOf(fr FileReport) Kind {
	if fr.Error != nil {
		return fr.Error.Kind
	}
	return ""
}

// PushFault is a push whose import failed for a fault of this machine or the
// archive (a full disk, a read-only archive…): the events are kept in the folder,
// and the next push or import takes them.
type PushFault struct {
	Kind    Kind
	Message string
}

func (e *PushFault) Error() string {
	return "import of pushed events failed (" + string(e.Kind) + "): " + e.Message
}

// pendingFile is a file writeSynced writes.
type pendingFile struct {
	name    string
	data    []byte
	replace bool // may replace a file of that name (else one is never overwritten)
}

// writeSynced writes files into dir (made if missing) so that each is whole under
// its name or absent: each is written to a temporary name and synced (in parallel,
// so the file system commits them together), then renamed into place in order, and
// the folder is synced. On an error the temporary files are removed.
func writeSynced(dir string, files []pendingFile) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmps := make([]*os.File, len(files))
	cleanup := func() {
		for _, f := range tmps {
			if f != nil {
				_ = f.Close()
				_ = os.Remove(f.Name())
			}
		}
	}
	for i, pf := range files {
		f, err := os.CreateTemp(dir, tmpPrefix+"*")
		if err != nil {
			cleanup()
			return err
		}
		tmps[i] = f
		if _, err := f.Write(pf.data); err != nil {
			cleanup()
			return err
		}
	}
	// Syncs run side by side (up to 16): the file system commits them in a few
	// journal transactions instead of one each.
	errs := make([]error, len(tmps))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i, f := range tmps {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = f.Sync()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		cleanup()
		return err
	}
	for i, f := range tmps {
		if err := f.Close(); err != nil {
			cleanup()
			return err
		}
		dst := filepath.Join(dir, files[i].name)
		if !files[i].replace {
			if _, err := os.Lstat(dst); err == nil {
				cleanup()
				return fmt.Errorf("%s exists already", dst)
			}
		}
		if err := os.Rename(f.Name(), dst); err != nil {
			cleanup()
			return err
		}
		tmps[i] = nil
	}
	return syncDir(dir)
}

// appendSynced appends data to a file (made if missing) and syncs it.
func appendSynced(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir syncs a folder, so the names made in it survive a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
