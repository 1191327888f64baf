-- session_sync: where each session's bytes came from when sync runs
-- (sync/archivesync), and the versions of a session that diverged between
-- machines. Keyed by session id, not pk: it describes the id across machines.
-- machine is the sync machine id whose bytes the archive holds (this machine's
-- own id for sessions imported here). conflict is NULL, or a JSON array of the
-- diverging versions (archive.SyncVersion) kept until the user picks one.
CREATE TABLE session_sync (
    session_id TEXT PRIMARY KEY,
    machine    TEXT NOT NULL,
    conflict   TEXT
);
