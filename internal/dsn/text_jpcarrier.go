package dsn

// Japanese mobile carriers and ISPs. Their notices state the error first
// (often in Japanese, ISO-2022-JP or Shift_JIS) and list the address after:
//   - au by KDDI / EZweb (Postmaster@ezweb.ne.jp, "Mail System Error -
//     Returned Mail"): "<user@ezweb.ne.jp>" lines or "Recipient: <...>"
//     followed by the SMTP exchange (">>> RCPT TO:", "<<< 550 ...").
//   - KDDI (dion.ne.jp, no-reply@...): "Could not be delivered to: <addr>"
//     then "As their mailbox is full." and similar.
//   - BIGLOBE (postmaster@biglobe.ne.jp): "----- The following addresses
//     had delivery problems -----" then "----- Non-delivered information
//     -----" and the reason.
// The fixed English sentences below are these carriers' own.

var ezwebFormat = &textFormat{
	name:       "ezweb",
	fromHas:    []string{"@ezweb.ne.jp", "@au.com"},
	subjectHas: []string{"mail system error - returned mail"},
	stop:       []string{"Original message follows", "------ Original message", "Content-Type: message/rfc822"},
	rcpt:       rcptRule{angle: true, prefixes: []string{"Recipient:"}},
	preDiag:    true,
	skip:       []string{"----------"},
	hints: []phraseHint{
		{"the user(s) account is temporarily over quota", "mailboxfull"},
		{"the user(s) account is disabled", "suspend"},
		{"the user(s) account is temporarily limited", "suspend"},
		{"your message was not delivered within", "expired"},
		{"remote host is not responding", "expired"},
	},
	hintsBare: []phraseHint{
		{"each of the following recipients was rejected by a remote", "filtered"},
		{"the following recipients did not receive this message", "userunknown"},
	},
}

var kddiFormat = &textFormat{
	name:     "kddi",
	fromHas:  []string{"dion.ne.jp", "@kddi.", "no-reply@"},
	bodyHas:  []string{"Could not be delivered to:"},
	needBody: true,
	rcpt:     rcptRule{prefixes: []string{"Could not be delivered to:"}},
	hints: []phraseHint{
		{"as their mailbox is full", "mailboxfull"},
		{"due to the following smtp relay error", "networkerror"},
		{"as the remote domain doesnt exist", "hostunknown"},
		{"as the remote domain doesn't exist", "hostunknown"},
	},
}

var biglobeFormat = &textFormat{
	name:     "biglobe",
	fromHas:  []string{"@biglobe.ne.jp", "@mail.biglobe.ne.jp"},
	bodyHas:  []string{"The following addresses had delivery problems", "Non-delivered information"},
	needBody: true,
	start:    []string{"The following addresses had delivery problems"},
	rcpt:     rcptRule{bare: true},
	skip:     []string{"----- Non-delivered information -----"},
	hints: []phraseHint{
		{"the number of messages in recipient's mailbox exceeded the local limit", "mailboxfull"},
		{"the email address you sent to does not exist", "userunknown"},
		{"the domain name of the address is invalid", "hostunknown"},
	},
}

func init() { registerText(25, ezwebFormat, kddiFormat, biglobeFormat) }
