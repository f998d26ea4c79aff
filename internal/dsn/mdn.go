package dsn

import "strings"

// RFC 8098 message disposition notifications (read receipts): a
// multipart/report with report-type=disposition-notification and a
// message/disposition-notification part. They often carry Auto-Submitted:
// auto-replied, yet they are neither bounces nor vacation replies: Decode
// reports them as not_bounce.

func init() {
	register(Recogniser{
		Name:  "mdn",
		Order: 3,
		Detect: func(m *message) bool {
			if len(m.dsParts) > 0 || m.feedback != nil {
				return false
			}
			if m.root.ctype == "multipart/report" && strings.EqualFold(m.root.param("report-type"), "disposition-notification") {
				return true
			}
			return hasPart(m.root, "message/disposition-notification", 0)
		},
		Parse: func(m *message) ([]Result, error) {
			return []Result{{Kind: KindNotBounce}}, nil
		},
	})
}

// hasPart reports whether the tree under p (not inside enclosed messages)
// has a part of the media type.
func hasPart(p *part, ctype string, depth int) bool {
	if p.ctype == ctype {
		return true
	}
	if depth > MaxDepth || !strings.HasPrefix(p.ctype, "multipart/") {
		return false
	}
	for _, c := range p.children {
		if hasPart(c, ctype, depth+1) {
			return true
		}
	}
	return false
}
