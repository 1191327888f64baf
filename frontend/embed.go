// Package frontend holds the UI bundle that the Logbook binary embeds and
// serves, both in the Wails desktop window and over HTTP in a browser.
//
// The bundle lives in dist/. Only dist/.gitkeep is committed, so the package
// compiles (and go vet / go test pass) without an npm build; `npm run build`
// fills dist/ before go build. A binary built without the bundle says so when it
// is asked for the UI (the window refuses to open; serve answers 503).
package frontend

import (
	"embed"
	"io/fs"
)

// embedded is the dist/ tree. The all: prefix keeps files whose names start
// with "." or "_" (bundlers emit some), and dist/.gitkeep guarantees the
// directory exists on a fresh clone, which //go:embed requires.
//
//go:embed all:dist
var embedded embed.FS

// Dist returns the UI bundle rooted at dist/, so "index.html" is at the top
// level, ready for http.FileServerFS or Wails' assetserver.Options.Assets.
func Dist() fs.FS {
	sub, err := fs.Sub(embedded, "dist")
	if err != nil {
		// fs.Sub fails only for an invalid path; "dist" is a constant.
		panic("frontend: " + err.Error())
	}
	return sub
}
