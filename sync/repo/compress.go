package repo

import (
	"fmt"
	gosync "sync"

	"github.com/klauspost/compress/zstd"

	"github.com/logbook/logbook/sync/crypt"
)

// Pieces are compressed before they are encrypted: age(zstd(bytes)).
// Session logs are JSON text and shrink 4–10×, so compressing is what
// keeps a first sync over a slow link short. (Compressing after encryption
// gains nothing: ciphertext does not compress.) The piece's name and its
// entry's hash stay those of the plaintext, so dedupe across machines and
// the integrity checks do not depend on the compressor's output, which may
// differ between versions of it.

var (
	codecOnce gosync.Once
	zenc      *zstd.Encoder
	zdec      *zstd.Decoder
)

func codecs() (*zstd.Encoder, *zstd.Decoder) {
	codecOnce.Do(func() {
		// EncodeAll and DecodeAll are safe for concurrent use; one codec
		// serves every goroutine of a Push or Pull.
		zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
		zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxObject))
	})
	return zenc, zdec
}

// compressPiece is the plaintext that is sealed for a piece.
func compressPiece(b []byte) []byte {
	enc, _ := codecs()
	return enc.EncodeAll(b, make([]byte, 0, len(b)/3+64))
}

// decompressPiece undoes compressPiece for a piece of want bytes and
// checks the result's length and hash: a piece that does not decompress to
// exactly what its entry lists is corrupt.
func decompressPiece(name string, z []byte, want int64, hash crypt.Hash) ([]byte, error) {
	_, dec := codecs()
	if want > maxObject {
		return nil, fmt.Errorf("%s: %w: piece of %d bytes listed", name, crypt.ErrCorrupt, want)
	}
	// The frame header states the content size; DecodeAll refuses more
	// than the capacity given via WithDecoderMaxMemory, and a frame that
	// decodes to another length is caught below.
	pt, err := dec.DecodeAll(z, make([]byte, 0, want))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: zstd: %v", name, crypt.ErrCorrupt, err)
	}
	if int64(len(pt)) != want {
		return nil, fmt.Errorf("%s: %w: piece length %d, want %d", name, crypt.ErrCorrupt, len(pt), want)
	}
	if got := crypt.Sum(pt); got != hash {
		return nil, fmt.Errorf("%s: %w: plaintext hash %s, want %s", name, crypt.ErrCorrupt, got.String()[:12], hash.String()[:12])
	}
	return pt, nil
}
