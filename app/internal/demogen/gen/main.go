// Command gen writes the demo archive's logs into a directory (app/demodata,
// through its go:generate line): the manifest and the logs, compressed.
package main

import (
	"fmt"
	"os"

	"github.com/logbook/logbook/app/internal/demogen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen DIR")
		os.Exit(2)
	}
	if err := demogen.WriteEmbedded(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
