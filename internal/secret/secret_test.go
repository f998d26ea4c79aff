package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, KeySize) }

func TestSealOpenRoundTrip(t *testing.T) {
	k, err := NewKeyring(map[string][]byte{"k1": key(1)}, "k1")
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range [][]byte{nil, []byte("x"), []byte(strings.Repeat("password ", 100))} {
		s, err := k.Seal(pt, []byte("ws-1"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(s, "v1:k1:") {
			t.Fatalf("sealed %q lacks v1:k1: prefix", s)
		}
		if len(pt) > 8 && strings.Contains(s, string(pt)) {
			t.Fatal("plaintext visible in sealed value")
		}
		got, err := k.Open(s, []byte("ws-1"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, pt) {
			t.Fatalf("Open = %q, want %q", got, pt)
		}
	}
}

func TestSealUsesFreshNonce(t *testing.T) {
	k, _ := NewKeyring(map[string][]byte{"a": key(2)}, "a")
	s1, _ := k.Seal([]byte("same"), nil)
	s2, _ := k.Seal([]byte("same"), nil)
	if s1 == s2 {
		t.Fatal("two seals of the same plaintext are identical")
	}
}

func TestOpenFailures(t *testing.T) {
	k, _ := NewKeyring(map[string][]byte{"a": key(3)}, "a")
	s, _ := k.Seal([]byte("secret"), []byte("ad"))
	other, _ := NewKeyring(map[string][]byte{"a": key(4)}, "a")
	unknown, _ := NewKeyring(map[string][]byte{"b": key(3)}, "b")

	raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(s, "v1:a:"))
	raw[len(raw)-1] ^= 1
	tampered := "v1:a:" + base64.RawURLEncoding.EncodeToString(raw)

	cases := []struct {
		name   string
		k      *Keyring
		sealed string
		ad     string
		want   error
	}{
		{"wrong ad", k, s, "other", ErrDecrypt},
		{"wrong key same id", other, s, "ad", ErrDecrypt},
		{"unknown id", unknown, s, "ad", ErrUnknownKey},
		{"tampered", k, tampered, "ad", ErrDecrypt},
		{"no prefix", k, "garbage", "ad", ErrMalformed},
		{"bad version", k, "v2" + s[2:], "ad", ErrMalformed},
		{"bad base64", k, "v1:a:!!!", "ad", ErrMalformed},
		{"too short", k, "v1:a:AAAA", "ad", ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.k.Open(c.sealed, []byte(c.ad))
			if !errors.Is(err, c.want) {
				t.Fatalf("Open error = %v, want %v", err, c.want)
			}
		})
	}
}

func TestRotation(t *testing.T) {
	old, _ := NewKeyring(map[string][]byte{"2025": key(5)}, "2025")
	s, _ := old.Seal([]byte("pw"), nil)

	rotated, err := NewKeyring(map[string][]byte{"2025": key(5), "2026": key(6)}, "2026")
	if err != nil {
		t.Fatal(err)
	}
	if !rotated.NeedsReseal(s) {
		t.Fatal("value sealed with the old key should need resealing")
	}
	pt, err := rotated.Open(s, nil)
	if err != nil || string(pt) != "pw" {
		t.Fatalf("Open old value after rotation = %q, %v", pt, err)
	}
	s2, _ := rotated.Seal(pt, nil)
	if id, _ := KeyID(s2); id != "2026" {
		t.Fatalf("resealed with %q, want 2026", id)
	}
	if rotated.NeedsReseal(s2) {
		t.Fatal("freshly sealed value needs resealing")
	}
	if _, err := old.Open(s2, nil); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("old keyring opening new value: %v, want ErrUnknownKey", err)
	}
}

func TestParseKeys(t *testing.T) {
	k1 := key(7)
	k2 := key(8)
	spec := " new:" + hex.EncodeToString(k1) + " , old:" + base64.StdEncoding.EncodeToString(k2) + ",raw:" + base64.RawURLEncoding.EncodeToString(k1)
	keys, first, err := ParseKeys(spec)
	if err != nil {
		t.Fatal(err)
	}
	if first != "new" || len(keys) != 3 || !bytes.Equal(keys["new"], k1) || !bytes.Equal(keys["old"], k2) || !bytes.Equal(keys["raw"], k1) {
		t.Fatalf("ParseKeys = %v, %q", keys, first)
	}
	kr, err := ParseKeyring(spec, "")
	if err != nil || kr.ActiveKeyID() != "new" {
		t.Fatalf("ParseKeyring active = %v, %v", kr, err)
	}
	if got := kr.KeyIDs(); strings.Join(got, ",") != "new,old,raw" {
		t.Fatalf("KeyIDs = %v", got)
	}

	bad := []string{
		"",
		"nokey",
		":" + hex.EncodeToString(k1),
		"a:" + hex.EncodeToString(k1[:16]),
		"a:" + base64.StdEncoding.EncodeToString(k1[:31]),
		"a:" + hex.EncodeToString(k1) + ",a:" + hex.EncodeToString(k2),
		"a:not-a-key-at-all",
	}
	for _, s := range bad {
		if _, _, err := ParseKeys(s); err == nil {
			t.Errorf("ParseKeys(%q) succeeded", s)
		} else if strings.Contains(err.Error(), hex.EncodeToString(k1)) {
			t.Errorf("error for %q leaks key material: %v", s, err)
		}
	}
	if _, err := ParseKeyring("a:"+hex.EncodeToString(k1), "b"); err == nil {
		t.Error("ParseKeyring with missing active id succeeded")
	}
	if _, err := NewKeyring(map[string][]byte{"a:b": k1}, "a:b"); err == nil {
		t.Error("key id with ':' accepted")
	}
}
