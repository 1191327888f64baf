package archivesync

import arcsync "github.com/logbook/logbook/sync"

func isNotExist(err error) bool { return arcsync.IsNotExist(err) }
