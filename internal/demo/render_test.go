package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"scalars keep their order", `{"z":1,"a":"two words","m":null,"b":true}`,
			"z: 1\na: two words\nm: null\nb: true\n"},
		{"nested object", `{"totals":{"sent":10,"rate":0.25},"tz":"UTC"}`,
			"totals:\n  sent: 10\n  rate: 0.25\ntz: UTC\n"},
		{"array of objects, one line each, nested below", `{"labels":[{"label":"Blocked","count":3,"top":[{"code":"5.7.1","n":2}]},{"label":"Other","count":1,"top":[]}]}`,
			"labels:\n  - label=Blocked  count=3\n      top:\n        - code=5.7.1  n=2\n  - label=Other  count=1\n      top: []\n"},
		{"empty values", `{"a":[],"o":{},"s":""}`, "a: []\no: {}\ns: \n"},
		{"array of scalars and arrays", `[1,"x",[2]]`, "- 1\n- x\n-\n  - 2\n"},
		{"big numbers stay as written", `{"n":12345678901234567890,"f":0.09164733178654293}`,
			"n: 12345678901234567890\nf: 0.09164733178654293\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := RenderJSON(&b, []byte(tt.in), ""); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
	for _, bad := range []string{``, `{"a":`, `{"a":1} {}`, `[1,]`} {
		if err := RenderJSON(&bytes.Buffer{}, []byte(bad), ""); err == nil {
			t.Errorf("RenderJSON(%q): no error", bad)
		}
	}
}

func TestPickLead(t *testing.T) {
	leads := []leadJSON{
		{ID: 1, BounceCount: 0},
		{ID: 2, BounceCount: 30, Status: "stopped"},
		{ID: 3, BounceCount: 2, Status: "active"},
		{ID: 4, BounceCount: 2, Status: "stopped"},
		{ID: 5, BounceCount: 1, Status: "stopped"},
	}
	if got := pickLead(leads); got == nil || got.ID != 4 {
		t.Errorf("pickLead = %+v, want lead 4 (2 bounces, stopped)", got)
	}
	if got := pickLead(leads[:2]); got == nil || got.ID != 2 {
		t.Errorf("pickLead without short histories = %+v, want lead 2", got)
	}
	if got := pickLead(leads[:1]); got != nil {
		t.Errorf("pickLead with no bounced lead = %+v, want nil", got)
	}
}

func TestCRLF(t *testing.T) {
	for in, want := range map[string]string{
		"a\nb\n":       "a\r\nb\r\n",
		"a\r\nb\n":     "a\r\nb\r\n",
		"\n":           "\r\n",
		"no line end":  "no line end",
		"mixed\r\n\n.": "mixed\r\n\r\n.",
	} {
		if got := string(crlf([]byte(in))); got != want {
			t.Errorf("crlf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadMailDirLimitSpreads(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a-1", "a-2", "b-1", "b-2", "c-1", "c-2"} {
		if err := os.WriteFile(filepath.Join(dir, n+".eml"), []byte("Subject: "+n+"\n\nx\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "skip.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := readMailDir(dir, 0)
	if err != nil || len(all) != 6 {
		t.Fatalf("readMailDir(all) = %d files, %v; want 6", len(all), err)
	}
	some, err := readMailDir(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range some {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "a-1.eml,b-1.eml,c-1.eml" {
		t.Errorf("readMailDir(limit 3) = %s, want one file of each kind", got)
	}
	if _, err := readMailDir(t.TempDir(), 0); err == nil {
		t.Error("readMailDir of an empty folder: no error")
	}
}

func TestWithRedisDB(t *testing.T) {
	for in, want := range map[string]string{
		"redis://127.0.0.1:56379/0":          "redis://127.0.0.1:56379/9",
		"redis://127.0.0.1:56379":            "redis://127.0.0.1:56379/9",
		"redis://:pw@127.0.0.1:56379/1?db=1": "redis://:pw@127.0.0.1:56379/9",
	} {
		if got := withRedisDB(in, 9); got != want {
			t.Errorf("withRedisDB(%q) = %q, want %q", in, got, want)
		}
	}
}
