package memremote_test

import (
	"testing"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/memremote"
	"github.com/logbook/logbook/sync/remotetest"
)

func TestConformance(t *testing.T) {
	remotetest.Run(t, func(t *testing.T) arcsync.Remote { return memremote.New() })
}
