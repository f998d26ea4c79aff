package classify

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rebound-hq/rebound/internal/dsn"
)

// corpusDir is ../shared/corpus from the module root (see
// ../shared/corpus/README.md); tests skip when it is absent.
const corpusDir = "../../../shared/corpus"

// corpusRow is one line of expected.jsonl.
type corpusRow struct {
	File           string `json:"file"`
	Index          int    `json:"index"`
	Reason         string `json:"reason"`
	AddressInvalid bool   `json:"address_invalid"`
}

// loadCorpus decodes every corpus file named in expected.jsonl and returns
// the rows with the decoded results of their files.
func loadCorpus(tb testing.TB) ([]corpusRow, map[string][]dsn.Result) {
	tb.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "expected.jsonl"))
	if err != nil {
		tb.Skipf("corpus not available (%v); it lives beside the project in ../shared/corpus", err)
	}
	defer f.Close()
	var rows []corpusRow
	results := map[string][]dsn.Result{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r corpusRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("expected.jsonl: %v", err)
		}
		rows = append(rows, r)
		if _, ok := results[r.File]; ok {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(corpusDir, "emails", r.File))
		if err != nil {
			tb.Fatalf("read %s: %v", r.File, err)
		}
		rs, _ := dsn.Decode(raw) // a file that does not decode scores zero below
		results[r.File] = rs
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("expected.jsonl: %v", err)
	}
	return rows, results
}

// Floors for the classification shares on the corpus, with the decoder's
// results as input. Raise them as results improve; never lower them.
const (
	floorReason         = 0.979
	floorAddressInvalid = 0.985
)

// TestCorpusClassification scores Classify on the decoder's results for
// the corpus: the share of rows whose reason and address_invalid agree with
// expected.jsonl ("not-a-bounce" rows agree when the result is not_bounce).
func TestCorpusClassification(t *testing.T) {
	rows, results := loadCorpus(t)
	reasonOK, invalidOK := 0, 0
	for _, row := range rows {
		rs := results[row.File]
		if row.Index == 0 {
			if len(rs) == 1 && rs[0].Kind == dsn.KindNotBounce && row.Reason == "not-a-bounce" {
				reasonOK++
				invalidOK++
			}
			continue
		}
		if row.Index > len(rs) {
			continue
		}
		v := Classify(rs[row.Index-1])
		if v.Reason == row.Reason {
			reasonOK++
		}
		if v.AddressInvalid == row.AddressInvalid {
			invalidOK++
		}
	}
	n := float64(len(rows))
	reason, invalid := float64(reasonOK)/n, float64(invalidOK)/n
	t.Logf("corpus: reason %.2f%% (%d/%d), address_invalid %.2f%% (%d/%d)", 100*reason, reasonOK, len(rows), 100*invalid, invalidOK, len(rows))
	if reason < floorReason {
		t.Errorf("reason share %.4f below floor %.2f", reason, floorReason)
	}
	if invalid < floorAddressInvalid {
		t.Errorf("address_invalid share %.4f below floor %.2f", invalid, floorAddressInvalid)
	}
}

// BenchmarkClassifyCorpus classifies every decoded corpus result.
func BenchmarkClassifyCorpus(b *testing.B) {
	_, results := loadCorpus(b)
	var rs []dsn.Result
	for _, r := range results {
		rs = append(rs, r...)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Classify(rs[i%len(rs)])
	}
}
