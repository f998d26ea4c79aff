package dsn

// OpenSMTPD (smtpd(8) bounce.c): Subject "Delivery status notification:
// error" (or ": delay", ": warning"), "This is the MAILER-DAEMON, please DO
// NOT REPLY to this e-mail.", then "user@example.com: error text" per
// recipient and the original after "Below is a copy of the original
// message:". The fixed error texts come from mta.c and lka.c.

var opensmtpdFormat = &textFormat{
	name:       "opensmtpd",
	subjectHas: []string{"delivery status notification: "},
	bodyHas:    []string{"This is the MAILER-DAEMON, please DO NOT REPLY to this e-mail.", "An error has occurred while attempting to deliver a message for"},
	needBody:   true,
	start:      []string{"following list of recipients:", "An error has occurred while attempting to deliver"},
	stop:       []string{"Below is a copy of the original message:"},
	rcpt:       rcptRule{lead: true},
	hints: []phraseHint{
		{"envelope expired", "expired"},
		{"invalid domain name", "hostunknown"},
		{"domain not found", "hostunknown"},
		{"no mx found for domain", "hostunknown"},
		{"loop detected", "systemerror"},
		{"network error on destination mxs", "networkerror"},
		{"destination seem to reject all mails", "rejected"},
		{"delivery to a local user is not allowed", "norelaying"},
	},
	delayed: []string{"is delayed for more than", "temporary failure, delivery will be retried"},
}

func init() { registerText(35, opensmtpdFormat) }
