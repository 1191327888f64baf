package redact

// SecretOf exposes a finding's secret to tests, which must check that previews never
// show it.
func SecretOf(f Finding) string { return f.secret }
