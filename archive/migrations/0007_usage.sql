-- usage: the token usage each event reported (a dsh assistant/message's usage, the
-- increase of an OpenHands conversation's cumulative metrics), so usage can be
-- shown per turn and per day and not only as the session's totals. Rows exist for
-- sessions imported (or re-imported) since this migration; sessions.input_tokens
-- and the like keep the totals of every session.
CREATE TABLE usage (
    session_pk INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    time       INTEGER NOT NULL,               -- epoch ms of the event
    turn       INTEGER,
    input      INTEGER NOT NULL,
    output     INTEGER NOT NULL,
    reasoning  INTEGER NOT NULL,
    cache_read INTEGER NOT NULL,
    PRIMARY KEY (session_pk, seq)
) WITHOUT ROWID;
CREATE INDEX usage_time ON usage(time);
