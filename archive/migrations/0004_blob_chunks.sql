-- Kept bytes in chunks. A file_blobs row held all of a file's kept bytes (a corrupt
-- or unsupported file, a dropped tail) as one zstd BLOB, so keeping a large damaged
-- file needed its whole size in memory, once to compress it and again to insert it.
-- They now go in pieces of a few MiB: each chunk is one zstd frame of up to 4 MiB of
-- the original bytes, and the chunks in seq order, concatenated, are one zstd stream
-- of all of them. A file_blobs row written before this migration has chunks = 0 and
-- keeps its bytes in its own data column, which new rows leave empty. (A rowid
-- table: rows of MiBs are what WITHOUT ROWID is not for.)
ALTER TABLE file_blobs ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0;

CREATE TABLE file_blob_chunks (
    file_id    INTEGER NOT NULL,
    generation INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    seq        INTEGER NOT NULL,            -- 0, 1, 2, … in the order of the bytes
    data       BLOB NOT NULL,               -- one zstd frame
    PRIMARY KEY (file_id, generation, kind, seq),
    FOREIGN KEY (file_id, generation, kind) REFERENCES file_blobs (file_id, generation, kind) ON DELETE CASCADE
);
