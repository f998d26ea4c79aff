// Package codes is Rebound's knowledge base of SMTP status codes: every
// enhanced status code of the IANA "SMTP Enhanced Status Codes" registry
// (RFC 3463, RFC 5248 and the RFCs that extend it), every RFC 5321 §4.2.3
// reply code (plus 521 and 556 of RFC 7504), and the replies that large
// mailbox providers (Gmail, Microsoft 365 and Outlook.com, Yahoo and AOL,
// Apple iCloud and others) document or are known to send. Each Entry
// explains one code or one provider reply: what it means, who has to act,
// the common causes, the fixes in order, whether to keep the address and
// how Rebound's Reports group it (../shared/docs/classification.md).
//
// The data lives in embedded JSON files (data/*.json, one per source
// group) and is loaded once into an immutable index. Lookups are pure and
// safe for concurrent use:
//
//   - Explain parses a pasted reply line ("451 4.3.0 Multiple destination
//     domains ...") and returns the most specific entry;
//   - Lookup does the same for a bare code ("451 4.3.0", "451-4.3.0",
//     "4.3.0", "451");
//   - ForResult links a decoded bounce result to its entry without
//     allocating on the common path;
//   - Get, List and WithCode serve the REST API's code pages.
//
// Entries returned are shared and must not be modified.
//
// The package is part of Rebound's pure core: it imports only the standard
// library.
package codes

import "strings"

// Outcomes of a code: what the reply says about the attempt (RFC 5321
// §4.2.1 first digit; RFC 3463 §3.1 class digit).
const (
	OutcomeSuccess      = "success"      // 2yz reply or 2.X.X status
	OutcomeIntermediate = "intermediate" // 3yz reply: more input expected
	OutcomeTemporary    = "temporary"    // 4yz reply or 4.X.X status: retry later
	OutcomePermanent    = "permanent"    // 5yz reply or 5.X.X status: do not retry as is
)

// Classes of a failure code, as classification.md defines them.
const (
	ClassSoft = "soft" // temporary failure
	ClassHard = "hard" // permanent failure
)

// Who has to act on a code (Entry.WhoActs).
const (
	ActorSender         = "sender"          // the sending side: domain, server, list or content
	ActorRecipient      = "recipient"       // the person who owns the mailbox
	ActorRecipientAdmin = "recipient_admin" // the administrator of the recipient's domain or tenant
	ActorProvider       = "provider"        // the operator of the receiving mail system
	ActorNone           = "none"            // nobody: the reply reports success or progress
)

// Provider names used in entries. Entries that any server may send carry
// ProviderGeneric. The mailbox-provider names agree with dsn.Provider.
const (
	ProviderGeneric   = "generic"
	ProviderGoogle    = "google"
	ProviderMicrosoft = "microsoft"
	ProviderYahoo     = "yahoo"
	ProviderApple     = "apple"
)

// Source is a public document an entry rests on.
type Source struct {
	Name string `json:"name"` // title of the document, e.g. "RFC 3463 §3.4"
	URL  string `json:"url"`  // absolute https URL
}

