package classify

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A phrase is matched against the normalised diagnostic: lower case (ASCII
// fast path; full Unicode lower-casing when the text has non-ASCII bytes),
// every run of white space turned into one space. A phrase is written in that
// same form, with two conventions:
//
//   - a leading or trailing space asks for a word boundary there: " ptr "
//     matches "no ptr record" and "(ptr)" but not "interrupted";
//   - " * " between two fragments lets up to maxGap bytes of anything sit
//     between them: "mailbox * full" matches "mailbox is currently full";
//   - " ~ " between two fragments stands for exactly one word (no space):
//     "553 ~ does not exist" matches "553 example.com does not exist" but
//     not "553 domain of sender address does not exist".
//
// matcher finds every rule whose phrase occurs in a text in one pass: it
// indexes rules by a hash of the first three bytes of their first fragment,
// so each text position costs one table load and, rarely, a few prefix
// comparisons. This keeps Classify within a few microseconds with hundreds
// of phrases, without regular expressions.
type matcher struct {
	rules   []compiledRule
	buckets [1 << hashBits][]uint16 // rule indexes by first-trigram hash
}

const (
	hashBits = 12
	maxGap   = 120  // bytes allowed for " * " gaps
	maxScan  = 8192 // bytes of diagnostic examined
)

type compiledRule struct {
	reason    string
	rank      int      // precedence of the reason; lower wins
	frags     [][]byte // fragments, in order
	oneWord   []bool   // oneWord[i]: fragment i+1 follows a " ~ " gap
	leftWord  bool     // word boundary required before the first fragment
	rightWord bool     // word boundary required after the last fragment
	phrase    string   // as written in the table, for tests and review
}

// match is one occurrence of a rule in a text: bytes [start,end).
type match struct {
	rule       int
	start, end int
}

func trigramHash(a, b, c byte) uint32 {
	h := uint32(a)*0x9E3779B1 ^ uint32(b)*0x85EBCA77 ^ uint32(c)*0xC2B2AE3D
	return (h ^ h>>15) & (1<<hashBits - 1)
}

// newMatcher compiles rules; rank gives each reason's precedence. It panics
// on a phrase whose first fragment is shorter than three bytes, which a test
// on the tables rules out.
func newMatcher(rules []phraseRule, rank map[string]int) *matcher {
	m := &matcher{}
	for _, r := range rules {
		p := r.phrase
		c := compiledRule{reason: r.reason, rank: rank[r.reason], phrase: p}
		if strings.HasPrefix(p, " ") {
			c.leftWord = true
		}
		if strings.HasSuffix(p, " ") {
			c.rightWord = true
		}
		for i, f := range strings.Split(strings.TrimSpace(p), " * ") {
			for j, g := range strings.Split(f, " ~ ") {
				c.frags = append(c.frags, []byte(g))
				if i+j > 0 {
					c.oneWord = append(c.oneWord, j > 0)
				}
			}
		}
		if len(c.frags[0]) < 3 {
			panic("classify: phrase too short to index: " + p)
		}
		f := c.frags[0]
		h := trigramHash(f[0], f[1], f[2])
		m.buckets[h] = append(m.buckets[h], uint16(len(m.rules)))
		m.rules = append(m.rules, c)
	}
	return m
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// find appends to dst every occurrence (the first per rule) of the
// matcher's rules in text, which must be normalised.
func (m *matcher) find(text []byte, dst []match) []match {
	n := len(text)
	for i := 0; i+3 <= n; i++ {
		b := m.buckets[trigramHash(text[i], text[i+1], text[i+2])]
		if len(b) == 0 {
			continue
		}
	rules:
		for _, ri := range b {
			r := &m.rules[ri]
			f := r.frags[0]
			if !bytes.HasPrefix(text[i:], f) {
				continue
			}
			if r.leftWord && i > 0 && isWordByte(text[i-1]) {
				continue
			}
			for _, prev := range dst {
				if prev.rule == int(ri) {
					continue rules
				}
			}
			end := i + len(f)
			for k, g := range r.frags[1:] {
				if r.oneWord[k] {
					// " ~ ": a space, one word, a space, then g.
					w := end + 1
					if end >= n || text[end] != ' ' {
						continue rules
					}
					for w < n && text[w] != ' ' {
						w++
					}
					if w == end+1 || w >= n || !bytes.HasPrefix(text[w+1:], g) {
						continue rules
					}
					end = w + 1 + len(g)
					continue
				}
				lim := end + maxGap + len(g)
				if lim > n {
					lim = n
				}
				k := bytes.Index(text[end:lim], g)
				if k < 0 {
					continue rules
				}
				end += k + len(g)
			}
			if r.rightWord && end < n && isWordByte(text[end]) {
				continue
			}
			dst = append(dst, match{rule: int(ri), start: i, end: end})
		}
	}
	return dst
}

// best returns the winning rule among matches, or -1: matches lying strictly
// inside a longer match are dropped first (so "recipient address rejected:
// access denied" hides its inner "access denied"), then the lowest rank
// wins, then the earliest in the text.
func (m *matcher) best(ms []match) int {
	win := -1
	for i, a := range ms {
		inner := false
		for j, b := range ms {
			if i != j && b.start <= a.start && a.end <= b.end && b.end-b.start > a.end-a.start {
				inner = true
				break
			}
		}
		if inner {
			continue
		}
		if win < 0 {
			win = i
			continue
		}
		w := ms[win]
		ra, rw := m.rules[a.rule].rank, m.rules[w.rule].rank
		if ra < rw || ra == rw && a.start < w.start {
			win = i
		}
	}
	if win < 0 {
		return -1
	}
	return ms[win].rule
}

// normalize lower-cases s, folds white space runs to one space and replaces
// every e-mail address with a lone "@" (so that a local part such as
// "filtered@" or "spam-reports@" cannot pose as a phrase), writing into buf.
// Only the first maxScan bytes of s are read.
func normalize(s string, buf []byte) []byte {
	if len(s) > maxScan {
		s = s[:maxScan]
		for len(s) > 0 && !utf8.RuneStart(s[len(s)-1]) {
			s = s[:len(s)-1]
		}
	}
	out := buf[:0]
	space := true // drop leading space
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			// Non-ASCII: lower-case the rune (Cyrillic, accented Latin ...).
			r, n := utf8.DecodeRuneInString(s[i:])
			out = utf8.AppendRune(out, unicode.ToLower(r))
			i += n - 1
			space = false
			continue
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f':
			if !space {
				out = append(out, ' ')
				space = true
			}
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c == '@':
			// Drop the local part already written and skip the domain.
			for len(out) > 0 && !isAddrDelim(out[len(out)-1]) {
				out = out[:len(out)-1]
			}
			j := i + 1
			for j < len(s) && isDomainByte(s[j]) {
				j++
			}
			for j > i+1 && s[j-1] == '.' {
				j-- // "user@example.com..." keeps its dots
			}
			i = j - 1
		}
		out = append(out, c)
		space = false
	}
	if n := len(out); n > 0 && out[n-1] == ' ' {
		out = out[:n-1]
	}
	return dropContinuations(out)
}

