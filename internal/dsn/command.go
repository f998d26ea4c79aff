package dsn

import "strings"

// The SMTP command a remote server answered with an error (Result.Command):
// MTAs name it in words ("in reply to RCPT TO command", "after end of
// data") or show it in a session transcript (">>> DATA" then "<<< 550 ...").

// commandPhrases map lower-case phrases to the command they name, most
// specific first.
var commandPhrases = []struct {
	phrase, command string
}{
	{"in reply to end of data command", "DATA"},
	{"in reply to data command", "DATA"},
	{"after end of data", "DATA"},
	{"after data", "DATA"},
	{"after i sent the message", "DATA"},
	{"in reply to rcpt to command", "RCPT"},
	{"after rcpt to", "RCPT"},
	{"does not like recipient", "RCPT"},
	{"most progress was rcpt to response", "RCPT"},
	{"in reply to mail from command", "MAIL"},
	{"after mail from", "MAIL"},
	{"does not like sender", "MAIL"},
	{"in reply to ehlo command", "EHLO"},
	{"after ehlo", "EHLO"},
	{"in reply to helo command", "HELO"},
	{"after helo", "HELO"},
	{"in reply to starttls command", "STARTTLS"},
	{"after starttls", "STARTTLS"},
	{"after initial connection", "CONN"},
	{"in reply to initial", "CONN"},
	{"while connected to", ""},
	{"connected but greeting failed", "CONN"},
	{"after pipelined data", "DATA"},
	{"after pipelined rcpt to", "RCPT"}, // Exim with PIPELINING
	{"after pipelined mail from", "MAIL"},
	{"after pipelined end of data", "DATA"},
	{"did not like our rcpt to", "RCPT"}, // DragonFly Mail Agent
	{"did not like our mail from", "MAIL"},
	{"did not like our data", "DATA"},
	{"did not like our ehlo", "EHLO"},
	{"did not like our helo", "HELO"},
	{"in reply to bdat command", "DATA"},
}

// commandAnchors are the words every command phrase starts with; commandIn
// looks only where one occurs.
var commandAnchors = []string{"in reply to", "after", "does not like", "did not like", "most progress", "connected but"}

// commandIn returns the command a lower-case text names, or "". Runs of
// white space (folded lines) in the text match a single space of a phrase.
func commandIn(l string) string {
	if l == "" {
		return ""
	}
	best, bestAt := "", -1
	for _, a := range commandAnchors {
		off := 0
		for {
			i := strings.Index(l[off:], a)
			if i < 0 {
				break
			}
			i += off
			off = i + len(a)
			if bestAt >= 0 && i >= bestAt {
				break
			}
			for _, p := range commandPhrases {
				if p.command != "" && strings.HasPrefix(p.phrase, a) && matchFolded(l[i:], p.phrase) {
					best, bestAt = p.command, i
					break
				}
			}
			if bestAt == i {
				break
			}
		}
	}
	return best
}

// matchFolded reports whether s starts with phrase, where a space of the
// phrase matches any run of white space in s.
func matchFolded(s, phrase string) bool {
	j := 0
	for i := 0; i < len(phrase); i++ {
		c := phrase[i]
		if c == ' ' {
			if j >= len(s) || (s[j] != ' ' && s[j] != '\n' && s[j] != '\t') {
				return false
			}
			for j < len(s) && (s[j] == ' ' || s[j] == '\n' || s[j] == '\t') {
				j++
			}
			continue
		}
		if j >= len(s) || s[j] != c {
			return false
		}
		j++
	}
	return true
}

// transcriptCommand reads a session transcript (">>> CMD" lines followed by
// "<<< 5xx" replies, as Sendmail and others print it) and returns the
// command that drew the first error reply concerning rcpt. When no error
// reply names rcpt, the first error's command is returned only if single
// (the message has one recipient): in a multi-recipient transcript it
// belongs to another recipient's exchange.
func transcriptCommand(l, rcpt string, single bool) string {
	if !strings.Contains(l, ">>> ") {
		return ""
	}
	last, first := "", ""
	it := lineIter{s: l}
	for {
		line, _, ok := it.next()
		if !ok {
			break
		}
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, ">>> "):
			last = smtpVerb(t[4:])
		case strings.HasPrefix(t, "<<< ") && len(t) > 5 && (t[4] == '4' || t[4] == '5'):
			if last == "" {
				continue
			}
			if rcpt != "" && strings.Contains(t, rcpt) {
				return last
			}
			if first == "" {
				first = last
			}
		}
	}
	if !single && rcpt != "" {
		return ""
	}
	return first
}

// smtpVerb maps the start of an SMTP command line to its verb.
func smtpVerb(s string) string {
	switch {
	case strings.HasPrefix(s, "rcpt"):
		return "RCPT"
	case strings.HasPrefix(s, "mail"):
		return "MAIL"
	case strings.HasPrefix(s, "data"), strings.HasPrefix(s, "bdat"), s == ".", strings.HasPrefix(s, "(end of data)"):
		return "DATA"
	case strings.HasPrefix(s, "ehlo"):
		return "EHLO"
	case strings.HasPrefix(s, "helo"):
		return "HELO"
	case strings.HasPrefix(s, "starttls"):
		return "STARTTLS"
	}
	return ""
}

// commandOf finds the command for result r of message m: in the
// diagnostic, else in the transcript, else in the text around the
// recipient's address, else anywhere in a single-recipient text.
func commandOf(m *message, r *Result, single bool) string {
	if c := commandIn(lowerASCII(r.Diagnostic)); c != "" {
		return c
	}
	t := m.lowerText()
	if t == "" {
		return ""
	}
	if m.origOffset > 0 && m.origOffset < len(t) {
		t = t[:m.origOffset]
	}
	rcpt := lowerASCII(r.Recipient)
	if c := transcriptCommand(t, rcpt, single); c != "" {
		return c
	}
	if rcpt != "" {
		if i := strings.Index(t, rcpt); i >= 0 {
			end := min(len(t), i+600)
			// The window is the recipient's own block: it ends at a blank
			// line or at the next recipient line ("<other@example.com>:")
			// at the left margin, whose words concern another recipient.
			if j := strings.Index(t[i:end], "\n\n"); j > 0 {
				end = i + j
			}
			if j := strings.Index(t[i:end], "\n<"); j > 0 {
				end = i + j
			}
			if c := commandIn(t[i:end]); c != "" {
				return c
			}
		}
	}
	if single {
		return commandIn(t)
	}
	return ""
}
