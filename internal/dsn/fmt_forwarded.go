package dsn

import "strings"

// Forwarded bounces: a relay or a security gateway that returns a message
// which is itself a bounce (a multipart/report, or a mail system's failure
// notice) as its message/rfc822 part, with little or no report of its own.
// The enclosed bounce is decoded in its place.

func init() {
	register(Recogniser{
		Name:  "forwarded",
		Order: 940,
		Detect: func(m *message) bool {
			if m.forward >= maxForward || m.origPart == nil || len(m.origPart.children) == 0 {
				return false
			}
			c := m.origPart.children[0]
			if c.ctype == "multipart/report" {
				return true
			}
			from := lowerASCII(decodeWords(c.hdr.get("from")))
			subj := lowerASCII(decodeWords(c.hdr.get("subject")))
			return isDaemonSender(from) && containsAny(subj, bounceSubjects)
		},
		Parse: func(m *message) ([]Result, error) {
			c := m.origPart.children[0]
			res, err := decodeOne(c.raw, m.forward+1)
			if err != nil || len(res) == 0 || res[0].Kind == KindNotBounce {
				return nil, nil
			}
			for i := range res {
				if !strings.HasPrefix(res[i].Format, "forwarded/") {
					res[i].Format = "forwarded/" + res[i].Format
				}
			}
			return res, nil
		},
	})
}
