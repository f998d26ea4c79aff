package codes

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// The tables below restate ../shared/docs/classification.md ("Reason
// vocabulary" and "Report labels") so that the data is checked against the
// product rules independently of any other package.
var testReasons = map[string]bool{
	"userunknown": true, "hostunknown": true, "hasmoved": true, "notaccept": true, "suspend": true,
	"mailboxfull": true, "mesgtoobig": true, "exceedlimit": true, "filtered": true, "rejected": true,
	"blocked": true, "badreputation": true, "requireptr": true, "authfailure": true,
	"policyviolation": true, "spamdetected": true, "virusdetected": true, "contenterror": true,
	"securityerror": true, "failedstarttls": true, "notcompliantrfc": true, "syntaxerror": true,
	"norelaying": true, "toomanyconn": true, "speeding": true, "systemerror": true, "systemfull": true,
	"networkerror": true, "expired": true, "mailererror": true, "onhold": true, "undefined": true,
}

var testLabels = map[string]string{
	"userunknown": "Invalid recipient", "hasmoved": "Invalid recipient", "notaccept": "Invalid recipient",
	"hostunknown": "Domain not found", "suspend": "Mailbox disabled", "mailboxfull": "Mailbox full",
	"mesgtoobig": "Message too large", "exceedlimit": "Message too large",
	"blocked": "Blocked", "badreputation": "Blocked", "requireptr": "Blocked", "rejected": "Blocked", "norelaying": "Blocked",
	"spamdetected": "Spam or content", "virusdetected": "Spam or content", "contenterror": "Spam or content", "filtered": "Spam or content",
	"policyviolation": "Policy or authentication", "authfailure": "Policy or authentication",
	"securityerror": "Policy or authentication", "failedstarttls": "Policy or authentication",
	"notcompliantrfc": "Policy or authentication", "syntaxerror": "Policy or authentication",
	"toomanyconn": "Rate limited", "speeding": "Rate limited",
	"systemerror": "Temporary failure", "systemfull": "Temporary failure", "networkerror": "Temporary failure",
	"mailererror": "Temporary failure", "onhold": "Temporary failure", "expired": "Delivery expired",
}

func wantLabel(reason, class string) string {
	if reason == "undefined" {
		if class == ClassSoft {
			return "Temporary failure"
		}
		return "Other"
	}
	return testLabels[reason]
}

func addressInvalid(reason string, permanent bool) bool {
	switch reason {
	case "userunknown", "hostunknown", "hasmoved":
		return true
	case "notaccept":
		return permanent
	}
	return false
}

func TestDataLoads(t *testing.T) {
	if err := Err(); err != nil {
		t.Fatal(err)
	}
	if len(get().entries) == 0 {
		t.Fatal("no entries loaded")
	}
}

