package dsn

// Courier mail server notices (courier/module.esmtp, courierdsn) whose
// delivery-status part is missing or was stripped: From "Courier mail
// server at host", Subject "NOTICE: mail delivery status.", "This is a
// delivery status notification from host, running the Courier mail
// server", a banner ("UNDELIVERABLE MAIL", "DELAYED MAIL"), then per
// recipient "<user@example.com>:" at the left margin, the remote host
// indented, and the SMTP exchange as ">>> RCPT TO:<...>" / "<<< 550 ...".
// The notice ends with "If your message was also sent to additional
// recipients, their delivery status is not included in this report."

var courierFormat = &textFormat{
	name:       "courier",
	fromHas:    []string{"courier mail server at"},
	subjectHas: []string{"notice: mail delivery status"},
	bodyHas:    []string{"running the Courier mail server", "Your message to the following recipients cannot be delivered:"},
	needBody:   true,
	start:      []string{"Your message to the following recipients", "UNDELIVERABLE MAIL", "DELAYED MAIL"},
	stop:       []string{"If your message was also sent to additional recipients", "Reporting-MTA:"},
	rcpt:       rcptRule{angle: true},
	delayed:    []string{"DELAYED MAIL", "has not yet been delivered", "will continue to be attempted"},
}

func init() { registerText(42, courierFormat) }
