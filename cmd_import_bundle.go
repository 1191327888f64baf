package main

// `logbook import FILE.logbook`: bundles named on the command line, or found
// under a folder it walks, are checked, unpacked into the data directory and
// imported from there. The logic is export/bundleimport.go, which the app's
// import calls too; these are the CLI's names for it.

import (
	"context"
	"io"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export"
)

// bundlesDir is the folder of the data directory bundles are unpacked into.
const bundlesDir = export.BundlesDir

// unpackBundles replaces every bundle among paths by the sources it holds,
// unpacked into the data directory (export.UnpackBundles).
func (e *env) unpackBundles(ctx context.Context, paths []string) ([]string, []*export.ImportedBundle, error) {
	return export.UnpackBundles(ctx, e.dataDir, paths)
}

// addBundleReports puts the reports of what bundles did not give into rep.
func addBundleReports(rep *archive.ImportReport, bundles []*export.ImportedBundle) {
	export.AddBundleReports(rep, bundles)
}

// reportBundles says what each bundle gave (export.ReportBundles).
func reportBundles(w io.Writer, bundles []*export.ImportedBundle, rep *archive.ImportReport) bool {
	return export.ReportBundles(w, bundles, rep)
}
