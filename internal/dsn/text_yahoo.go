package dsn

// Yahoo! Mail (and Yahoo! Japan, which runs the same software): Subject
// "Failure Notice", body "Sorry, we were unable to deliver your message to
// the following address.", then "<user@example.com>:" and "Remote host
// said: ..." lines, the original after "--- Below this line is a copy of the
// message.". The layout is qmail's, the wording is Yahoo's.

var yahooFormat = &textFormat{
	name:       "yahoo",
	subjectHas: []string{"failure notice"},
	bodyHas:    []string{"Sorry, we were unable to deliver your message to the following address"},
	needBody:   true,
	start:      []string{"Sorry, we were unable to deliver your message"},
	stop:       []string{"Below this line is a copy of the message"},
	rcpt:       rcptRule{angle: true},
	hints: []phraseHint{
		{"message expired", "expired"},
		{"connection refused", "networkerror"},
		{"invalid recipient", "userunknown"},
	},
}

func init() { registerText(30, yahooFormat) }
