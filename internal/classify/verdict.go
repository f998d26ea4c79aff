// Package classify turns a decoded dsn.Result into a Verdict: class (soft or
// hard), reason, report label and whether the address itself is dead. The
// rules are ../shared/docs/classification.md. It is part of the pure core
// and imports only the standard library and internal/dsn.
//
// The reason is read from the diagnostic text, the RFC 3463 status code,
// the RFC 5321 reply code, the SMTP command refused and the decoder's hint,
// in the order documented on ReasonOf. The knowledge is kept as data:
//
//   - phrases.go: tables of reply-text phrases per reason, in the languages
//     receiving servers answer in, and reasonRank, the precedence between
//     reasons when several phrases match;
//   - status.go: what each enhanced status code and reply code says;
//   - reason.go: the vocabulary, the label table and the address_invalid
//     rule.
//
// Phrases are found in one pass over the lower-cased diagnostic by matcher
// (match.go), without regular expressions; Classify takes a few
// microseconds and does not allocate.
package classify

// Verdict is the classification of one dsn.Result. Class is "" for kinds
// other than bounce.
type Verdict struct {
	Class          string // "soft", "hard" or ""
	Reason         string // one word of the reason vocabulary (Reason* constants)
	Label          string // report label, e.g. "Temporary failure"
	AddressInvalid bool
}
