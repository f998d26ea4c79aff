package dsn

// Exim (https://www.exim.org/exim-html-current/doc/html/spec_html/ch-message_processing.html
// and the bounce templates of its "bounce_message_file"): Subject "Mail
// delivery failed", From "Mail Delivery System <Mailer-Daemon@...>", an
// X-Failed-Recipients header, each failed address indented by two spaces
// and its error lines by four, and the original after "------ This is a
// copy of the message, including all the headers. ------". Mail.ru and
// many hosting providers run Exim with translated templates.

var eximHints = []phraseHint{
	{"malformed address", "syntaxerror"},
	{"all relevant mx records point to non-existent hosts", "hostunknown"},
	{"unrouteable address", "hostunknown"},
	{"unroutable address", "hostunknown"},
	{"all host address lookups failed permanently", "hostunknown"},
	{"an mx or srv record indicated no smtp service", "notaccept"},
	{"mailbox is full", "mailboxfull"},
	{"error: quota exceed", "mailboxfull"},
	{"delivery to file forbidden", "systemerror"},
	{"delivery to pipe forbidden", "systemerror"},
	{"local delivery failed", "systemerror"},
	{"lmtp error after ", "systemerror"},
	{"too many \"received\" headers", "contenterror"},
	{"unknown mail transport error", "mailererror"},
	{"child process of ", "mailererror"},
	{"retry timeout exceeded", "expired"},
	{"retry time not reached for any host after a long failure period", "expired"},
	{"all hosts have been failing for a long time", "expired"},
	{"was frozen on arrival", "expired"},
	{"has been frozen", "expired"},
	{"no action is required on your part", "expired"},
	{"no host found for existing smtp connection", "notaccept"},
	{"all host address lookups failed temporarily", "networkerror"},
	{"smtp timeout while connected to", "networkerror"},
	{"remote host address is the local host", "networkerror"},
}

var eximFormat = &textFormat{
	name:       "exim",
	subjectHas: []string{"mail delivery failed", "mail failure", "warning: message ", "message frozen", "error(s) in forwarding or filtering"},
	fromHas:    []string{"mail delivery system"},
	bodyHas: []string{
		"This message was created automatically by mail delivery software",
		"address(es) failed:",
		"following address(es) have not yet been delivered",
		"incorrectly constructed:",
		"не может быть доставлено",
	},
	needBody: true,
	start: []string{
		"address(es) failed:",
		"have not yet been delivered",
		"has not yet been delivered",
		"incorrectly constructed:",
		"address(es) failed\n",
		"The following address failed:", // MXLogic
		// Mail.ru's Russian template: "К сожалению, Ваше письмо не может
		// быть доставлено одному или нескольким получателям:"
		"не может быть доставлено",
	},
	stop: []string{
		"This is a copy of the message",
		"This is a copy of your message",
		"The body of the message is",
		"Content-type: message/rfc822",
		"Content-Type: message/rfc822",
		"Included is a copy of the message header", // MXLogic
	},
	rcpt:         rcptRule{indent: 2},
	fallbackRcpt: true,
	skip:         []string{"(ultimately generated from", "(generated from "},
	hints:        eximHints,
	softExpiry:   true,
	delayed:      []string{"have not yet been delivered", "has not yet been delivered"},
}

func init() { registerText(50, eximFormat) }
