package dsn

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// textWant is what one recipient of a text fixture must decode to.
type textWant struct {
	rcpt, status, reply, hint string
}

// textCase is one fixture of testdata/text-<family>-*.eml and its expected
// decoding by decodeText.
type textCase struct {
	file   string
	format string
	kind   Kind
	want   []textWant
	// diagHas: a phrase each recipient's diagnostic must contain.
	diagHas string
}

// runTextCases decodes each fixture with LF and with CRLF line ends and
// checks format, kind, recipients, codes and hints; both line-end forms
// must give identical results.
func runTextCases(t *testing.T, cases []textCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			h, body, _ := txtFlatten(t, raw)
			rs := decodeText(h, body)
			crlf := []byte(strings.ReplaceAll(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n", "\r\n"))
			h2, body2, _ := txtFlatten(t, crlf)
			if rs2 := decodeText(h2, body2); !reflect.DeepEqual(rs, rs2) {
				t.Errorf("CRLF input decodes differently:\nLF   %+v\nCRLF %+v", rs, rs2)
			}
			if len(rs) != len(c.want) {
				t.Fatalf("got %d results, want %d: %+v", len(rs), len(c.want), rs)
			}
			for i, w := range c.want {
				r := rs[i]
				if r.Format != c.format {
					t.Errorf("#%d format %q, want %q", i+1, r.Format, c.format)
				}
				kind := c.kind
				if kind == "" {
					kind = KindBounce
				}
				if r.Kind != kind {
					t.Errorf("#%d kind %q, want %q", i+1, r.Kind, kind)
				}
				if r.Recipient != w.rcpt {
					t.Errorf("#%d recipient %q, want %q", i+1, r.Recipient, w.rcpt)
				}
				if r.Status != w.status {
					t.Errorf("#%d status %q, want %q (diag %q)", i+1, r.Status, w.status, r.Diagnostic)
				}
				if r.ReplyCode != w.reply {
					t.Errorf("#%d reply %q, want %q (diag %q)", i+1, r.ReplyCode, w.reply, r.Diagnostic)
				}
				if r.Hint != w.hint {
					t.Errorf("#%d hint %q, want %q (diag %q)", i+1, r.Hint, w.hint, r.Diagnostic)
				}
				if c.diagHas != "" && !strings.Contains(r.Diagnostic, c.diagHas) {
					t.Errorf("#%d diagnostic %q lacks %q", i+1, r.Diagnostic, c.diagHas)
				}
			}
		})
	}
}

// TestTextFixturesAreOurs guards the rule that fixtures are written for
// the project: none may name the corpus' placeholder people.
func TestTextFixturesAreOurs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "text-*.eml"))
	if len(files) == 0 {
		t.Fatal("no text fixtures")
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, w := range []string{"kijitora", "shironeko", "libsisimai", "nyaan"} {
			if strings.Contains(strings.ToLower(string(b)), w) {
				t.Errorf("%s contains %q: write fixtures with invented text", f, w)
			}
		}
	}
}
