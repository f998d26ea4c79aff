package dsn

// Recognisers: how Decode tells formats apart.
//
// Decode parses the MIME structure once into a *message and then asks the
// registered recognisers, in order of their Order value, whether the message
// has their shape (Detect, which must be cheap: header and marker checks on
// pre-lower-cased text, no regular expressions). The first that says yes
// parses the message (Parse) into []Result; common post-processing then
// fills what every format shares (status and reply code found in the
// diagnostic, provider, the returned original, address clean-up).
//
// There are two ways to add a format, one file per format family:
//
//  1. A free-text bounce (most MTAs): describe it as a *textFormat (see
//     text_engine.go: markers in From/Subject/headers/body, the start and
//     stop lines of its error section, how it lists recipients, phrase
//     hints) in a new file text_<family>.go and add it from an init
//     function with registerText(priority, formats...). The "text"
//     recogniser (format_text.go) runs the registered text formats through
//     the shared engine; a format needing more sets textFormat.parse.
//
//  2. A structured format: call register with a Recogniser whose Detect and
//     Parse work on *message directly (see rfc3464.go, arf.go, autoreply.go).
//     Structured recognisers see the parsed MIME tree: the delivery-status,
//     feedback-report and returned-original parts, the decoded body text.
//
// The registered order: mdn (3, read receipts are not bounces), arf (5),
// rfc3464 (10), amazonses-json (20), rfc3464-text (30, report fields in
// the body), text (500, the free-text formats), forwarded (940, a bounce
// enclosed in another message), generic (960, any mail system's message
// naming a recipient), rfc3834 (970). Bounces take priority over
// auto-replies: rfc3834 (autoreply.go) runs after every bounce recogniser,
// since mailer daemons also send Auto-Submitted: auto-replied.
//
// Add a fixture pair to testdata/ (<case>.eml and <case>.golden.json, made
// with go test ./internal/dsn -run TestGolden -update) for every format
// added, and check `make corpus` before and after.

import "sort"

// Recogniser is one format family: a cheap shape test and the parser that
// turns a message of that shape into results.
type Recogniser struct {
	// Name identifies the format in Result.Format ("rfc3464", "qmail", ...).
	Name string
	// Order sorts recognisers: lower runs first. Structured formats use
	// 0-99, provider-specific text formats 100-899, generic fallbacks 900+.
	Order int
	// Detect reports whether m has this format's shape.
	Detect func(m *message) bool
	// Parse decodes m. It returns no results (and no error) when the message
	// turns out not to be of this format after all; Decode then tries the
	// next recogniser.
	Parse func(m *message) ([]Result, error)
}

var registry []Recogniser

// register adds a recogniser to the registry. It is called from init
// functions, one per format file.
func register(r Recogniser) {
	registry = append(registry, r)
	sort.SliceStable(registry, func(i, j int) bool { return registry[i].Order < registry[j].Order })
}
