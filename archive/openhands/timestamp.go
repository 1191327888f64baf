package openhands

import "time"

// timeLayouts are the timestamp forms OpenHands writes: naive local time
// from datetime.isoformat() (the fraction left out when it is zero), and
// UTC or offset times in meta.json and V0 metadata.
var timeLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
}

// ParseTime parses an OpenHands timestamp. A naive timestamp has no zone
// and is returned in loc: the writer's local time, which the caller knows
// (a setting for CLI data, UTC for agent-server and app data; doc §5).
func ParseTime(s string, loc *time.Location) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
