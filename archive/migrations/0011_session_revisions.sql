-- Every session's revision, which the search index reads whole each time it
-- brings itself level with the archive (Store.Revisions: before each search from
-- the command line, after each import) and Store.ChangeStamp sums, is read from
-- this index alone instead of from the wide session rows: 10,000 sessions read
-- cold in 17-21 ms instead of 65-70.
CREATE INDEX sessions_revision ON sessions(id, revision);
