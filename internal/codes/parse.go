package codes

import "strings"

// Parsed is what ParseReply reads from a pasted reply line.
type Parsed struct {
	ReplyCode    string // RFC 5321 reply code, "" when none was found
	EnhancedCode string // RFC 3463 status code, "" when none was found
	Text         string // the reply text after the codes, continuation prefixes removed
}

// ParseReply finds the reply code and enhanced status code in a pasted
// line such as "451 4.3.0 Email server has ...", "451-4.3.0 ...",
// "host mx.example.com said: 550 5.1.1 <a@b>: ..." or "5.7.1 ...", and
// returns them with the text that follows. Continuation prefixes of
// multi-line replies ("550-5.7.1 ") are removed from the text. The first
// reply code followed by an enhanced code wins; otherwise the first
// enhanced code; otherwise a reply code at the start of a line or after
// ": " ("refused to talk to me: 421 Service not available").
func ParseReply(s string) Parsed {
	s = cleanText(s)
	reply, enh, end := parseCodes(s)
	return Parsed{ReplyCode: reply, EnhancedCode: enh, Text: strings.Trim(s[end:], " \t:-")}
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isAlnum(b byte) bool {
	return isDigit(b) || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}

// replyAt reports a reply code ("2yz" to "5yz") starting at i, and the
// index after it.
func replyAt(s string, i int) (string, int, bool) {
	if i+3 > len(s) || s[i] < '2' || s[i] > '5' || !isDigit(s[i+1]) || !isDigit(s[i+2]) {
		return "", 0, false
	}
	if i+3 < len(s) && (isAlnum(s[i+3]) || s[i+3] == '.') {
		return "", 0, false
	}
	return s[i : i+3], i + 3, true
}

// enhAt reports an enhanced status code ("4.7.500") starting at i, and the
// index after it. An IP address ("5.1.1.1") is not a status code.
func enhAt(s string, i int) (string, int, bool) {
	if i+5 > len(s) || (s[i] != '2' && s[i] != '4' && s[i] != '5') || s[i+1] != '.' {
		return "", 0, false
	}
	j := i + 2
	n := 0
	for j < len(s) && isDigit(s[j]) && n < 4 {
		j++
		n++
	}
	if n == 0 || n > 3 || j >= len(s) || s[j] != '.' {
		return "", 0, false
	}
	j++
	n = 0
	for j < len(s) && isDigit(s[j]) && n < 4 {
		j++
		n++
	}
	if n == 0 || n > 3 {
		return "", 0, false
	}
	if j < len(s) && (isAlnum(s[j]) || (s[j] == '.' && j+1 < len(s) && isDigit(s[j+1]))) {
		return "", 0, false
	}
	return s[i:j], j, true
}

// boundary reports whether a code may start at i (not inside a word,
// number or dotted name).
func boundary(s string, i int) bool {
	return i == 0 || !(isAlnum(s[i-1]) || s[i-1] == '.' || s[i-1] == '-' || s[i-1] == '_')
}

// parseCodes returns the reply and enhanced codes of s and the index where
// the reply text starts. It does not allocate.
func parseCodes(s string) (reply, enh string, end int) {
	lineReply, lineReplyEnd := "", 0
	firstEnh, firstEnhEnd := "", 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || !boundary(s, i) {
			continue
		}
		if r, j, ok := replyAt(s, i); ok {
			k := j
			if k < len(s) && (s[k] == ' ' || s[k] == '-') {
				k++
			}
			for k < len(s) && s[k] == ' ' {
				k++
			}
			if e, m, ok := enhAt(s, k); ok {
				return r, e, m
			}
			if lineReply == "" && (i == 0 || s[i-1] == '\n' || onlySpaceBefore(s, i) || (i >= 2 && s[i-2] == ':' && s[i-1] == ' ')) {
				lineReply, lineReplyEnd = r, j
			}
			continue
		}
		if firstEnh == "" {
			if e, m, ok := enhAt(s, i); ok {
				firstEnh, firstEnhEnd = e, m
			}
		}
	}
	if firstEnh != "" {
		return lineReply, firstEnh, firstEnhEnd
	}
	return lineReply, "", lineReplyEnd
}

func onlySpaceBefore(s string, i int) bool {
	for k := i - 1; k >= 0; k-- {
		switch s[k] {
		case ' ', '\t', '\r':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// cleanText removes the continuation prefixes of a multi-line reply
// ("550-5.7.1 " at the start of later lines, or in the middle of an
// unfolded Diagnostic-Code) and collapses line breaks, so that a reply
// fragment split over lines can be found. It returns s itself, without
// allocating, when there is nothing to remove.
func cleanText(s string) string {
	if !needsClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	seen := false // a code pair has been written
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\n' || c == '\r' || c == '\t' {
			space = true
			i++
			continue
		}
		if isDigit(c) && boundary(s, i) {
			if _, j, ok := replyAt(s, i); ok && j < len(s) && (s[j] == '-' || s[j] == ' ') {
				if _, m, ok := enhAt(s, j+1); ok {
					if seen {
						i = m
						space = true
						continue
					}
					seen = true
				} else if s[j] == '-' && seen {
					i = j + 1
					space = true
					continue
				}
			}
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// needsClean reports whether s has line breaks or a continuation prefix
// ("ddd-d.d.d") after its start.
func needsClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' || c == '\r' || c == '\t' {
			return true
		}
		if c == '-' && i >= 3 && i+1 < len(s) && isDigit(s[i+1]) && isDigit(s[i-1]) {
			if _, _, ok := replyAt(s, i-3); ok && boundary(s, i-3) {
				if _, _, ok := enhAt(s, i+1); ok && i-3 > 0 {
					return true
				}
			}
		}
		if c == ' ' && i+1 < len(s) && s[i+1] == ' ' {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains sub, comparing ASCII letters
// without case. sub must be lower case. It does not allocate; candidate
// positions are found with strings.IndexByte for the lower- and upper-case
// forms of sub's first byte.
func containsFold(s, sub string) bool {
	n := len(sub)
	if n == 0 {
		return true
	}
	if n > len(s) {
		return false
	}
	lo, up := sub[0], sub[0]
	if lo >= 'a' && lo <= 'z' {
		up = lo - 32
	}
	last := len(s) - n // last possible start
	nextLo, nextUp := -1, -1
	if up == lo {
		nextUp = len(s)
	}
	for i := 0; i <= last; {
		if nextLo < i {
			if k := strings.IndexByte(s[i:last+1], lo); k >= 0 {
				nextLo = i + k
			} else {
				nextLo = len(s)
			}
		}
		if nextUp < i {
			if k := strings.IndexByte(s[i:last+1], up); k >= 0 {
				nextUp = i + k
			} else {
				nextUp = len(s)
			}
		}
		p := nextLo
		if nextUp < p {
			p = nextUp
		}
		if p > last {
			return false
		}
		if equalFoldTail(s[p+1:p+n], sub[1:]) {
			return true
		}
		i = p + 1
	}
	return false
}

// equalFoldTail compares s with the lower-case t, ASCII letters without case.
func equalFoldTail(s, t string) bool {
	for j := 0; j < len(t); j++ {
		if lower(s[j]) != t[j] {
			return false
		}
	}
	return true
}

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 32
	}
	return b
}
