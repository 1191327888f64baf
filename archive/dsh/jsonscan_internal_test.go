package dsh

import (
	"math/rand/v2"
	"testing"
)

// skipStringByByte is the plain byte-by-byte reading of a string literal that
// skipString must agree with.
func skipStringByByte(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

func TestSkipStringMatchesByteScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	alphabet := []byte(`ab"\\` + "\\\\\"")
	for range 20000 {
		b := make([]byte, 1+r.IntN(24))
		b[0] = '"'
		for k := 1; k < len(b); k++ {
			b[k] = alphabet[r.IntN(len(alphabet))]
		}
		if got, want := skipString(b, 0), skipStringByByte(b, 0); got != want {
			t.Fatalf("skipString(%q) = %d, want %d", b, got, want)
		}
	}
}
