package dsn

// GMX, WEB.DE and 1&1 IONOS (kundenserver.de) run an Exim-derived mailer
// with their own template: "This message was created automatically by mail
// delivery software." then the failed address unindented (bare, quoted or
// in angle brackets, often with a trailing colon), the error lines
// ("SMTP error from remote server ...", "Reason:"), and the original's
// header after "--- The header of the original message is following. ---".

var gmxFormat = &textFormat{
	name:     "gmx",
	fromHas:  []string{"@mail.gmx.", "@gmx.", "@kundenserver.", "@web.de", "@1and1.", "@ionos."},
	bodyHas:  []string{"--- The header of the original message is following. ---"},
	needBody: true,
	start:    []string{"This message was created automatically by mail delivery software", "A message that you sent could not be delivered"},
	stop:     []string{"The header of the original message is following"},
	rcpt:     rcptRule{bare: true, angle: true},
	skip:     []string{"For the following reason:", "Reason:"},
	hints: []phraseHint{
		{"delivery retry timeout exceeded", "expired"},
		{"mail size limit exceeded", "mesgtoobig"},
		{"mailbox quota exceeded", "mailboxfull"},
		{"mailbox is full", "mailboxfull"},
	},
}

func init() { registerText(45, gmxFormat) }
