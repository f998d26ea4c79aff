package dsn

// qmail and its derivatives (netqmail, notqmail, vpopmail, s/qmail):
// Subject "failure notice", body "Hi. This is the qmail-send program at
// host.", each failed address on its own line as "<user@example.com>:"
// followed by the error lines, qmail's own sentences ending in "(#5.1.1)"
// style codes, and the original after "--- Below this line is a copy of the
// message." (or "--- Enclosed is a copy of the message."). The fixed
// sentences come from qmail-remote.c and qmail-local.c.

var qmailHints = []phraseHint{
	{"no mailbox here by that name", "userunknown"},
	{"sorry, i couldn't find any host named", "hostunknown"},
	{"sorry, i couldn't find any host by that name", "hostunknown"},
	{"sorry, i couldn't find a mail exchanger or ip address", "notaccept"},
	// the receiving host lists itself as MX but does not accept the domain:
	// its own misconfiguration.
	{"although i'm listed as a best-preference mx or a for that host", "systemerror"},
	{"bad interpreter: no such file or directory", "systemerror"},
	{"sorry, i wasn't able to establish an smtp connection", "networkerror"},
	{"sorry, i don't accept mail for", "norelaying"},
	{"this message is looping", "systemerror"},
	{"unable to contact ldap server", "systemerror"},
	{"unable to switch to", "systemerror"},
	{"unable to run qmail-local", "systemerror"},
	{"unable to chdir to maildir", "systemerror"},
	{"temporary failure in ldap", "systemerror"},
	{"sorry, message has wrong owner", "systemerror"},
	{"over the allowed quota", "mailboxfull"},
	{"maildir has overdrawn his diskspace quota", "mailboxfull"},
	{"mailbox is full", "mailboxfull"},
	{"message is too big", "mesgtoobig"},
	{"mailaddress is administrative prohibited", "suspend"},
	{"mailaddress is administratively disabled", "suspend"},
	{"but my name was rejected", "blocked"},
	{"this message has been in the queue too long", "expired"},
}

// qmailBareHints are qmail-remote's sentences naming the refused MAIL FROM
// ("Connected to <ip> but sender was rejected."): they imply a reason only
// when the remote server's reply that follows carries no code, as its own
// words say more ("[TSS04] ... deferred due to unexpected volume or user
// complaints"). A refused HELO ("but my name was rejected") is our host's
// block whatever the reply says.
var qmailBareHints = []phraseHint{
	{"but sender was rejected", "rejected"},
}

var qmailFormat = &textFormat{
	name:       "qmail",
	subjectHas: []string{"failure notice"},
	bodyHas:    []string{"This is the qmail-send program", "I'm afraid I wasn't able to deliver your message", "This is the machine generated message from mail service"},
	start:      []string{"I'm afraid I wasn't able to deliver", "This is the qmail-send program", "This is the machine generated message from mail service"},
	stop:       []string{"Below this line is a copy of the message", "Below the next line is a copy of the message", "Enclosed is a copy of the message", "Below this line is the original", "Original message follows"},
	rcpt:       rcptRule{angle: true},
	hints:      qmailHints,
	hintsBare:  qmailBareHints,
}

func init() { registerText(40, qmailFormat) }