// Entry explains one status code or one provider reply. All fields are
// filled except where noted; the data test checks it.
type Entry struct {
	// ID is stable and URL-safe, e.g. "rfc-4.3.0", "rfc-451",
	// "google-451-4.3.0-multiple-domains".
	ID string `json:"id"`
	// Group is the data file the entry comes from: "enhanced", "reply",
	// "google", "microsoft", "yahoo", "apple" or "others".
	Group string `json:"group"`
	// Provider is who sends this reply: ProviderGeneric for any server, or
	// a provider name ("google", "microsoft", "yahoo", "apple", "mimecast",
	// "proofpoint", ...).
	Provider string `json:"provider"`
	// ProviderName is the provider as users know it ("Gmail and Google
	// Workspace"); "Any mail server" for generic entries.
	ProviderName string `json:"provider_name"`
	// ReplyCode is the RFC 5321 reply code ("451"); "" when the entry is
	// about an enhanced code alone.
	ReplyCode string `json:"reply_code,omitempty"`
	// EnhancedCode is the RFC 3463 status code ("4.3.0"); "" when the entry
	// is about a reply code alone. A provider range is written with the
	// detail as "lo-hi" ("4.7.500-699").
	EnhancedCode string `json:"enhanced_code,omitempty"`
	// ReplyText is the reply as the server writes it (after the codes), or
	// the registry's or RFC's name for a generic code.
	ReplyText string `json:"reply_text"`
	// Match holds lower-case fragments of ReplyText that identify this
	// reply; one found in a bounce's text selects the entry. Empty for
	// generic code entries.
	Match []string `json:"match,omitempty"`
	// ProviderDefault marks the provider's plain reply for its codes: it is
	// chosen for those codes from that provider when no text selects a more
	// specific entry.
	ProviderDefault bool `json:"provider_default,omitempty"`

	Title   string `json:"title"`   // one line, e.g. "Message temporarily rejected"
	Outcome string `json:"outcome"` // Outcome* constant
	Class   string `json:"class"`   // ClassSoft, ClassHard, or "" for success and intermediate replies
	WhoActs string `json:"who_acts"`
	Meaning string `json:"meaning"`
	// Causes lists the common causes, most likely first.
	Causes []string `json:"causes"`
	// Fixes lists what to do, in the order to try.
	Fixes []string `json:"fixes"`
	// KeepAddress says whether Rebound's default lead policy keeps the
	// address (false only for a hard bounce whose reason marks the address
	// invalid); KeepAddressWhy says why in a sentence.
	KeepAddress    bool   `json:"keep_address"`
	KeepAddressWhy string `json:"keep_address_why"`
	// Reason is the classification.md reason Rebound gives this reply;
	// "delivered" for success codes and "" for intermediate replies.
	Reason string `json:"reason"`
	// Label is the campaign Reports label for Reason and Class; "" for
	// success and intermediate replies, which are not bounces.
	Label string `json:"label"`
	// Related holds IDs of related entries; each resolves with Get.
	Related  []string `json:"related"`
	Sources  []Source `json:"sources"`
	Reviewed string   `json:"reviewed"` // date the entry was last checked, YYYY-MM-DD

	// parsed range of EnhancedCode ("4.7.500-699"); rangeHi == 0 when the
	// code is exact.
	rangeClass, rangeSubject string
	rangeLo, rangeHi         int
}

// Code returns the entry's codes as written in a reply: "451 4.3.0",
// "4.3.0" or "451".
func (e *Entry) Code() string {
	switch {
	case e.ReplyCode != "" && e.EnhancedCode != "":
		return e.ReplyCode + " " + e.EnhancedCode
	case e.ReplyCode != "":
		return e.ReplyCode
	}
	return e.EnhancedCode
}

// Temporary reports whether the code asks the sender to retry later.
func (e *Entry) Temporary() bool { return e.Outcome == OutcomeTemporary }

// WhoActsText describes an Actor* value in a sentence fragment for people.
func WhoActsText(actor string) string {
	switch actor {
	case ActorSender:
		return "the sender (your domain, sending server, list or message)"
	case ActorRecipient:
		return "the recipient (the owner of the mailbox)"
	case ActorRecipientAdmin:
		return "the recipient's administrator (their domain or tenant settings)"
	case ActorProvider:
		return "the receiving provider (a problem on their systems)"
	case ActorNone:
		return "nobody (the reply is not a failure)"
	}
	return actor
}

// matchesEnhanced reports whether the entry's enhanced code (exact or
// range) equals the parsed status code st.
func (e *Entry) matchesEnhanced(st string) (exact, ranged bool) {
	if e.rangeHi == 0 {
		return e.EnhancedCode == st, false
	}
	cls, subj, det, ok := splitStatus(st)
	if !ok || cls != e.rangeClass || subj != e.rangeSubject {
		return false, false
	}
	return false, det >= e.rangeLo && det <= e.rangeHi
}

// splitStatus splits "4.7.512" into "4", "7" and 512.
func splitStatus(st string) (cls, subj string, detail int, ok bool) {
	i := strings.IndexByte(st, '.')
	if i != 1 {
		return "", "", 0, false
	}
	j := strings.IndexByte(st[2:], '.')
	if j < 1 {
		return "", "", 0, false
	}
	d := st[2+j+1:]
	if d == "" || len(d) > 3 {
		return "", "", 0, false
	}
	for k := 0; k < len(d); k++ {
		if d[k] < '0' || d[k] > '9' {
			return "", "", 0, false
		}
		detail = detail*10 + int(d[k]-'0')
	}
	return st[:1], st[2 : 2+j], detail, true
}
