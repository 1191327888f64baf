-- What an import needs to tell a source that changed in place from one that grew,
-- and to keep serving the last good version of a session whose source was damaged
-- after it was archived.
--
-- ctime_ns: the file's status-change time at the last import. An edit that keeps
-- the size and restores the mtime still changes it. NULL (rows from before this
-- migration) means unknown: only size, mtime and inode are compared.
ALTER TABLE files ADD COLUMN ctime_ns INTEGER;
-- prefix_sums: CRC-32C of each 1 MiB of the file's committed prefix (bytes before
-- the cursor), 4 bytes each, big-endian, the last one over a partial MiB. When a
-- file's stat changes, the prefix is checked against them before the file is taken
-- as grown (or untouched): a same-length edit in the middle is never missed. NULL
-- on older rows: the first bytes and the 4 KiB before the cursor are compared then.
ALTER TABLE files ADD COLUMN prefix_sums BLOB;
-- upstream: NULL, or JSON describing a version of the source that the archive did
-- not take because it held less than the archived one (damaged lines, a shorter
-- log): {"state": "damaged"|"shrunk", "verdict", "error": {kind, line, offset,
-- message}, "events", "last_seq", "size", "detected_at"}. The archived version keeps
-- being served; the upstream bytes are kept in file_blobs (kind 'upstream').
ALTER TABLE files ADD COLUMN upstream TEXT;
