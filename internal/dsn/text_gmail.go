package dsn

// Gmail's own (pre-2016) text notifications, still sent by some Google
// paths: From "Mail Delivery Subsystem <mailer-daemon@googlemail.com>",
// "Delivery to the following recipient failed permanently:" (or "has been
// delayed:"), the address indented on the next line, "Technical details of
// permanent failure:" and Google's sentence, then the remote server's
// reply, the original after "----- Original message -----".
// Google Groups' refusal ("the group you tried to contact may not exist, or
// you may not have permission to post") comes from the same sender in the
// poster's language and names the group only in X-Failed-Recipients.

var gmailHints = []phraseHint{
	{"the email account that you tried to reach does not exist", "userunknown"},
	{"the email account that you tried to reach is over quota", "mailboxfull"},
	{"the email account that you tried to reach is disabled", "suspend"},
	{"dns error: domain name not found", "hostunknown"},
	{"dns error: dns server returned answer with no data", "hostunknown"},
	{"dns error: could not contact dns servers", "networkerror"},
	{"the recipient server did not accept our requests to connect", "expired"},
	{"delivery to the following recipient has been delayed", "expired"},
	{"message rejected due to local policy", "policyviolation"},
	{"mail loop", "systemerror"},
	{"too many hops", "systemerror"},
}

// gmailStates are the "(state N)" markers Gmail's older notices append to
// the remote server's reply: the SMTP state in which the remote server
// refused. 13 is the greeting/EHLO, 14 RCPT TO, 15, 17 and 18 the message
// data; 6, 8 and 9 are failures to set up TLS or authentication with the
// remote server, 12 a relay it refused.
var gmailStates = []phraseHint{
	{"(state 13)", "EHLO"},
	{"(state 14)", "RCPT"},
	{"(state 15)", "DATA"},
	{"(state 17)", "DATA"},
	{"(state 18)", "DATA"},
}

// gmailStateHints give each state its reason where the reply's own code
// says no more than its class: a refusal of the message data is the
// recipient side's filter, a refusal at EHLO a block of our host.
var gmailStateHints = []phraseHint{
	{"(state 6)", "systemerror"},
	{"(state 8)", "systemerror"},
	{"(state 9)", "systemerror"},
	{"(state 12)", "norelaying"},
	{"(state 13)", "blocked"},
	{"(state 14)", "userunknown"},
	{"(state 15)", "filtered"},
	{"(state 17)", "filtered"},
	{"(state 18)", "filtered"},
}

var googleGroupsFormat = &textFormat{
	name:     "googlegroups",
	fromHas:  []string{"@googlemail.com", "@google.com"},
	bodyHas:  []string{"Google Groups", "groups.google.com", "Google グループ", "Google-Gruppen", "Google Grupos", "Grupos de Google", "Google 网上论坛"},
	needBody: true,
	stop:     []string{"----- Original message -----"},
	// no recipient line: the group is named in X-Failed-Recipients.
	rcpt:         rcptRule{},
	fallbackRcpt: true,
	hint:         "rejected",
}

var gmailFormat = &textFormat{
	name:     "gmail",
	fromHas:  []string{"@googlemail.com", "@gmail.com"},
	bodyHas:  []string{"Delivery to the following recipient", "Delivery to these recipients or groups"},
	needBody: true,
	start: []string{
		"Delivery to the following recipient failed permanently",
		"Delivery to the following recipients failed permanently",
		"Delivery to the following recipient has been delayed",
		"Delivery to the following recipient failed",
	},
	stop:             []string{"----- Original message -----", "----- Message header follows -----"},
	rcpt:             rcptRule{bare: true},
	skip:             []string{"Technical details of "},
	hints:            gmailHints,
	hintsGenericCode: gmailStateHints,
	commands:         gmailStates,
	delayed:          []string{"has been delayed"},
}

// gmailNoticeFormat reads the current Gmail / Google Workspace notice
// ("** Address not found **", "Your message wasn't delivered to X because
// ...", "The response from the remote server was:" and the reply; "There
// was a temporary problem delivering your message to X. Gmail will retry
// ..." for delays) when its delivery-status part is missing.
var gmailNoticeFormat = &textFormat{
	name:     "gmail",
	fromHas:  []string{"@googlemail.com", "@google.com"},
	bodyHas:  []string{"Your message wasn't delivered to ", "There was a temporary problem delivering your message to ", "There was a problem delivering your message to "},
	needBody: true,
	stop:     []string{"----- Original message -----", "----- Message header follows -----"},
	rcpt: rcptRule{
		contains: []string{"Your message wasn't delivered to ", "There was a temporary problem delivering your message to ", "There was a problem delivering your message to "},
		keepLine: true,
	},
	skip: []string{"Learn more here:", "LEARN MORE"},
	hints: append([]phraseHint{
		{"because the address couldn't be found", "userunknown"},
		{"couldn't be found, or is unable to receive mail", "hostunknown"},
		{"inbox is full", "mailboxfull"},
		{"out of storage space", "mailboxfull"},
	}, gmailHints...),
	delayed: []string{"There was a temporary problem delivering", "Gmail will retry for"},
}

func init() { registerText(10, googleGroupsFormat, gmailFormat, gmailNoticeFormat) }
