package dsn

// Ipswitch IMail Server (X-Mailer "<SMTP32 vN>"): Subject "Undeliverable
// Mail", one sentence per failure ending in the address ("Unknown user:
// user@example.com", "User mailbox exceeds allowed size: ...", "Delivery
// failed 20 attempts: ...", "undeliverable to ..."), an optional "Body of
// message generated response:" block with the remote reply, and the
// original after "Original message follows.".

var imailFormat = &textFormat{
	name:       "imail",
	headerHas:  []headerMark{{name: "X-Mailer", has: "<smtp32 v"}},
	subjectHas: []string{"undeliverable mail"},
	bodyHas:    []string{"Original message follows.", "Body of message generated response:"},
	needBody:   true,
	stop:       []string{"Original message follows."},
	rcpt: rcptRule{
		contains: []string{
			"Unknown user:", "User mailbox exceeds allowed size:", "Delivery failed ",
			"undeliverable to ", "Unknown host:", "Invalid final delivery userid:",
			"Requested action not taken:", "SMTP connection failed", "Mailbox unavailable",
		},
		keepLine: true,
	},
	skip: []string{"Body of message generated response:"},
	// IMail checks the mailbox when the recipient is given: "Unknown
	// user:" is its answer to RCPT TO.
	commands: []phraseHint{{"unknown user:", "RCPT"}},
	hints: []phraseHint{
		{"unknown user:", "userunknown"},
		{"invalid final delivery userid", "userunknown"},
		{"unknown host:", "hostunknown"},
		{"user mailbox exceeds allowed size", "mailboxfull"},
		{"smtp connection failed", "networkerror"},
		{"attempts:", "expired"},
	},
}

func init() { registerText(70, imailFormat) }
