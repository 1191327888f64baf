// Package crypt is the encryption and content-addressing layer of sync:
// one age X25519 identity per archive (shared by all its machines), pieces
// encrypted and authenticated with age, and object names derived from the
// plaintext hash with a keyed HMAC, so names are deterministic (the same
// piece uploaded twice is one object) yet reveal nothing about content.
//
// Key handling: Init creates the key file (0600) on the first machine.
// Export wraps the identity with a passphrase (age scrypt); another machine
// runs Import with that passphrase. The unwrapped key never leaves a
// machine.
package crypt

import (
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"
)

// ErrWrongKey means an object was encrypted for a different archive key:
// this machine holds the key of another archive, or was never joined.
var ErrWrongKey = errors.New("crypt: object was encrypted with a different key; join this machine with the passphrase export from the first one")

// ErrCorrupt means an object failed authentication or its plaintext does
// not match the hash it was stored under: damaged or tampered with.
var ErrCorrupt = errors.New("crypt: object is corrupt or was tampered with")

// ErrWrongPassphrase means a passphrase export could not be opened.
var ErrWrongPassphrase = errors.New("crypt: wrong passphrase")

// Hash is the SHA-256 of a piece's plaintext.
type Hash [sha256.Size]byte

// Sum hashes b.
func Sum(b []byte) Hash { return sha256.Sum256(b) }

// String is the lowercase hex form used in manifests.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// MarshalText encodes h as hex.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText decodes hex.
func (h *Hash) UnmarshalText(b []byte) error {
	if hex.DecodedLen(len(b)) != len(h) {
		return fmt.Errorf("crypt: hash %q: want %d hex digits", b, 2*len(h))
	}
	_, err := hex.Decode(h[:], b)
	return err
}

// Key is an archive's secret: an age X25519 identity plus the HMAC key for
// object names derived from it.
type Key struct {
	id      *age.X25519Identity
	nameKey []byte
}

// Generate makes a new random Key.
func Generate() (*Key, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, fmt.Errorf("crypt: generate key: %w", err)
	}
	return newKey(id)
}

func newKey(id *age.X25519Identity) (*Key, error) {
	// HKDF separates the naming key from the encryption key: knowing
	// object names and the public recipient gives nothing about either.
	nk, err := hkdf.Key(sha256.New, []byte(id.String()), nil, "logbook sync object names v1", 32)
	if err != nil {
		return nil, fmt.Errorf("crypt: derive name key: %w", err)
	}
	return &Key{id: id, nameKey: nk}, nil
}

// ParseKey reads a key in age identity-file form (comments allowed).
func ParseKey(r io.Reader) (*Key, error) {
	ids, err := age.ParseIdentities(r)
	if err != nil {
		return nil, fmt.Errorf("crypt: parse key: %w", err)
	}
	for _, id := range ids {
		if x, ok := id.(*age.X25519Identity); ok {
			return newKey(x)
		}
	}
	return nil, errors.New("crypt: parse key: no X25519 identity")
}

// Marshal returns the key in age identity-file form, readable by age-keygen
// tooling. It is the secret: write it only to a 0600 file.
func (k *Key) Marshal() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Logbook sync key. Keep it secret; it decrypts the whole archive.\n")
	fmt.Fprintf(&b, "# public key: %s\n", k.id.Recipient())
	fmt.Fprintf(&b, "%s\n", k.id)
	return b.Bytes()
}

// Recipient is the public half, safe to show.
func (k *Key) Recipient() string { return k.id.Recipient().String() }

// Fingerprint is a short, public identifier of the key, for telling two
// machines' keys apart in messages. It is keyed, so it reveals nothing.
func (k *Key) Fingerprint() string { return k.Tag("fingerprint", "")[:16] }

// Name is the object name of a piece with plaintext hash h:
// HMAC-SHA256(nameKey, h) in hex. Deterministic, so equal pieces dedupe;
// keyed, so the remote cannot confirm guesses about content.
func (k *Key) Name(h Hash) string {
	m := hmac.New(sha256.New, k.nameKey)
	m.Write([]byte("piece\x00"))
	m.Write(h[:])
	return hex.EncodeToString(m.Sum(nil))
}

