package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/logbook/logbook/archive"
)

// archiveStore is the Store of an archive's pushed conversations.
type archiveStore struct {
	pushed  *archive.Pushed
	changed func(sessionID string)
}

// Archive is the Store that keeps pushes in an archive (archive.Pushed): each
// batch is written, synced and imported before the receiver answers. changed,
// when set, is told the session a push changed, once its import has committed
// (the app brings its search index and views level then).
func Archive(p *archive.Pushed, changed func(sessionID string)) Store {
	return &archiveStore{pushed: p, changed: changed}
}

func (s *archiveStore) Events(ctx context.Context, key archive.PushKey, conversation string, events []json.RawMessage) error {
	res, err := s.pushed.Events(ctx, key, conversation, events)
	return s.after(res, err)
}

func (s *archiveStore) Conversation(ctx context.Context, key archive.PushKey, info json.RawMessage) error {
	res, err := s.pushed.Conversation(ctx, key, info)
	return s.after(res, err)
}

// after sorts a push's error for the receiver and tells of a change.
func (s *archiveStore) after(res archive.PushResult, err error) error {
	if errors.Is(err, archive.ErrBadConversationID) || errors.Is(err, archive.ErrNotObject) {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if errors.Is(err, archive.ErrOtherKey) {
		return fmt.Errorf("%w: %v", ErrUnauthorized, err)
	}
	if err == nil && res.Imported && res.Report.Changed && res.SessionID != "" && s.changed != nil {
		s.changed(res.SessionID)
	}
	return err
}
