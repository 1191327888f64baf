-- The archive's first schema. SQLite is the source of truth: records keep every
-- storage line exactly as written; every other table is derived from them and can be
-- rebuilt.

-- files: one row per session log file seen on disk, with the cursor and identity that
-- make re-imports incremental.
CREATE TABLE files (
    id             INTEGER PRIMARY KEY,
    path           TEXT NOT NULL UNIQUE,
    format         TEXT NOT NULL,            -- 'dsh-v0'
    compressed     INTEGER NOT NULL,         -- 1 for .jsonl.zstd
    session_pk     INTEGER REFERENCES sessions(pk) ON DELETE SET NULL,
    size           INTEGER NOT NULL,
    mtime_ns       INTEGER NOT NULL,
    inode          INTEGER NOT NULL,
    head_hash      BLOB,                     -- sha256 of the first bytes (header / frame 0)
    tail_hash      BLOB,                     -- sha256 of the bytes just before the cursor
    cursor         TEXT,                     -- JSON dsh.Cursor where the next import resumes
    verdict        TEXT NOT NULL,
    error_kind     TEXT,
    error_line     INTEGER,
    error_offset   INTEGER,
    error_message  TEXT,
    records        INTEGER NOT NULL DEFAULT 0,
    events         INTEGER NOT NULL DEFAULT 0,
    last_seq       INTEGER NOT NULL DEFAULT -1,
    generation     INTEGER NOT NULL DEFAULT 1, -- bumped when the file was rewritten
    gone           INTEGER NOT NULL DEFAULT 0, -- 1 once the file disappeared upstream
    first_seen     INTEGER NOT NULL,
    last_import    INTEGER NOT NULL
);

-- file_blobs: original bytes that could not be imported as records (a corrupt file,
-- a dropped tail, an unsupported version), kept so nothing is ever lost.
CREATE TABLE file_blobs (
    file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    generation INTEGER NOT NULL,
    kind       TEXT NOT NULL,                -- 'original' | 'tail'
    offset     INTEGER NOT NULL,             -- physical offset the bytes start at
    size       INTEGER NOT NULL,
    data       BLOB NOT NULL,                -- zstd-compressed bytes
    created_at INTEGER NOT NULL,
    PRIMARY KEY (file_id, generation, kind)
);

CREATE TABLE sessions (
    pk               INTEGER PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,
    agent            TEXT NOT NULL,          -- 'dsh'
    header_raw       TEXT NOT NULL,          -- the header line exactly as written
    version          INTEGER NOT NULL,
    created_at       INTEGER NOT NULL,       -- epoch ms
    cwd              TEXT,
    project          TEXT NOT NULL,          -- cwd, or '' when absent
    parent_session   TEXT,
    seed_length      INTEGER,                -- NULL when not seeded
    origin           TEXT,
    delegation_depth INTEGER NOT NULL,
    agent_preset     TEXT,
    title            TEXT,
    title_source     TEXT,
    models           TEXT NOT NULL DEFAULT '[]', -- JSON array of "provider/model"
    first_time       INTEGER,
    last_time        INTEGER,
    record_count     INTEGER NOT NULL DEFAULT 0,
    event_count      INTEGER NOT NULL DEFAULT 0,
    turn_count       INTEGER NOT NULL DEFAULT 0,
    message_count    INTEGER NOT NULL DEFAULT 0,
    tool_call_count  INTEGER NOT NULL DEFAULT 0,
    input_tokens     INTEGER NOT NULL DEFAULT 0,
    output_tokens    INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    cached_tokens    INTEGER NOT NULL DEFAULT 0,
    health           TEXT NOT NULL,          -- ok | recovered | corrupt | gone
    last_end_seed    INTEGER,                -- seq of the last session/end-seed
    policy           TEXT,                   -- approval policy in force at the end
    sandbox_mode     TEXT,
    permission_preset TEXT,
    state            TEXT,                   -- JSON fold state carried across appends
    revision         INTEGER NOT NULL DEFAULT 0, -- bumped by every import that changes the session
    updated_at       INTEGER NOT NULL
);
CREATE INDEX sessions_project ON sessions(project, last_time);

-- blocks: every storage line after the header, byte for byte. Consecutive lines are
-- stored together, each followed by '\n', zstd-compressed: one row per ~256 KiB of log
-- instead of one per line keeps imports fast and the archive smaller than the logs.
CREATE TABLE blocks (
    session_pk INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    first_line INTEGER NOT NULL,            -- logical line number of the first line (header = 1)
    last_line  INTEGER NOT NULL,
    first_seq  INTEGER NOT NULL,
    last_seq   INTEGER NOT NULL,
    raw_size   INTEGER NOT NULL,            -- uncompressed bytes
    data       BLOB NOT NULL
);
CREATE UNIQUE INDEX blocks_lines ON blocks(session_pk, first_line);

