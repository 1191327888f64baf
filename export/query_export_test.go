package export

// QuerySessionsPages is QuerySessions reading at most pages pages of hits
// before it asks session by session.
var QuerySessionsPages = querySessions
