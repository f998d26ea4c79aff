package classify

import (
	"testing"

	"github.com/rebound-hq/rebound/internal/dsn"
)

// classifyCase is one row of the classification table: what a decoded
// result carries and the verdict expected for it.
type classifyCase struct {
	kind    dsn.Kind
	status  string
	reply   string
	diag    string
	hint    string
	class   string
	reason  string
	label   string
	invalid bool
}

var classifyCases = []classifyCase{
	{"bounce", "5.1.1", "550", "550 5.1.1 <x@example.com>: Recipient address rejected: User unknown in virtual mailbox table", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "5.1.1", "550", "550 5.1.1 rate limited, try again later", "", "hard", "speeding", "Rate limited", false},
	{"bounce", "5.7.1", "550", "550 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org", "", "hard", "blocked", "Blocked", false},
	{"bounce", "5.0.0", "550", "550 5.0.0 User unknown", "", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "4.2.2", "452", "452 4.2.2 Mailbox full", "", "soft", "mailboxfull", "Mailbox full", false},
	{"bounce", "5.2.2", "", "", "", "hard", "mailboxfull", "Mailbox full", false},
	{"bounce", "", "", "", "", "soft", "undefined", "Temporary failure", false},
	{"bounce", "5.0.0", "", "", "", "hard", "undefined", "Other", false},
	{"bounce", "", "", "", "userunknown", "hard", "userunknown", "Invalid recipient", true},
	{"bounce", "4.1.10", "", "", "", "soft", "notaccept", "Invalid recipient", false},
	{"bounce", "5.1.10", "556", "", "", "hard", "notaccept", "Invalid recipient", true},
	{"delayed", "4.4.7", "", "", "", "", "expired", "Delayed", false},
	{"auto_reply", "", "", "I am away", "", "", "vacation", "Auto-reply", false},
	{"complaint", "", "", "", "", "", "feedback", "Complaint", false},
	{"delivered", "2.0.0", "250", "", "", "", "delivered", "", false},
	{"not_bounce", "", "", "", "", "", "", "", false},
}

func TestClassify(t *testing.T) {
	for _, c := range classifyCases {
		got := Classify(dsn.Result{Kind: c.kind, Status: c.status, ReplyCode: c.reply, Diagnostic: c.diag, Hint: c.hint})
		want := Verdict{Class: c.class, Reason: c.reason, Label: c.label, AddressInvalid: c.invalid}
		if got != want {
			t.Errorf("Classify(%s %q %q %q hint=%q) = %+v, want %+v", c.kind, c.status, c.reply, c.diag, c.hint, got, want)
		}
	}
}
