package dsn

import (
	"os"
	"testing"
)

func TestTextDbg(t *testing.T) {
	f := os.Getenv("TEXT_DBG")
	if f == "" {
		t.Skip()
	}
	raw, _ := os.ReadFile(f)
	h, body, ds := txtFlatten(t, raw)
	t.Logf("ds=%v subj=%q from=%q body=%.300q", ds, h.Get("Subject"), h.Get("From"), body)
	for _, r := range decodeText(h, body) {
		t.Logf("%+v", r)
	}
}

func TestTextDbg2(t *testing.T) {
	for _, f := range textFormats {
		t.Logf("%s", f.name)
	}
	r := rcptRule{contains: []string{"There was an error delivering your mail to"}}
	l := "There was an error delivering your mail to <pseudo-local-part@google.example.com>."
	a, rest, ok := r.match(l, l)
	t.Logf("%q %q %v", a, rest, ok)
	a, rest = firstAddr(l)
	t.Logf("%q %q", a, rest)
}
