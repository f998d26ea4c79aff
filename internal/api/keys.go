package api

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

// API key format: "rbk_" followed by 32 random bytes in unpadded base64url
// (43 characters). Only the SHA-256 of the whole key is stored; the first
// keyPrefixLen characters are stored too, in the clear, so a key can be
// shown ("rbk_Ab3dE6gH…") and told apart without revealing it.
const (
	keyScheme    = "rbk_"
	keyRandBytes = 32
	keyPrefixLen = len(keyScheme) + 8
)

// newAPIKey returns a fresh key, its visible prefix and its SHA-256.
func newAPIKey() (key, prefix string, hash []byte, err error) {
	b := make([]byte, keyRandBytes)
	if _, err := rand.Read(b); err != nil {
		return "", "", nil, fmt.Errorf("api: generate key: %w", err)
	}
	key = keyScheme + base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(key))
	return key, key[:keyPrefixLen], sum[:], nil
}

// hashAPIKey returns the SHA-256 of a presented key, and false when the key
// is not of the API key format at all (so no lookup is needed).
func hashAPIKey(key string) ([]byte, bool) {
	if !strings.HasPrefix(key, keyScheme) || len(key) != len(keyScheme)+base64.RawURLEncoding.EncodedLen(keyRandBytes) {
		return nil, false
	}
	sum := sha256.Sum256([]byte(key))
	return sum[:], true
}

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header (RFC 6750 §2.1; the scheme is case-insensitive), or "".
func bearerToken(header string) string {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
