// Package app will be the thin layer that the user interface and the HTTP
// server call: one bound App type whose exported methods validate input, call
// the archive, index and sync packages, and return JSON-tagged DTOs, plus the
// single error formatter that turns domain errors into user messages.
//
// It holds wiring, not business rules, and nothing imports it except main.
// Reserved: no code lives here yet.
package app
