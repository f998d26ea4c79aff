package dsn

// fml (the Japanese mailing-list manager, X-MLServer "fml [fml 4.0 ...]"):
// the list refuses a post in one sentence naming the list address ("You
// are not a member of this mailing list <list@example.org>.", "Duplicated
// Message-ID in <...>.") followed by the returned message.

var fmlFormat = &textFormat{
	name:      "fml",
	headerHas: []headerMark{{name: "X-MLServer", has: "fml"}},
	rcpt: rcptRule{
		contains: []string{"not a member of this mailing list", "Duplicated Message-ID", "is not a member", "mailing list is closed", "rejected by the mailing list"},
		keepLine: true,
	},
	stop: []string{"Original mail as follows:", "Original mail as follows"},
	hints: []phraseHint{
		{"not a member", "rejected"},
		{"mailing list is closed", "rejected"},
		{"rejected by the mailing list", "rejected"},
		{"duplicated message-id", "systemerror"},
		{"loop alert", "systemerror"},
	},
}

func init() { registerText(15, fmlFormat) }
