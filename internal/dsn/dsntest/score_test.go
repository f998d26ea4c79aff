package dsntest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rebound-hq/rebound/internal/dsn"
)

func sp(s string) *string { return &s }

// TestScore checks the README's rules: class digit only for X.0.0 and
// X.0.9NN, the class answering for a missing status, null status, null
// recipient, not-a-bounce rows and files not seen as bounces.
func TestScore(t *testing.T) {
	rows := []Row{
		{File: "a.eml", Index: 1, Recipient: sp("A@x.test"), Status: sp("5.1.1"), Reason: "userunknown", AddressInvalid: true},
		{File: "b.eml", Index: 1, Recipient: sp("b@x.test"), Status: sp("5.0.911"), Reason: "userunknown", AddressInvalid: true},
		{File: "c.eml", Index: 1, Recipient: nil, Status: sp("4.0.0"), Reason: "expired"},
		{File: "d.eml", Index: 1, Recipient: sp("d@x.test"), Status: nil, Reason: "vacation"},
		{File: "e.eml", Index: 0, Reason: "not-a-bounce"},
		{File: "f.eml", Index: 1, Recipient: sp("f@x.test"), Status: sp("5.1.1"), Reason: "userunknown", AddressInvalid: true},
	}
	files := map[string]FileResult{
		"a.eml": {Results: []Got{{Kind: dsn.KindBounce, Recipient: "a@x.test", Status: "5.1.1", Class: "hard", Reason: "userunknown", AddressInvalid: true}}, HasDeliveryStatus: true},
		"b.eml": {Results: []Got{{Kind: dsn.KindBounce, Recipient: "b@x.test", Status: "5.1.1", Class: "hard", Reason: "userunknown", AddressInvalid: true}}},
		"c.eml": {Results: []Got{{Kind: dsn.KindBounce, Recipient: "z@x.test", Status: "", Class: "soft", Reason: "expired"}}},
		"d.eml": {Results: []Got{{Kind: dsn.KindAutoReply, Recipient: "d@x.test", Reason: "vacation"}}},
		"e.eml": {Results: []Got{{Kind: dsn.KindNotBounce}}},
		"f.eml": {Results: []Got{{Kind: dsn.KindNotBounce}}},
	}
	rep := Score(rows, files)
	if rep.Rows != 6 || rep.Status != 5 || rep.Reason != 5 || rep.AddressInvalid != 5 || rep.Recipient != 5 {
		t.Errorf("report %+v", rep)
	}
	if rep.DSRows != 1 || rep.DSStatus != 1 {
		t.Errorf("delivery-status rows %d/%d", rep.DSStatus, rep.DSRows)
	}
	if len(rep.Failures) != 1 || rep.Failures[0].File != "f.eml" || rep.Failures[0].Field != "kind" {
		t.Errorf("failures %+v", rep.Failures)
	}
	if Family("lhost-postfix-07.eml") != "lhost-postfix" || Family("rb-issue-368-bug.eml") != "rb-issue-368-bug" {
		t.Errorf("Family")
	}
}

// A failure row quotes a long diagnostic cut at a character boundary.
func TestFailureClipsAtRune(t *testing.T) {
	rows := []Row{{File: "g.eml", Index: 1, Recipient: sp("g@x.test"), Status: sp("5.1.1"), Reason: "userunknown", AddressInvalid: true}}
	diag := "a" + strings.Repeat("ö", 100)
	files := map[string]FileResult{
		"g.eml": {Results: []Got{{Kind: dsn.KindBounce, Recipient: "g@x.test", Status: "5.1.1", Class: "hard", Reason: "onhold", Diagnostic: diag}}},
	}
	rep := Score(rows, files)
	if len(rep.Failures) == 0 {
		t.Fatal("no failure recorded")
	}
	for _, f := range rep.Failures {
		if !utf8.ValidString(f.Got) {
			t.Errorf("%s: %q is not valid UTF-8", f.Field, f.Got)
		}
	}
}
