package codes

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir is ../shared/corpus seen from the module root (three levels up
// from this package).
const corpusDir = "../../../shared/corpus"

// corpusDiagnostics returns the unfolded Diagnostic-Code values of a
// message, in order. It is a rough reader for this test only; decoding is
// internal/dsn's job.
func corpusDiagnostics(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.ToLower(lines[i]), "diagnostic-code:") {
			continue
		}
		d := lines[i][len("diagnostic-code:"):]
		for i+1 < len(lines) && (strings.HasPrefix(lines[i+1], " ") || strings.HasPrefix(lines[i+1], "\t")) {
			i++
			d += " " + strings.TrimSpace(lines[i])
		}
		d = strings.TrimSpace(d)
		if j := strings.IndexByte(d, ';'); j >= 0 && j < 12 { // "smtp; "
			d = strings.TrimSpace(d[j+1:])
		}
		out = append(out, d)
	}
	return out
}

// TestCorpus explains the Diagnostic-Code of every bounce in the shared
// corpus (Sisimai's set-of-emails) and checks the entries that a provider's
// or server's reply text selected against the reason Sisimai expects: they
// must agree on at least 90% of those rows. It logs how many rows found an
// entry at all.
func TestCorpus(t *testing.T) {
	f, err := os.Open(filepath.Join(corpusDir, "expected.jsonl"))
	if err != nil {
		t.Skipf("corpus not available (%v); it lives beside the project in ../shared/corpus", err)
	}
	defer f.Close()
	var rows, explained, byText, agree int
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	cache := map[string][]string{}
	for sc.Scan() {
		var r struct {
			File   string `json:"file"`
			Index  int    `json:"index"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("expected.jsonl: %v", err)
		}
		switch r.Reason {
		case "feedback", "vacation", "delivered", "not-a-bounce":
			continue
		}
		ds, ok := cache[r.File]
		if !ok {
			ds = corpusDiagnostics(t, filepath.Join(corpusDir, "emails", r.File))
			cache[r.File] = ds
		}
		if r.Index < 1 || r.Index > len(ds) || ds[r.Index-1] == "" {
			continue
		}
		rows++
		m, ok := Explain(ds[r.Index-1], "")
		if !ok {
			continue
		}
		explained++
		if m.ByText {
			byText++
			if m.Entry.Reason == r.Reason {
				agree++
			} else {
				t.Logf("%s: Sisimai says %s, entry %s says %s", r.File, r.Reason, m.Entry.ID, m.Entry.Reason)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows with a Diagnostic-Code: %d explained, %d by reply text, %d of those agree with Sisimai's reason", rows, explained, byText, agree)
	if rows == 0 || byText == 0 {
		t.Fatal("no corpus rows were explained")
	}
	if agree*10 < byText*9 {
		t.Errorf("only %d of %d text-selected entries agree with the corpus reason", agree, byText)
	}
}
