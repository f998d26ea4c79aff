package dsn

// HCL (IBM, Lotus) Notes and Domino.
//   - Notes client-side notices: Subject "Undeliverable message",
//     "------- Failure Reasons --------", the reason line(s), the address,
//     then "------- Returned Message --------".
//   - Domino SMTP notices: Subject "DELIVERY FAILURE: ...", "Your message
//     ... was not delivered to:" the address indented, "because:" and the
//     reason.

var notesHints = []phraseHint{
	{"not listed in public name & address book", "userunknown"},
	{"not listed in domino directory", "userunknown"},
	{"not listed in the domino directory", "userunknown"},
	{"no such user", "userunknown"},
	{"cannot route mail to user", "userunknown"},
	{"ドメイン名が見つかりません", "hostunknown"},
	{"宛先が見つかりません", "userunknown"},
}

var notesFormat = &textFormat{
	name:       "notes",
	subjectHas: []string{"undeliverable message"},
	bodyHas:    []string{"------- Failure Reasons"},
	needBody:   true,
	start:      []string{"------- Failure Reasons"},
	stop:       []string{"------- Returned Message"},
	rcpt:       rcptRule{bare: true},
	preDiag:    true,
	skip:       []string{"------- Failure Reasons"},
	hints:      notesHints,
}

var dominoFormat = &textFormat{
	name:       "domino",
	subjectHas: []string{"delivery failure:", "delivery report:"},
	bodyHas:    []string{"was not delivered to:"},
	needBody:   true,
	start:      []string{"was not delivered to:"},
	rcpt:       rcptRule{bare: true},
	skip:       []string{"because:"},
	hints:      notesHints,
}

func init() { registerText(65, notesFormat, dominoFormat) }
