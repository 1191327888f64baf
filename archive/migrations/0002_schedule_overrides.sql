-- Logbook-side state of scheduled prompts. dsh fires a reminder only while its own
-- session is live; Logbook re-arms them from the archive, and what it decides and
-- does is kept here. The session logs (and the tables derived from them, which an
-- import may rebuild at any time) are never touched: these rows are keyed by the
-- session and the schedule id, which dsh never reuses within a session.

-- schedule_overrides: what the user decided about a schedule in Logbook.
CREATE TABLE schedule_overrides (
    session_pk    INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    schedule_id   TEXT NOT NULL,
    state         TEXT CHECK (state IN ('paused', 'dismissed')), -- NULL: armed as the fold says
    snoozed_until INTEGER,                  -- epoch ms: fire no earlier than this; NULL: not snoozed
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (session_pk, schedule_id)
) WITHOUT ROWID;

-- schedule_fires: every time Logbook fired a schedule, skipped it or asked about it.
CREATE TABLE schedule_fires (
    id           INTEGER PRIMARY KEY,
    session_pk   INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    schedule_id  TEXT NOT NULL,
    fired_at     INTEGER NOT NULL,          -- epoch ms when the action finished (or was skipped/asked)
    target_at    INTEGER NOT NULL,          -- epoch ms of the instant this fire was for
    trigger_kind TEXT NOT NULL CHECK (trigger_kind IN ('scheduled', 'catch-up', 'manual')),
    action       TEXT NOT NULL,             -- notify | command | webhook | none
    outcome      TEXT NOT NULL CHECK (outcome IN ('ok', 'failed', 'skipped', 'asked')),
    error        TEXT,
    attempt      INTEGER NOT NULL DEFAULT 1, -- attempts made (1 + retries used)
    -- settles: 1 when this fire disposes of target_at, so the scheduler never fires
    -- that target again (a one-shot is then done, an every moves on); 0 for a
    -- question still waiting for the user, or an extra early fire of an every.
    settles      INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX schedule_fires_schedule ON schedule_fires(session_pk, schedule_id, id);
