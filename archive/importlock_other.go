//go:build !unix

package archive

import (
	"os"
	"sync"
)

// Without flock, imports are serialised within this process only.
var importMu sync.Mutex

func tryLock(*os.File) (bool, error) { return importMu.TryLock(), nil }

func unlock(*os.File) { importMu.Unlock() }
