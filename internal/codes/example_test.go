package codes_test

import (
	"fmt"

	"github.com/rebound-hq/rebound/internal/codes"
)

// Explain picks the most specific entry for a pasted reply: Gmail's
// multiple-destination-domains deferral has its own entry, distinct from
// Gmail's plain 451 4.3.0 and from the generic registry meaning.
func ExampleExplain() {
	m, ok := codes.Explain("451-4.3.0 Multiple destination domains per transaction is unsupported. Please try again.", "")
	if !ok {
		return
	}
	fmt.Println(m.Entry.ID)
	fmt.Println(m.Entry.Title, "|", m.Entry.Class, "|", m.Entry.Label)
	fmt.Println(m.Entry.Fixes[0])
	fmt.Println(m.Enhanced.ID, m.Reply.ID)
	// Output:
	// google-451-4.3.0-multiple-domains
	// Several recipient domains in one transaction | soft | Temporary failure
	// Send one SMTP transaction per recipient domain (one MAIL FROM for each domain's recipients).
	// rfc-4.3.0 rfc-451
}

// Lookup explains a bare code, optionally for one provider.
func ExampleLookup() {
	generic, _ := codes.Lookup("451-4.3.0", "")
	gmail, _ := codes.Lookup("451 4.3.0", "google")
	fmt.Println(generic.Entry.ID, "/", gmail.Entry.ID)
	// Output: rfc-4.3.0 / google-451-4.3.0-temporarily-rejected
}

// ForResult links a decoded bounce result to its entry, so a timeline can
// show the explanation's title.
func ExampleForResult() {
	e, ok := codes.ForResult("5.1.1", "550", "550-5.1.1 The email account that you tried to reach does not exist. - gsmtp", "google")
	fmt.Println(ok, e.ID, e.KeepAddress)
	// Output: true google-550-5.1.1-no-such-user false
}

// List filters the knowledge base, as GET /v1/codes does.
func ExampleList() {
	for _, e := range codes.List(codes.Filter{Provider: "microsoft", Q: "S3150"}) {
		fmt.Println(e.Code(), e.Title)
	}
	// Output: 550 5.7.1 IP range on Outlook.com's block list (S3150)
}
