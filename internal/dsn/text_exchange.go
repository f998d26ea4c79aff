package dsn

// Microsoft Exchange 5.5/2000/2003 ("Internet Mail Service", "Microsoft
// Exchange Server Internet Mail Connector"): Subject "Undeliverable: ...",
// "Your message ... did not reach the following recipient(s):" (or "The
// following recipient(s) could not be reached:"), then per recipient
// "user@example.com on <date>" and the reason lines indented below,
// sometimes with an MSEXCH:IMS diagnostic. Exchange 2007 and later send
// RFC 3464 reports (the rfc3464 path).

var exchange2003Format = &textFormat{
	name:       "exchange2003",
	subjectHas: []string{"undeliverable:", "unzustellbar:", "non remis :", "non recapitabile:", "onbestelbaar:", "no se puede entregar:", "não é possível entregar:"},
	headerHas:  []headerMark{{name: "X-Mailer", has: "internet mail service ("}, {name: "X-Mailer", has: "microsoft exchange server internet mail connector"}, {name: "X-MS-Embedded-Report"}},
	bodyHas:    []string{"did not reach the following recipient", "could not be reached:", "did not reach some or all of the intended recipients"},
	needBody:   true,
	start:      []string{"did not reach the following recipient", "could not be reached:"},
	rcpt:       rcptRule{lead: true},
	skip:       []string{"The MTS-ID of the original message is"},
	hints: []phraseHint{
		{"the recipient name is not recognized", "userunknown"},
		{"unknown recipient", "userunknown"},
		{"recipient not found", "userunknown"},
		{"the e-mail account does not exist at the organization", "userunknown"},
		{"no transport provider was available for delivery", "networkerror"},
		{"message exceeds maximum hop count", "networkerror"},
		{"the message was not delivered because the message size", "mesgtoobig"},
		{"the recipient's mailbox is full", "mailboxfull"},
	},
}

func init() { registerText(75, exchange2003Format) }
