package dsn_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/classify"
	"github.com/rebound-hq/rebound/internal/dsn"
	"github.com/rebound-hq/rebound/internal/dsn/dsntest"
)

// corpusDir is ../shared/corpus seen from the module root.
var corpusDir = filepath.Join("..", "..", "..", "shared", "corpus")

// floors are the shares TestCorpus enforces, kept in testdata/corpus_floors.json.
// Raise them as results improve; never lower them.
type floors struct {
	Status         float64 `json:"status"`
	Reason         float64 `json:"reason"`
	AddressInvalid float64 `json:"address_invalid"`
	Recipient      float64 `json:"recipient"`
	// DSStatus is the status share over files with a delivery-status part.
	DSStatus float64 `json:"ds_status"`
}

// TestCorpus scores the decoder and classifier on ../shared/corpus exactly
// as `rebound corpus` does and fails when a share falls below its floor.
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(filepath.Join(corpusDir, "expected.jsonl")); err != nil {
		t.Skipf("corpus %s absent (%v): nothing to score", corpusDir, err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "corpus_floors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f floors
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("corpus_floors.json: %v", err)
	}
	rep, err := dsntest.Run(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, floor float64) {
		t.Logf("%-16s %6.2f%% (floor %6.2f%%)", name, 100*got, 100*floor)
		if got < floor {
			t.Errorf("%s share %.4f fell below its floor %.4f", name, got, floor)
		}
	}
	check("status", rep.Share(rep.Status), f.Status)
	check("reason", rep.Share(rep.Reason), f.Reason)
	check("address_invalid", rep.Share(rep.AddressInvalid), f.AddressInvalid)
	check("recipient", rep.Share(rep.Recipient), f.Recipient)
	check("ds status", rep.DSShare(), f.DSStatus)
}

// BenchmarkDecodeCorpus decodes and classifies every corpus message per
// iteration and reports messages and megabytes per second.
func BenchmarkDecodeCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "emails", "*.eml"))
	if len(files) == 0 {
		b.Skipf("corpus %s absent", corpusDir)
	}
	msgs := make([][]byte, 0, len(files))
	total := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, raw)
		total += len(raw)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		for _, raw := range msgs {
			res, _ := dsn.Decode(raw)
			for _, r := range res {
				_ = classify.Classify(r)
			}
		}
	}
	el := time.Since(start).Seconds()
	cpu := cpuSeconds() - cpu0
	b.ReportMetric(float64(b.N*len(msgs))/el, "msgs/s")
	b.ReportMetric(float64(b.N*total)/el/1e6, "MB/s")
	b.ReportMetric(float64(el)*1e6/float64(b.N*len(msgs)), "µs/msg")
	// On a shared machine wall time includes waiting for a core; CPU time
	// (user+system of the whole process, GC included) says what one core
	// sustains.
	if cpu > 0 {
		b.ReportMetric(float64(b.N*len(msgs))/cpu, "msgs/cpu-s")
	}
}

// cpuSeconds returns the process's user plus system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
