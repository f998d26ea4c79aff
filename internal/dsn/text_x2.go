package dsn

// Two unnamed but widespread appliance formats (Sisimai's X2 and X3):
//   - X2 (qmail-like, used by Yahoo! Japan relays and others): "Message
//     from example.com.", "Unable to deliver message to the following
//     address(es).", then "<addr>:" and the reason, "--- Original message
//     follows.".
//   - X3: "This is an automatically generated Delivery Status
//     Notification.", "Delivery to the following recipients failed
//     permanently:", "   * addr", "Technical details:" and the SMTP reply.

var x2Format = &textFormat{
	name:    "x2",
	bodyHas: []string{"Unable to deliver message to the following address(es)."},
	start:   []string{"Unable to deliver message to the following address(es)."},
	stop:    []string{"Original message follows."},
	rcpt:    rcptRule{angle: true},
	// X2 is not qmail: its texts carry no qmail-remote sentences to map,
	// and the reason is read from the reply text itself (a give-up "in the
	// queue too long" is expired whatever the last error was).
	hints: []phraseHint{
		{"this account has been disabled or discontinued", "suspend"},
		{"doesn't have a ", "userunknown"},
		{"resources temporarily unavailable", "expired"},
		{"mailbox size limit exceeded", "mailboxfull"},
		{"over quota", "mailboxfull"},
	},
}

var x3Format = &textFormat{
	name: "x3",
	// "Delevery" is the appliance's own misspelling in some versions.
	fromHas: []string{"mail.delivery.system@"},
	// Hotmail/Outlook.com's older notice ("Delivery to the following
	// recipients failed." and the addresses indented) has the same shape.
	bodyHas: []string{"to the following recipients failed permanently:", "to the following recipients was aborted", "Delivery to the following recipients failed."},
	start:   []string{"to the following recipients"},
	rcpt:    rcptRule{prefixes: []string{"* "}, bare: true},
	skip:    []string{"=====", "Technical details:"},
}

func init() { registerText(85, x2Format, x3Format) }