// Tag is a keyed, domain-separated 128-bit name for any other identifier
// (a machine id, say), in hex.
func (k *Key) Tag(domain, s string) string {
	m := hmac.New(sha256.New, k.nameKey)
	m.Write([]byte(domain))
	m.Write([]byte{0})
	m.Write([]byte(s))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// Encrypt seals plaintext to the key with age (ChaCha20-Poly1305 in 64 KiB
// authenticated chunks, a fresh file key per object).
func (k *Key) Encrypt(plaintext []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(plaintext) + 256 + len(plaintext)/4096)
	w, err := age.Encrypt(&b, k.id.Recipient())
	if err != nil {
		return nil, fmt.Errorf("crypt: encrypt: %w", err)
	}
	if _, err := w.Write(plaintext); err != nil {
		return nil, fmt.Errorf("crypt: encrypt: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("crypt: encrypt: %w", err)
	}
	return b.Bytes(), nil
}

// Decrypt opens ciphertext. A different key is ErrWrongKey; a failed
// authentication is ErrCorrupt. It never returns unauthenticated bytes.
func (k *Key) Decrypt(ciphertext []byte) ([]byte, error) {
	r, err := age.Decrypt(bytes.NewReader(ciphertext), k.id)
	if err != nil {
		return nil, classify(err)
	}
	// age authenticates each 64 KiB chunk before releasing it and the
	// last chunk is marked, so reading to EOF without error means the
	// whole object is authentic and untruncated.
	// The plaintext is slightly shorter than the ciphertext: one
	// allocation instead of io.ReadAll's doublings.
	pt := bytes.NewBuffer(make([]byte, 0, len(ciphertext)+bytes.MinRead))
	if _, err := pt.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return pt.Bytes(), nil
}

// DecryptVerify is Decrypt plus a check that the plaintext hashes to want,
// so a valid object stored under the wrong name is caught too.
func (k *Key) DecryptVerify(ciphertext []byte, want Hash) ([]byte, error) {
	pt, err := k.Decrypt(ciphertext)
	if err != nil {
		return nil, err
	}
	if got := Sum(pt); got != want {
		return nil, fmt.Errorf("%w: plaintext hash %s, want %s", ErrCorrupt, got.String()[:12], want.String()[:12])
	}
	return pt, nil
}

func classify(err error) error {
	var nm *age.NoIdentityMatchError
	if errors.As(err, &nm) {
		return fmt.Errorf("%w (%v)", ErrWrongKey, err)
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, err)
}

// DefaultWorkFactor is the scrypt cost (log2 N) of Export: about a second
// on a laptop, age's own default.
const DefaultWorkFactor = 18

// Export wraps the key with passphrase (age scrypt, ASCII armor) so it can
// travel to another machine, or sit on the remote, without being readable.
// logN 0 means DefaultWorkFactor; tests pass a small one.
func (k *Key) Export(passphrase string, logN int) ([]byte, error) {
	if passphrase == "" {
		return nil, errors.New("crypt: export: empty passphrase")
	}
	rcpt, err := age.NewScryptRecipient(passphrase)
	if err != nil {
		return nil, fmt.Errorf("crypt: export: %w", err)
	}
	if logN == 0 {
		logN = DefaultWorkFactor
	}
	rcpt.SetWorkFactor(logN)
	var b bytes.Buffer
	aw := armor.NewWriter(&b)
	w, err := age.Encrypt(aw, rcpt)
	if err != nil {
		return nil, fmt.Errorf("crypt: export: %w", err)
	}
	w.Write(k.Marshal())
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("crypt: export: %w", err)
	}
	if err := aw.Close(); err != nil {
		return nil, fmt.Errorf("crypt: export: %w", err)
	}
	return b.Bytes(), nil
}

// Import opens an Export with its passphrase.
func Import(exported []byte, passphrase string) (*Key, error) {
	id, err := age.NewScryptIdentity(passphrase)
	if err != nil {
		return nil, fmt.Errorf("crypt: import: %w", err)
	}
	var src io.Reader = bytes.NewReader(exported)
	if bytes.HasPrefix(bytes.TrimSpace(exported), []byte(armor.Header)) {
		src = armor.NewReader(bytes.NewReader(exported))
	}
	r, err := age.Decrypt(src, id)
	if err != nil {
		var nm *age.NoIdentityMatchError
		if errors.As(err, &nm) || strings.Contains(err.Error(), "passphrase") {
			return nil, ErrWrongPassphrase
		}
		return nil, fmt.Errorf("crypt: import: %w", err)
	}
	return ParseKey(r)
}