// TestDataValid checks every entry: all fields present, codes well formed,
// outcome and class consistent with the codes, reason and label agreeing
// with classification.md, the keep-address answer agreeing with the lead
// policy, related IDs resolving, sources named with absolute URLs, and a
// review date.
func TestDataValid(t *testing.T) {
	for _, e := range get().entries {
		e := e
		fail := func(format string, args ...any) {
			t.Helper()
			t.Errorf("%s: "+format, append([]any{e.ID}, args...)...)
		}
		if e.Provider == "" || e.ProviderName == "" {
			fail("provider %q / provider name %q missing", e.Provider, e.ProviderName)
		}
		if e.ReplyCode == "" && e.EnhancedCode == "" {
			fail("neither reply nor enhanced code")
		}
		if e.ReplyCode != "" {
			if r, _, ok := replyAt(e.ReplyCode, 0); !ok || r != e.ReplyCode {
				fail("malformed reply code %q", e.ReplyCode)
			}
		}
		for _, s := range []struct{ name, v string }{
			{"reply_text", e.ReplyText}, {"title", e.Title}, {"meaning", e.Meaning},
			{"keep_address_why", e.KeepAddressWhy}, {"who_acts", e.WhoActs},
		} {
			if strings.TrimSpace(s.v) == "" {
				fail("%s empty", s.name)
			}
		}
		if len(e.Causes) == 0 || len(e.Fixes) == 0 {
			fail("causes (%d) or fixes (%d) missing", len(e.Causes), len(e.Fixes))
		}
		for _, list := range [][]string{e.Causes, e.Fixes} {
			for _, s := range list {
				if strings.TrimSpace(s) == "" {
					fail("empty cause or fix")
				}
			}
		}
		switch e.WhoActs {
		case ActorSender, ActorRecipient, ActorRecipientAdmin, ActorProvider, ActorNone:
		default:
			fail("who_acts %q unknown", e.WhoActs)
		}
		// Outcome from the codes: the enhanced code's class digit wins,
		// else the reply code's first digit (classification.md, "class").
		digit := e.ReplyCode
		if e.EnhancedCode != "" {
			digit = e.EnhancedCode
		}
		want := map[byte]string{'2': OutcomeSuccess, '3': OutcomeIntermediate, '4': OutcomeTemporary, '5': OutcomePermanent}[digit[0]]
		if e.Outcome != want {
			fail("outcome %q, codes say %q", e.Outcome, want)
		}
		wantClass := map[string]string{OutcomeTemporary: ClassSoft, OutcomePermanent: ClassHard}[e.Outcome]
		if e.Class != wantClass {
			fail("class %q, want %q", e.Class, wantClass)
		}
		if e.Class == "" {
			if e.Label != "" || (e.Reason != "" && e.Reason != "delivered") || e.WhoActs != ActorNone || !e.KeepAddress {
				fail("success/intermediate entry with reason %q label %q who %q keep %v", e.Reason, e.Label, e.WhoActs, e.KeepAddress)
			}
		} else {
			if !testReasons[e.Reason] {
				fail("reason %q not in the vocabulary", e.Reason)
			}
			if l := wantLabel(e.Reason, e.Class); e.Label != l {
				fail("label %q, classification.md says %q for %s/%s", e.Label, l, e.Reason, e.Class)
			}
			keep := !(e.Class == ClassHard && addressInvalid(e.Reason, true))
			if e.KeepAddress != keep {
				fail("keep_address %v, lead policy says %v", e.KeepAddress, keep)
			}
			if e.WhoActs == ActorNone {
				fail("a failure with nobody to act")
			}
		}
		if len(e.Related) == 0 && e.Provider != ProviderGeneric {
			fail("no related codes")
		}
		for _, id := range e.Related {
			if id == e.ID {
				fail("related to itself")
			}
			if _, ok := Get(id); !ok {
				fail("related %q does not resolve", id)
			}
		}
		if len(e.Sources) == 0 {
			fail("no sources")
		}
		for _, s := range e.Sources {
			u, err := url.Parse(s.URL)
			if s.Name == "" || err != nil || u.Scheme != "https" || u.Host == "" {
				fail("source %+v needs a name and an absolute https URL", s)
			}
		}
		if _, err := time.Parse("2006-01-02", e.Reviewed); err != nil {
			fail("reviewed %q: %v", e.Reviewed, err)
		}
		if e.Provider != ProviderGeneric && len(e.Match) == 0 {
			fail("provider entry without match fragments")
		}
		for _, m := range e.Match {
			if m != strings.ToLower(m) || len(strings.TrimSpace(m)) < 5 {
				fail("match fragment %q must be lower case and distinctive", m)
			}
			if !containsFold(cleanText(e.ReplyText), m) && !strings.Contains(strings.ToLower(e.ReplyText), m) {
				// A fragment need not come from the example text (older or
				// alternative wordings), but the example must be matched by
				// some fragment so the entry can select itself.
				continue
			}
		}
		if len(e.Match) > 0 {
			if got, ok := Explain(e.Code()+" "+e.ReplyText, e.Provider); !ok || got.Entry != e {
				id := ""
				if got.Entry != nil {
					id = got.Entry.ID
				}
				fail("its own reply %q explains as %q", e.Code()+" "+e.ReplyText, id)
			}
		}
	}
}

// TestCoverage checks the coverage the issue asks for: every enhanced code
// of the IANA registry in both failure classes, every RFC 5321 reply code
// plus RFC 7504's, and the provider minimums.
func TestCoverage(t *testing.T) {
	registry := []string{"0.0", "1.0", "1.1", "1.2", "1.3", "1.4", "1.6", "1.7", "1.8", "1.10",
		"2.0", "2.1", "2.2", "2.3", "2.4", "3.0", "3.1", "3.2", "3.3", "3.4", "3.5",
		"4.0", "4.1", "4.2", "4.3", "4.4", "4.5", "4.6", "4.7",
		"5.0", "5.1", "5.2", "5.3", "5.4", "5.5", "5.6",
		"6.0", "6.1", "6.2", "6.3", "6.5", "6.6", "6.7", "6.8", "6.9", "6.10"}
	for i := 0; i <= 30; i++ {
		registry = append(registry, "7."+itoa(i))
	}
	for _, c := range registry {
		for _, cls := range []string{"4", "5"} {
			if _, ok := get().generic[cls+"."+c]; !ok {
				t.Errorf("no generic entry for %s.%s", cls, c)
			}
		}
	}
	for _, c := range []string{"2.0.0", "2.1.5", "2.1.9", "2.3.6", "2.6.4"} {
		if _, ok := get().generic[c]; !ok {
			t.Errorf("no generic entry for success code %s", c)
		}
	}
	for _, r := range strings.Fields("211 214 220 221 250 251 252 354 421 450 451 452 455 500 501 502 503 504 550 551 552 553 554 555 521 556") {
		if _, ok := get().generic[r]; !ok {
			t.Errorf("no generic entry for reply code %s", r)
		}
	}
	min := map[string]int{"google": 100, "microsoft": 40, "yahoo": 10, "apple": 5}
	count := map[string]int{}
	for _, e := range get().entries {
		count[e.Provider]++
	}
	for p, n := range min {
		if count[p] < n {
			t.Errorf("%s: %d entries, want at least %d", p, count[p], n)
		}
	}
	for _, g := range Groups() {
		t.Logf("%-10s %3d entries  %s", g.ID, g.Entries, g.Name)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}
