// Package secret seals small secrets (mailbox passwords and OAuth2 refresh
// tokens) at rest with AES-256-GCM under keys named by a key id, so keys can
// rotate: a Keyring seals with its active key and opens with any key it knows.
//
// A sealed value is the ASCII string
//
//	v1:<key id>:<base64url(nonce || ciphertext || tag)>
//
// with a random 96-bit nonce per seal (NIST SP 800-38D §8.2.2). The optional
// associated data binds a sealed value to its context (for example a
// workspace id), so it cannot be moved to another row and still open.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// KeySize is the length in bytes of an AES-256 key.
const KeySize = 32

const version = "v1"

// Errors returned by Open and the constructors.
var (
	// ErrUnknownKey means the sealed value names a key id the keyring lacks.
	ErrUnknownKey = errors.New("secret: unknown key id")
	// ErrMalformed means the sealed value is not in the v1 format.
	ErrMalformed = errors.New("secret: malformed sealed value")
	// ErrDecrypt means authentication failed: wrong key, wrong associated
	// data or a tampered value.
	ErrDecrypt = errors.New("secret: cannot decrypt sealed value")
)

// Keyring holds the known keys by id and the id of the active one. It is
// safe for concurrent use once built.
type Keyring struct {
	active string
	aeads  map[string]cipher.AEAD
}

// NewKeyring builds a Keyring from keys (id -> 32-byte key) and the id of
// the key used to seal. Key ids must be non-empty and must not contain ':'.
func NewKeyring(keys map[string][]byte, active string) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("secret: no keys configured")
	}
	k := &Keyring{active: active, aeads: make(map[string]cipher.AEAD, len(keys))}
	for id, key := range keys {
		if id == "" || strings.ContainsAny(id, ":, \t\n") {
			return nil, fmt.Errorf("secret: invalid key id %q", id)
		}
		if len(key) != KeySize {
			return nil, fmt.Errorf("secret: key %q is %d bytes, want %d", id, len(key), KeySize)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, fmt.Errorf("secret: key %q: %w", id, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("secret: key %q: %w", id, err)
		}
		k.aeads[id] = aead
	}
	if _, ok := k.aeads[active]; !ok {
		return nil, fmt.Errorf("secret: active key id %q is not among the keys", active)
	}
	return k, nil
}

// ParseKeys parses a key list of the form "id1:KEY1,id2:KEY2", where each
// KEY is 32 bytes written as 64 hex digits or as standard or URL-safe
// base64 (padded or not). Whitespace around entries is ignored. It returns
// the keys by id and the first id, which callers use as the active key
// unless configured otherwise.
func ParseKeys(spec string) (map[string][]byte, string, error) {
	keys := map[string][]byte{}
	first := ""
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		id, enc, ok := strings.Cut(entry, ":")
		if !ok || id == "" {
			return nil, "", fmt.Errorf("secret: key entry %q: want id:key", redact(entry))
		}
		if _, dup := keys[id]; dup {
			return nil, "", fmt.Errorf("secret: key id %q given twice", id)
		}
		key, err := decodeKey(enc)
		if err != nil {
			return nil, "", fmt.Errorf("secret: key %q: %w", id, err)
		}
		keys[id] = key
		if first == "" {
			first = id
		}
	}
	if len(keys) == 0 {
		return nil, "", errors.New("secret: empty key list")
	}
	return keys, first, nil
}

// ParseKeyring is ParseKeys followed by NewKeyring; an empty active id
// selects the first key of spec.
func ParseKeyring(spec, active string) (*Keyring, error) {
	keys, first, err := ParseKeys(spec)
	if err != nil {
		return nil, err
	}
	if active == "" {
		active = first
	}
	return NewKeyring(keys, active)
}

func redact(entry string) string {
	id, _, _ := strings.Cut(entry, ":")
	return id + ":…"
}

func decodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeySize {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) != KeySize {
				return nil, fmt.Errorf("decoded to %d bytes, want %d", len(b), KeySize)
			}
			return b, nil
		}
	}
	return nil, errors.New("not 64 hex digits or base64 of 32 bytes")
}

// ActiveKeyID returns the id of the key Seal uses.
func (k *Keyring) ActiveKeyID() string { return k.active }

// KeyIDs returns the known key ids, sorted.
func (k *Keyring) KeyIDs() []string {
	ids := make([]string, 0, len(k.aeads))
	for id := range k.aeads {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Seal encrypts plaintext under the active key, binding ad (which may be
// nil) as associated data, and returns the v1 string form.
func (k *Keyring) Seal(plaintext, ad []byte) (string, error) {
	aead := k.aeads[k.active]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("secret: nonce: %w", err)
	}
	out := aead.Seal(nonce, nonce, plaintext, ad)
	return version + ":" + k.active + ":" + base64.RawURLEncoding.EncodeToString(out), nil
}

// Open decrypts a value produced by Seal with any known key, checking ad.
// It returns ErrMalformed, ErrUnknownKey or ErrDecrypt on failure.
func (k *Keyring) Open(sealed string, ad []byte) ([]byte, error) {
	id, aead, data, err := k.parse(sealed)
	if err != nil {
		return nil, err
	}
	ns := aead.NonceSize()
	if len(data) < ns+aead.Overhead() {
		return nil, ErrMalformed
	}
	pt, err := aead.Open(nil, data[:ns], data[ns:], ad)
	if err != nil {
		return nil, fmt.Errorf("%w (key %q)", ErrDecrypt, id)
	}
	return pt, nil
}

// KeyID returns the key id a sealed value was sealed with, without
// decrypting it; callers use it to find values to re-seal after rotation.
func KeyID(sealed string) (string, error) {
	parts := strings.SplitN(sealed, ":", 3)
	if len(parts) != 3 || parts[0] != version || parts[1] == "" {
		return "", ErrMalformed
	}
	return parts[1], nil
}

// NeedsReseal reports whether sealed was sealed with a key other than the
// active one.
func (k *Keyring) NeedsReseal(sealed string) bool {
	id, err := KeyID(sealed)
	return err != nil || id != k.active
}

func (k *Keyring) parse(sealed string) (string, cipher.AEAD, []byte, error) {
	id, err := KeyID(sealed)
	if err != nil {
		return "", nil, nil, err
	}
	aead, ok := k.aeads[id]
	if !ok {
		return "", nil, nil, fmt.Errorf("%w %q", ErrUnknownKey, id)
	}
	data, err := base64.RawURLEncoding.DecodeString(sealed[len(version)+1+len(id)+1:])
	if err != nil {
		return "", nil, nil, ErrMalformed
	}
	return id, aead, data, nil
}
