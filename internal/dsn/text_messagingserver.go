package dsn

// Oracle (Sun Java System, iPlanet) Messaging Server and PMDF when their
// report lacks a usable delivery-status part: "Your message cannot be
// delivered to the following recipients:" then per recipient "Recipient
// address: addr", "Reason: ...", "Diagnostic code: smtp; ...", "Remote
// system: ...".

var messagingServerFormat = &textFormat{
	name:    "messagingserver",
	bodyHas: []string{"Your message cannot be delivered to the following recipients:", "This report relates to a message you sent with the following header fields"},
	start:   []string{"cannot be delivered to the following recipients:"},
	stop:    []string{"Original-envelope-id:", "Reporting-MTA:", "Action:"},
	rcpt:    rcptRule{prefixes: []string{"Recipient address:"}},
	skip:    []string{"Remote system:", "Original address:"},
}

func init() { registerText(58, messagingServerFormat) }
