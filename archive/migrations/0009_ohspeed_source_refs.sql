-- Each kept byte once. An OpenHands event file written as one line of compact
-- JSON (the EventLog's own form) is byte for byte its event's record in the
-- blocks; its source_files row now keeps the bytes there only: line is the
-- record's line in the session's blocks, and data is empty. Its hash still
-- names the bytes, and a reader checks them against it. Rows with line NULL
-- (every row written before this migration, and every file that is not one
-- record's bytes: side files, pretty-printed events, JSONL and zip files) keep
-- their bytes in data, as before. A row whose record is about to be superseded
-- (its source rewritten) gets its bytes back in data first.
ALTER TABLE source_files ADD COLUMN line INTEGER;

-- hash_state: the SHA-256 state after the bytes kept (crypto/sha256's
-- MarshalBinary), so that a file that grows (a JSONL log) is hashed on from
-- where it stood; NULL for rows written before this migration.
ALTER TABLE source_files ADD COLUMN hash_state BLOB;

-- source_file_parts: bytes appended to a kept file since its row was written,
-- one zstd frame a growth, in order; the file is the row's data followed by its
-- parts. A growth costs its own bytes, never a repack of the whole file.
CREATE TABLE source_file_parts (
    session_pk INTEGER NOT NULL,
    name       TEXT NOT NULL,
    generation INTEGER NOT NULL,
    part       INTEGER NOT NULL,            -- 1, 2, … in the order of the bytes
    data       BLOB NOT NULL,               -- one zstd frame
    PRIMARY KEY (session_pk, name, generation, part),
    FOREIGN KEY (session_pk, name, generation) REFERENCES source_files (session_pk, name, generation) ON DELETE CASCADE
) WITHOUT ROWID;
