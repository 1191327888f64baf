-- Sessions of more than one log format. sessions.format names the format that
-- reads the session (archive/format.go: "dsh", "openhands"); every session stored
-- before this migration is dsh's.
ALTER TABLE sessions ADD COLUMN format TEXT NOT NULL DEFAULT 'dsh';

-- source_files: the original bytes of each file of a session whose source is a
-- folder of files (an OpenHands conversation: one JSON file per event, often
-- pretty-printed, plus base_state.json and the like). The blocks keep each event as
-- one line for the projection and search; these rows keep the files themselves,
-- byte for byte, so an export gives back the folder as it was. A file rewritten
-- upstream keeps its earlier bytes: the old row is marked superseded and the new
-- bytes get the next generation.
CREATE TABLE source_files (
    session_pk    INTEGER NOT NULL REFERENCES sessions(pk) ON DELETE CASCADE,
    name          TEXT NOT NULL,            -- path inside the source, forward slashes
    generation    INTEGER NOT NULL,         -- 1, 2, … for each version of the file kept
    role          TEXT NOT NULL,            -- the format's word for what the file holds
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    hash          TEXT NOT NULL,            -- lowercase hex SHA-256 of the bytes
    data          BLOB NOT NULL,            -- the bytes, one zstd frame
    archived_at   INTEGER NOT NULL,         -- epoch ms
    superseded_at INTEGER,                  -- epoch ms once a newer version replaced it
    PRIMARY KEY (session_pk, name, generation)
) WITHOUT ROWID;