// dropContinuations removes, from a normalised multi-line SMTP reply, the
// reply code (and enhanced status code) repeated at the head of every line
// after the first: "550-5.7.1 ... multiple 550-5.7.1 addresses" reads
// "550-5.7.1 ... multiple addresses" (RFC 5321 §4.2.1 multiline replies, as
// Gmail and Exchange send them). The first occurrence is kept.
func dropContinuations(t []byte) []byte {
	code := -1 // start of the first reply code token
	w := 0
	for r := 0; r < len(t); {
		if (r == 0 || t[r-1] == ' ') && r+4 <= len(t) && isReplyToken(t[r:]) {
			if code < 0 {
				code = r
			} else if t[r] == t[code] && t[r+1] == t[code+1] && t[r+2] == t[code+2] {
				// skip "ddd-" or "ddd " and a following "x.y.z " token
				r += 4
				if n := statusTokenLen(t[r:]); n > 0 {
					r += n
					if r < len(t) && t[r] == ' ' {
						r++
					}
				}
				continue
			}
		}
		t[w] = t[r]
		w++
		r++
	}
	return t[:w]
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// isReplyToken reports whether t starts with a reply code and its
// separator: "550-" or "550 ".
func isReplyToken(t []byte) bool {
	return t[0] >= '2' && t[0] <= '5' && isDigit(t[1]) && isDigit(t[2]) && (t[3] == '-' || t[3] == ' ')
}

// statusTokenLen returns the length of an enhanced status code at the start
// of t ("5.7.1", "4.7.650"), or 0.
func statusTokenLen(t []byte) int {
	if len(t) < 5 || (t[0] != '2' && t[0] != '4' && t[0] != '5') || t[1] != '.' {
		return 0
	}
	i, dots := 2, 1
	for i < len(t) && (isDigit(t[i]) || t[i] == '.') && i < 10 {
		if t[i] == '.' {
			dots++
		}
		i++
	}
	if dots != 2 || t[i-1] == '.' {
		return 0
	}
	if i < len(t) && t[i] != ' ' {
		return 0
	}
	return i
}

// isDomainByte reports whether b may appear in the domain of an address.
func isDomainByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || isDigit(b) || b == '.' || b == '-' || b == '_' || b >= 0x80
}

// isAddrDelim reports whether b ends an e-mail address in running text.
func isAddrDelim(b byte) bool {
	switch b {
	case ' ', '\t', '\r', '\n', '<', '>', '(', ')', '[', ']', '"', '\'', ',', ';', ':':
		return true
	}
	return false
}
