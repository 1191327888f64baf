package app

import (
	"context"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// This is the only file that imports the Wails runtime. Every runtime function
// ends the process (log.Fatalf) when handed a context Wails did not create, so the
// rest of the package reaches the window through the shell interface, attached only
// once isWailsContext has vouched for the context; tests attach a fake.

// shell is what the app needs from the desktop window.
type shell interface {
	// Emit sends a named event with one JSON-encodable payload to the page.
	Emit(name string, data any)
	// Quit closes the window and ends wails.Run.
	Quit()
	// Raise brings the window to the front (a second instance was started).
	Raise()
}

// wailsShell is the shell of the real Wails window.
type wailsShell struct{ ctx context.Context }

func (w wailsShell) Emit(name string, data any) { wruntime.EventsEmit(w.ctx, name, data) }
func (w wailsShell) Quit()                      { wruntime.Quit(w.ctx) }

func (w wailsShell) Raise() {
	wruntime.WindowUnminimise(w.ctx)
	wruntime.WindowShow(w.ctx)
}

// isWailsContext reports whether ctx is the one Wails hands to OnStartup: it
// carries the "frontend" and "events" values the runtime functions look up. The
// types are checked by method set, so a context that merely has those keys (the
// HTTP server's, a test's) is never mistaken for it.
func isWailsContext(ctx context.Context) bool {
	if ctx == nil {
		return false
	}
	_, fe := ctx.Value("frontend").(interface {
		Quit()
		WindowShow()
		WindowUnminimise()
	})
	_, ev := ctx.Value("events").(interface {
		Emit(eventName string, data ...interface{})
	})
	return fe && ev
}

// saver is the desktop window's save dialog (the Export dialog's "Save as…").
type saver interface {
	// SaveFile asks where to save a file named name; "" when the person cancels.
	SaveFile(name string) (string, error)
}

func (w wailsShell) SaveFile(name string) (string, error) {
	return wruntime.SaveFileDialog(w.ctx, wruntime.SaveDialogOptions{DefaultFilename: name, Title: "Export session"})
}

func (w wailsShell) OpenFile(title, patterns string) (string, error) {
	return wruntime.OpenFileDialog(w.ctx, wruntime.OpenDialogOptions{Title: title,
		Filters: []wruntime.FileFilter{{DisplayName: "Logbook bundles", Pattern: patterns}}})
}

// newWailsShell returns the shell for a context that isWailsContext accepted.
func newWailsShell(ctx context.Context) shell { return wailsShell{ctx: ctx} }
