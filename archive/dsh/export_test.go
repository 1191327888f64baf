package dsh

import (
	"fmt"
	"reflect"
)

// DecodeBothWays decodes one storage line with the packed-row fast path and with the
// general path, so tests can hold the two to the same results. fast is nil when the
// fast path declined the line.
func DecodeBothWays(line []byte, lineNo int64) (fast, general *Record, p *Problem) {
	var fd, gd recordDecoder
	fast = fd.decodePackedFast(line, lineNo)
	general, p = gd.decodeGeneral(line, lineNo, -1)
	return fast, general, p
}

// ScanMatchesJSON reads data as assistant/message and as tool/result data with the
// Checker's scanner and with encoding/json. For each shape the scanner accepts, it
// returns a description of any difference from encoding/json's reading ("" if none).
func ScanMatchesJSON(data []byte) (scanned int, diff string) {
	var a, aj assistantMessageData
	if scanAssistantMessage(data, &a) {
		scanned++
		if !decode(data, &aj) || !reflect.DeepEqual(a, aj) {
			return scanned, fmt.Sprintf("assistant/message: scanned %+v, encoding/json %+v", a, aj)
		}
	}
	var t, tj toolResultData
	if scanToolResult(data, &t) {
		scanned++
		if !decode(data, &tj) || !reflect.DeepEqual(t, tj) {
			return scanned, fmt.Sprintf("tool/result: scanned %+v, encoding/json %+v", t, tj)
		}
	}
	return scanned, ""
}
