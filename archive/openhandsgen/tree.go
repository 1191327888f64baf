package openhandsgen

import "github.com/logbook/logbook/archive/openhands"

// Layouts lists every layout Generate writes.
var Layouts = []openhands.Layout{
	openhands.LayoutSDK, openhands.LayoutCLITrajectory, openhands.LayoutAppA, openhands.LayoutAppB,
	openhands.LayoutJSONL, openhands.LayoutZip, openhands.LayoutV0Session, openhands.LayoutV0Trajectory,
}

// Tree writes n clean conversations under one root, cycling through every
// layout with seeds seed, seed+1, ..., as a home folder with several
// OpenHands versions installed would hold them. Every third one uses the
// legacy shapes and every fourth confirmation mode.
func Tree(root string, seed uint64, n int) ([]Facts, error) {
	out := make([]Facts, 0, n)
	for i := range n {
		f, err := Generate(root, Options{
			Seed:         seed + uint64(i),
			Layout:       Layouts[i%len(Layouts)],
			Turns:        1 + i%4,
			Legacy:       i%3 == 0,
			Wrapped:      i%3 == 0,
			Confirmation: i%4 == 0,
		})
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