-- events: one row per logical event, except assistant/chunk stream deltas (packed or
-- loose): those are log-only token deltas dsh never renders, so they live in blocks
-- only (a real log holds ~16 chunk members per line and most of its lines are chunks).
CREATE TABLE events (
    session_pk  INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    line        INTEGER NOT NULL,
    type        TEXT NOT NULL,
    time        INTEGER NOT NULL,
    turn        INTEGER,
    step        INTEGER,
    surface     TEXT NOT NULL,              -- current | shadowed | log-only
    shadowed_by INTEGER,                    -- seq of the event that replaced it
    source_seqs TEXT,                       -- expanded sourceEventSeqs (JSON); the raw form is in the line
    PRIMARY KEY (session_pk, seq)
) WITHOUT ROWID;

-- superseded_blocks: blocks replaced when a file was rewritten upstream, so a rewrite
-- never loses what was archived before.
CREATE TABLE superseded_blocks (
    session_pk    INTEGER NOT NULL,
    first_line    INTEGER NOT NULL,
    last_line     INTEGER NOT NULL,
    raw_size      INTEGER NOT NULL,
    data          BLOB NOT NULL,
    superseded_at INTEGER NOT NULL
);
CREATE INDEX superseded_session ON superseded_blocks(session_pk);

CREATE TABLE messages (
    session_pk   INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    time         INTEGER NOT NULL,
    turn         INTEGER,
    step         INTEGER,
    role         TEXT NOT NULL,             -- user | assistant | tool
    kind         TEXT NOT NULL,             -- human | injected | assistant | tool_result
    source_kind  TEXT,
    plugin       TEXT,
    message_id   TEXT,
    call_id      TEXT,                      -- tool results: the call they answer
    text         TEXT NOT NULL,
    reasoning    TEXT NOT NULL DEFAULT '',
    provider     TEXT,
    model        TEXT,
    interrupted  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_pk, seq)
) WITHOUT ROWID;

CREATE TABLE tool_calls (
    session_pk  INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    call_id     TEXT NOT NULL,
    name        TEXT NOT NULL,
    arguments   TEXT NOT NULL,
    turn        INTEGER,
    step        INTEGER,
    call_seq    INTEGER NOT NULL,
    call_time   INTEGER NOT NULL,
    result_seq  INTEGER,
    result_time INTEGER,
    output      TEXT,
    is_error    INTEGER NOT NULL DEFAULT 0,
    error_name  TEXT,
    error_code  TEXT,
    PRIMARY KEY (session_pk, call_id)
) WITHOUT ROWID;

CREATE TABLE approvals (
    session_pk   INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    approval_id  TEXT NOT NULL,
    tool_name    TEXT,
    call_id      TEXT,
    reason       TEXT,
    turn         INTEGER,
    asked_seq    INTEGER,
    asked_at     INTEGER,
    decided_seq  INTEGER,
    decided_at   INTEGER,
    outcome      TEXT,
    policy       TEXT,
    sandbox_mode TEXT,
    permission_preset TEXT,
    PRIMARY KEY (session_pk, approval_id)
) WITHOUT ROWID;

CREATE TABLE compactions (
    session_pk     INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    compaction_id  TEXT NOT NULL,
    kind           TEXT NOT NULL,           -- compaction | prune
    turn           INTEGER,
    start_seq      INTEGER,
    started_at     INTEGER,
    summary_seq    INTEGER,
    replace_seq    INTEGER,
    end_seq        INTEGER,
    ended_at       INTEGER,
    summary        TEXT,
    shadowed_start INTEGER,
    shadowed_end   INTEGER,
    shadowed_seqs  TEXT NOT NULL DEFAULT '[]',
    shadowed_tokens INTEGER,
    provider       TEXT,
    model          TEXT,
    error          TEXT,
    status         TEXT NOT NULL,           -- open | ok | failed
    PRIMARY KEY (session_pk, compaction_id)
) WITHOUT ROWID;

-- schedule_changes: the schedule/change lines of each session, kept beside the blocks
-- so that re-folding schedules after an append never decompresses the session.
CREATE TABLE schedule_changes (
    session_pk INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    line       INTEGER NOT NULL,
    raw        TEXT NOT NULL,
    PRIMARY KEY (session_pk, seq)
) WITHOUT ROWID;

-- schedules: the folded schedule/change state of each session (own events only).
CREATE TABLE schedules (
    session_pk     INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    schedule_id    TEXT NOT NULL,
    kind           TEXT NOT NULL,
    prompt         TEXT NOT NULL,
    after_seconds  INTEGER,
    every_seconds  INTEGER,
    scheduled_at   INTEGER NOT NULL,        -- epoch ms of the current target
    status         TEXT NOT NULL,           -- active | deleted | completed
    created_seq    INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    ended_seq      INTEGER,
    dispatch_count INTEGER NOT NULL DEFAULT 0,
    last_accepted_at INTEGER,
    PRIMARY KEY (session_pk, schedule_id)
) WITHOUT ROWID;

-- problems: errors and warnings found in a file, replaced on every import of it.
CREATE TABLE problems (
    file_id  INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    severity TEXT NOT NULL,                 -- error | warning
    kind     TEXT NOT NULL,
    line     INTEGER,
    offset   INTEGER,
    seq      INTEGER,
    message  TEXT NOT NULL
);
CREATE INDEX problems_file ON problems(file_id);
