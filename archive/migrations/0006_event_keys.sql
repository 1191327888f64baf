-- Event keys for the OpenHands-compatible events API (archive/ohevents.go): it
-- filters a conversation's events by kind and time, sorts them by time and gets
-- them by id, in SQLite on indexes, never by decoding the archived JSON.
--
-- event_id: the event's own id as written (OpenHands: a UUID, any string allowed).
-- pos: the event's place in time order, "<time key> <seq in 12 digits>": the time
--     as a fixed-width UTC key ("2006-01-02T15:04:05.000000000", format.TimeKey;
--     empty when the event has none), then the seq that orders events of the same
--     time. NULL means the event is not one the API serves (every dsh event), and
--     keeps the row out of the partial indexes below, so dsh imports do not pay
--     for them.
-- file: the source_files name whose bytes are exactly the event (an OpenHands
--     event file), NULL when the record in the blocks is the event's bytes (a
--     JSONL line).
--
-- Rows archived before this migration have pos NULL: the API fills them the
-- first time it is asked for their conversation (EventLog.backfill), from the
-- blocks and the kept files, not here (their bytes are zstd frames SQL cannot
-- read).
ALTER TABLE events ADD COLUMN event_id TEXT;
ALTER TABLE events ADD COLUMN pos TEXT;
ALTER TABLE events ADD COLUMN file TEXT;

CREATE INDEX events_api_id ON events(session_pk, event_id) WHERE pos IS NOT NULL;
CREATE INDEX events_api_ts ON events(session_pk, pos) WHERE pos IS NOT NULL;
CREATE INDEX events_api_kind ON events(session_pk, type, pos) WHERE pos IS NOT NULL;
