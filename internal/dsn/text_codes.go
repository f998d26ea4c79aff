package dsn

import "strings"

// Helpers shared by the free-text recognisers: addresses, SMTP reply codes
// and RFC 3463 enhanced status codes found in free text. Hand-written
// scanners rather than regular expressions: they run on every text bounce.

// cleanAddr returns s as a bare mailbox address (angle brackets, quotes,
// "mailto:" and "rfc822;" removed, domain lower-cased) or "" when s is not
// one.
func cleanAddr(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "mailto:")
	if len(s) > 7 && strings.EqualFold(s[:7], "rfc822;") {
		s = strings.TrimSpace(s[7:])
	}
	s = strings.Trim(s, "<>\"'()[],;:. ")
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == '<' || c == '>' || c == '(' || c == ')' || c == ',' || c == ';' || c == '[' || c == ']' || c == '\\' || c >= 0x7f {
			return ""
		}
	}
	dom := s[at+1:]
	if strings.IndexByte(dom, '.') < 0 && !strings.EqualFold(dom, "localhost") {
		return ""
	}
	local := s[:at]
	if strings.IndexByte(local, '@') >= 0 {
		return ""
	}
	// A quoted local part ("bob.smith"@example.com, or half of it after
	// the trim above) names the same mailbox as the unquoted dot-atom
	// when the quotes protect nothing (RFC 5321 section 4.1.2): drop them;
	// keep them around one that needs them ("john..doe").
	if strings.IndexByte(local, '"') >= 0 {
		u := strings.ReplaceAll(local, `"`, "")
		if u == "" {
			return ""
		}
		local = u
		if !dotAtom(u) {
			local = `"` + u + `"`
		}
	}
	return local + "@" + strings.ToLower(dom)
}

// dotAtom reports whether s is an RFC 5322 dot-atom (atext runs joined by
// single dots), the local part that needs no quoting.
func dotAtom(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlpha(c) || isDigit(c) || c == '.' || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// firstAddr finds the first address in s: inside <...> or a bare word with
// an @. It returns the address and the text after it.
func firstAddr(s string) (string, string) {
	for i := 0; i < len(s); i++ {
		if s[i] != '@' {
			continue
		}
		// expand to word boundaries
		b := i
		for b > 0 && !addrStop(s[b-1]) {
			b--
		}
		e := i + 1
		for e < len(s) && !addrStop(s[e]) {
			e++
		}
		if a := cleanAddr(s[b:e]); a != "" {
			rest := s[e:]
			rest = strings.TrimPrefix(rest, ">")
			return a, rest
		}
	}
	return "", s
}

// addrStop reports whether c ends an address word.
func addrStop(c byte) bool {
	switch c {
	case ' ', '\t', '<', '>', '"', '\'', '(', ')', ',', ';', '[', ']', ':', '/', '=':
		return true
	}
	return c >= 0x80
}

// diagCodes finds the RFC 3463 enhanced status code and the RFC 5321 reply
// code in a diagnostic text. A code pair ("550 5.1.1", "550-5.1.1") wins;
// otherwise the first enhanced status code (also in qmail's "(#5.1.1)")
// and the first three-digit reply code that starts a sentence.
func diagCodes(s string) (status, reply string) {
	firstStatus, firstReply := "", ""
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '2' && c != '4' && c != '5' {
			continue
		}
		if i > 0 {
			p := s[i-1]
			if isDigit(p) || p == '.' || isAlpha(p) || p == '-' && i > 1 && isDigit(s[i-2]) {
				continue
			}
		}
		if st, n := statusAt(s, i); n > 0 {
			if firstStatus == "" {
				firstStatus = st
			}
			i += n - 1
			continue
		}
		if rc, n := replyAt(s, i); n > 0 {
			// a pair: reply code followed by a status of the same class
			j := i + n
			for j < len(s) && (s[j] == ' ' || s[j] == '-' || s[j] == ':') {
				j++
			}
			if st, m := statusAt(s, j); m > 0 && st[0] == rc[0] {
				return st, rc
			}
			if firstReply == "" && (i == 0 || s[i-1] == ' ' || s[i-1] == ':' || s[i-1] == '(' || s[i-1] == '\t' || s[i-1] == '"' || s[i-1] == '#' || s[i-1] == '<' || s[i-1] == '>' || s[i-1] == '[') {
				firstReply = rc
			}
			i += n - 1
		}
	}
	// Without a pair both are kept, even a temporary reply code beside a
	// permanent status (or the reverse): classify weighs them.
	return firstStatus, firstReply
}

// statusAt reads an enhanced status code ("5.1.1", "4.7.26", "5.7.509")
// starting at s[i]; n is its length or 0.
func statusAt(s string, i int) (string, int) {
	if i+5 > len(s) {
		return "", 0
	}
	c := s[i]
	if (c != '2' && c != '4' && c != '5') || s[i+1] != '.' {
		return "", 0
	}
	j := i + 2
	k := j
	for k < len(s) && k-j < 3 && isDigit(s[k]) {
		k++
	}
	if k == j || k >= len(s) || s[k] != '.' {
		return "", 0
	}
	m := k + 1
	e := m
	for e < len(s) && e-m < 3 && isDigit(s[e]) {
		e++
	}
	if e == m {
		return "", 0
	}
	// must not continue as a longer number or an IP address
	if e < len(s) && (isDigit(s[e]) || s[e] == '.' && e+1 < len(s) && isDigit(s[e+1])) {
		return "", 0
	}
	return s[i:e], e - i
}

// replyAt reads a three-digit failure reply code at s[i] (4xx, 5xx) followed by
// a space, '-', ':' or the end; n is 3 or 0.
func replyAt(s string, i int) (string, int) {
	if i+3 > len(s) || (s[i] != '4' && s[i] != '5') || !isDigit(s[i+1]) || !isDigit(s[i+2]) {
		return "", 0
	}
	if s[i+1] > '5' {
		return "", 0
	}
	if i+3 < len(s) {
		switch s[i+3] {
		case ' ', '-', ':', '\t', ')', ']', ',':
		default:
			return "", 0
		}
		if s[i+3] == '-' && i+4 < len(s) && !isDigit(s[i+4]) && s[i+4] != ' ' {
			return "", 0
		}
	}
	return s[i : i+3], 3
}

// remoteHostIn returns the remote host named in a diagnostic ("host
// mx.example.com [192.0.2.1]", "remote host mx.example.com said"), or "".
func remoteHostIn(s string) string {
	i := strings.Index(s, "host ")
	for i >= 0 {
		rest := s[i+5:]
		w, _, _ := strings.Cut(rest, " ")
		// Postfix writes "host mx.example.com[192.0.2.5] said:": the
		// name ends at the bracketed address.
		w, _, _ = strings.Cut(w, "[")
		w = strings.Trim(w, "[]():,")
		if strings.IndexByte(w, '.') > 0 && !isDigit(w[0]) && strings.IndexByte(w, '@') < 0 {
			return strings.ToLower(w)
		}
		j := strings.Index(rest, "host ")
		if j < 0 {
			break
		}
		i += 5 + j
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
