package dsn

// (File name avoids the _dragonfly suffix: Go reads it as a GOOS build constraint.)

// DragonFly Mail Agent (dma, the DragonFly/FreeBSD/Debian "dma" package):
// body "This is the DragonFly Mail Agent vX at host.", "There was an error
// delivering your mail to <user@example.com>.", the remote reply, then
// "Message headers follow." or "Original message follows.".

var dragonflyFormat = &textFormat{
	name:       "dragonfly",
	subjectHas: []string{"mail delivery failed"},
	bodyHas:    []string{"This is the DragonFly Mail Agent", "There was an error delivering your mail to"},
	start:      []string{"There was an error delivering your mail to"},
	stop:       []string{"Message headers follow", "Original message follows"},
	rcpt:       rcptRule{contains: []string{"There was an error delivering your mail to"}},
	hints: []phraseHint{
		{"could not deliver for the last", "expired"},
		{"dns lookup failure", "hostunknown"},
		{"unable to connect", "networkerror"},
	},
}

func init() { registerText(20, dragonflyFormat) }
