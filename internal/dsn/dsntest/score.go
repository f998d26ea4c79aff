// Package dsntest scores the decoder and classifier against a bounce corpus
// laid out as ../shared/corpus/README.md describes: emails/*.eml and an
// expected.jsonl of one row per (file, recipient). The same scoring backs
// `rebound corpus` and the TestCorpus floors, so the figures a person reads
// are the figures the test enforces. It is pure: it reads files, decodes and
// classifies in memory.
package dsntest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rebound-hq/rebound/internal/classify"
	"github.com/rebound-hq/rebound/internal/dsn"
)

// Row is one expected line of expected.jsonl. Nil pointers are JSON nulls.
type Row struct {
	File           string  `json:"file"`
	Index          int     `json:"index"`
	Recipient      *string `json:"recipient"`
	Status         *string `json:"status"`
	ReplyCode      *string `json:"reply_code"`
	Reason         string  `json:"reason"`
	AddressInvalid bool    `json:"address_invalid"`
}

// Got is one decoded and classified result of a corpus file.
type Got struct {
	Kind           dsn.Kind
	Recipient      string
	Status         string
	ReplyCode      string
	Class          string
	Reason         string
	AddressInvalid bool
	Diagnostic     string
	Format         string
}

// FileResult is what the decoder made of one file.
type FileResult struct {
	Results []Got
	Err     error
	// HasDeliveryStatus is true when the file carries a
	// message/delivery-status (or global) part.
	HasDeliveryStatus bool
}

// Failure is one disagreeing field of one expected row.
type Failure struct {
	File, Field, Want, Got string
	Index                  int
}

// Report holds the four shares and the failures.
type Report struct {
	Rows                                      int
	Status, Reason, AddressInvalid, Recipient int // rows that agree
	DSRows, DSStatus                          int // rows of files with a delivery-status part
	Failures                                  []Failure
}

// Share returns n as a share (0..1) of all rows.
func (r Report) Share(n int) float64 {
	if r.Rows == 0 {
		return 0
	}
	return float64(n) / float64(r.Rows)
}

// DSShare returns the status share over rows of files that carry a
// delivery-status part.
func (r Report) DSShare() float64 {
	if r.DSRows == 0 {
		return 0
	}
	return float64(r.DSStatus) / float64(r.DSRows)
}

// LoadExpected reads expected.jsonl.
func LoadExpected(path string) ([]Row, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("dsntest: read expected: %w", err)
	}
	var rows []Row
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r Row
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("dsntest: expected.jsonl line %d: %w", n, err)
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

// DecodeFile decodes and classifies one raw message.
func DecodeFile(raw []byte) FileResult {
	fr := FileResult{HasDeliveryStatus: hasDeliveryStatus(raw)}
	res, err := dsn.Decode(raw)
	fr.Err = err
	for _, r := range res {
		v := classify.Classify(r)
		fr.Results = append(fr.Results, Got{
			Kind: r.Kind, Recipient: r.Recipient, Status: r.Status, ReplyCode: r.ReplyCode,
			Class: v.Class, Reason: v.Reason, AddressInvalid: v.AddressInvalid,
			Diagnostic: r.Diagnostic, Format: r.Format,
		})
	}
	return fr
}

// hasDeliveryStatus reports a message/delivery-status or
// message/global-delivery-status content type anywhere in raw.
func hasDeliveryStatus(raw []byte) bool {
	l := bytes.ToLower(raw)
	return bytes.Contains(l, []byte("message/delivery-status")) || bytes.Contains(l, []byte("message/global-delivery-status"))
}

// Run decodes every file named by rows under dir/emails and scores it.
func Run(dir string) (Report, error) {
	rows, err := LoadExpected(filepath.Join(dir, "expected.jsonl"))
	if err != nil {
		return Report{}, err
	}
	files := map[string]FileResult{}
	for _, r := range rows {
		if _, ok := files[r.File]; ok {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "emails", r.File))
		if err != nil {
			return Report{}, fmt.Errorf("dsntest: %w", err)
		}
		files[r.File] = DecodeFile(raw)
	}
	return Score(rows, files), nil
}

