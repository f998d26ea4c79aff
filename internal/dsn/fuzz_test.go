package dsn

import (
	"os"
	"strings"
	"testing"
)

// FuzzDecode checks that no input panics and that an empty result always
// comes with an error (and a result never does). Seeded with the fixtures.
func FuzzDecode(f *testing.F) {
	for _, file := range fixtures(f) {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add(nested(30))
	f.Add([]byte("From: a\n\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := Decode(raw)
		if len(res) == 0 && err == nil {
			t.Fatalf("no result and no error for %q", raw)
		}
		if len(res) > 0 && err != nil {
			t.Fatalf("results with an error %v", err)
		}
		for _, r := range res {
			if strings.ContainsAny(r.Recipient, "\r\n\t") || strings.ContainsAny(r.Status, " \n") {
				t.Fatalf("malformed result %+v", r)
			}
		}
	})
}
