// Package classify turns a decoded dsn.Result into a Verdict: class (soft or
// hard), reason, report label and whether the address itself is dead. The
// rules are ../shared/docs/classification.md. It is part of the pure core.
package classify

// Verdict is the classification of one dsn.Result. Class is "" for kinds
// other than bounce.
type Verdict struct {
	Class          string // "soft", "hard" or ""
	Reason         string // one word of the reason vocabulary (Reason* constants)
	Label          string // report label, e.g. "Temporary failure"
	AddressInvalid bool
}