// Score compares decoded files with the expected rows, as the corpus README
// says: status (class digit only where the expected code is X.0.0 or
// X.0.9NN; a result without a status then answers with its class, hard 5,
// soft 4), reason, address_invalid and recipient (case-insensitive, where
// given). A not-a-bounce row agrees on every field when the file decoded to
// kind not_bounce. A file not seen as a bounce scores zero on its rows.
func Score(rows []Row, files map[string]FileResult) Report {
	var rep Report
	for _, row := range rows {
		rep.Rows++
		fr := files[row.File]
		if fr.HasDeliveryStatus {
			rep.DSRows++
		}
		fail := func(field, want, got string) {
			rep.Failures = append(rep.Failures, Failure{File: row.File, Index: row.Index, Field: field, Want: want, Got: got})
		}
		if row.Reason == "not-a-bounce" {
			if len(fr.Results) == 1 && fr.Results[0].Kind == dsn.KindNotBounce {
				rep.Status++
				rep.Reason++
				rep.AddressInvalid++
				rep.Recipient++
				if fr.HasDeliveryStatus {
					rep.DSStatus++
				}
			} else {
				got := "error"
				if len(fr.Results) > 0 {
					got = string(fr.Results[0].Kind)
				}
				fail("kind", "not_bounce", got)
			}
			continue
		}
		if len(fr.Results) == 0 || fr.Results[0].Kind == dsn.KindNotBounce {
			got := "not_bounce"
			if fr.Err != nil {
				got = "error: " + fr.Err.Error()
			}
			if len(fr.Results) > 0 {
				got += " (" + fr.Results[0].Format + ")"
			}
			fail("kind", "bounce", got)
			continue
		}
		if row.Index < 1 || row.Index > len(fr.Results) {
			fail("index", fmt.Sprint(row.Index), fmt.Sprintf("%d results", len(fr.Results)))
			continue
		}
		g := fr.Results[row.Index-1]
		if statusAgrees(row.Status, g) {
			rep.Status++
			if fr.HasDeliveryStatus {
				rep.DSStatus++
			}
		} else {
			fail("status", deref(row.Status), g.Status+" ("+g.Format+")")
		}
		if row.Reason == g.Reason {
			rep.Reason++
		} else {
			fail("reason", row.Reason, g.Reason+"  ["+g.Status+" "+g.ReplyCode+"] "+clip(g.Diagnostic, 140))
		}
		if row.AddressInvalid == g.AddressInvalid {
			rep.AddressInvalid++
		} else {
			fail("address_invalid", fmt.Sprint(row.AddressInvalid), fmt.Sprint(g.AddressInvalid)+" ("+g.Reason+")")
		}
		if row.Recipient == nil || strings.EqualFold(*row.Recipient, g.Recipient) {
			rep.Recipient++
		} else {
			fail("recipient", *row.Recipient, g.Recipient+" ("+g.Format+")")
		}
	}
	return rep
}

// statusAgrees applies the README's status rule.
func statusAgrees(want *string, g Got) bool {
	if want == nil {
		return g.Status == ""
	}
	w := *want
	if classOnly(w) {
		got := g.Status
		if got == "" {
			switch g.Class {
			case classify.ClassHard:
				got = "5"
			case classify.ClassSoft:
				got = "4"
			}
		}
		return got != "" && got[0] == w[0]
	}
	return w == g.Status
}

// classOnly reports X.0.0 and X.0.9NN codes, of which only the class digit
// is compared.
func classOnly(s string) bool {
	return len(s) == 5 && s[1:] == ".0.0" || len(s) == 7 && strings.HasPrefix(s[1:], ".0.9")
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// clip cuts s to at most n bytes, at a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Family returns the MTA family of a corpus file name: the name without its
// trailing "-NN.eml" ("lhost-postfix-07.eml" gives "lhost-postfix").
func Family(file string) string {
	f := strings.TrimSuffix(file, ".eml")
	if i := strings.LastIndexByte(f, '-'); i > 0 {
		tail := f[i+1:]
		digits := tail != ""
		for j := 0; j < len(tail); j++ {
			if tail[j] < '0' || tail[j] > '9' {
				digits = false
			}
		}
		if digits {
			return f[:i]
		}
	}
	return f
}

// ByFamily groups failures by the MTA family of their file, families sorted
// by name and failures by file, index and field.
func (r Report) ByFamily() ([]string, map[string][]Failure) {
	m := map[string][]Failure{}
	for _, f := range r.Failures {
		fam := Family(f.File)
		m[fam] = append(m[fam], f)
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
		sort.SliceStable(m[k], func(i, j int) bool {
			a, b := m[k][i], m[k][j]
			if a.File != b.File {
				return a.File < b.File
			}
			return a.Index < b.Index
		})
	}
	sort.Strings(names)
	return names, m
}
