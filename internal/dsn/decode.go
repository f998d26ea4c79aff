package dsn

import (
	"bytes"
	"strings"
)

// message is a parsed message as the recognisers see it: the top-level
// header, the MIME tree and the parts that matter, located once.
type message struct {
	hdr      header
	root     *part
	from     string // decoded From
	fromL    string // lower case
	subject  string // decoded Subject
	subjectL string // lower case

	textPart *part   // the human-readable part (text/plain, or text/html)
	htmlPart *part   // the first text/html part, used when textPart is empty
	dsParts  []*part // message/delivery-status and message/global-delivery-status
	// textDS are later text/plain parts that hold delivery-status fields
	// (a report part mislabelled text/plain); they stand in for dsParts
	// when the message has none.
	textDS   []*part
	feedback *part // message/feedback-report (RFC 5965)
	origPart *part // message/rfc822, message/global, text/rfc822-headers, message/global-headers

	textDone bool
	text     string // decoded text of textPart (UTF-8, LF)
	textL    string // text lower-cased (ASCII only, same byte offsets)

	// forward counts the enclosing messages of a forwarded bounce.
	forward int

	// origOffset is where a text format found the quoted original in text
	// (-1 when none).
	origOffset int
}

// bodyText returns the decoded human-readable text of the message.
func (m *message) bodyText() string {
	if !m.textDone {
		m.textDone = true
		if m.textPart != nil {
			b := m.textPart.text()
			if strings.HasPrefix(m.textPart.ctype, "text/html") {
				b = stripHTML(b)
			} else if len(bytes.TrimSpace(b)) == 0 && m.htmlPart != nil {
				// An empty plain-text alternative: the HTML one says it.
				b = stripHTML(m.htmlPart.text())
			}
			m.text = string(b)
			m.textL = lowerASCII(m.text)
		}
	}
	return m.text
}

// lowerText returns the body text lower-cased (ASCII letters only, so byte
// offsets match bodyText).
func (m *message) lowerText() string {
	m.bodyText()
	return m.textL
}

// Decode decodes one raw message (LF or CRLF line endings, normalised once)
// into one Result per recipient, in the order the message lists them. A
// message that is not a bounce, complaint, auto-reply or delivery report
// yields exactly one Result of KindNotBounce. An empty result always comes
// with an error; a message that cannot be read (empty, no header, MIME
// nesting deeper than MaxDepth, too many parts) yields a *DecodeError
// naming the part and the reason.
//
// An mbox file holding several messages gives the results of each in turn.
// Memory stays bounded on large input: the returned original is sliced,
// never decoded, and at most 1 MiB of a text part is read. Decode is safe
// for concurrent use; results share no memory with raw.
func Decode(raw []byte) ([]Result, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, &DecodeError{Part: "message", Reason: "empty input"}
	}
	b := normalise(raw)
	// Leading blank lines and a UTF-8 byte order mark (some exports add
	// them) are not part of the message.
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	for len(b) > 0 && (b[0] == '\n' || b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	if msgs := splitMbox(b); len(msgs) > 1 {
		return decodeMbox(msgs)
	}
	return decodeOne(b, 0)
}

// decodeMbox decodes each message of an mbox file and returns the results
// of all of them in order; messages that are not bounces are left out
// unless none is a bounce.
func decodeMbox(msgs [][]byte) ([]Result, error) {
	var all []Result
	var firstErr error
	for _, b := range msgs {
		res, err := decodeOne(b, 0)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if len(res) == 1 && res[0].Kind == KindNotBounce {
			continue
		}
		all = append(all, res...)
	}
	if len(all) > 0 {
		return all, nil
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return decodeOne(msgs[0], 0)
}

// splitMbox splits an mbox file (messages each opened by a "From " line,
// RFC 4155) into its messages; a single message gives one slice.
func splitMbox(b []byte) [][]byte {
	if !bytes.HasPrefix(b, []byte("From ")) {
		return nil
	}
	var out [][]byte
	start := 0
	off := 0
	for {
		i := bytes.Index(b[off:], []byte("\nFrom "))
		if i < 0 {
			break
		}
		at := off + i + 1
		off = at
		// The next line must be a header field for this to open a message.
		nl := bytes.IndexByte(b[at:], '\n')
		if nl < 0 {
			break
		}
		next := b[at+nl+1:]
		colon := bytes.IndexByte(next, ':')
		eol := bytes.IndexByte(next, '\n')
		if colon <= 0 || eol >= 0 && colon > eol || !isFieldName(next[:colon]) {
			continue
		}
		out = append(out, b[start:at])
		start = at
	}
	if len(out) == 0 {
		return nil
	}
	return append(out, b[start:])
}

// maxForward bounds how deep Decode follows bounces forwarded as an
// enclosed message (a bounce of a bounce ...).
const maxForward = 3

// decodeOne decodes one message; forward counts the enclosing messages
// already followed.
func decodeOne(b []byte, forward int) ([]Result, error) {
	m, err := parseMessage(b)
	if err != nil {
		return nil, err
	}
	m.forward = forward
	for i := range registry {
		r := &registry[i]
		if !r.Detect(m) {
			continue
		}
		res, err := r.Parse(m)
		if err != nil {
			return nil, err
		}
		if len(res) == 0 {
			continue
		}
		finish(m, res, r.Name)
		return res, nil
	}
	res := []Result{{Kind: KindNotBounce, Format: "none", Original: m.originalOf()}}
	detach(&res[0])
	return res, nil
}

// parseMessage parses the MIME tree and locates the parts recognisers use.
func parseMessage(b []byte) (*message, error) {
	w := &walker{}
	root, err := w.parseEntity(b, 0, "text/plain")
	if err != nil {
		return nil, err
	}
	if len(root.hdr) == 0 {
		return nil, &DecodeError{Part: "header", Reason: "no header fields"}
	}
	m := &message{hdr: root.hdr, root: root, origOffset: -1}
	m.from = decodeWords(root.hdr.get("from"))
	m.fromL = lowerASCII(m.from)
	m.subject = decodeWords(root.hdr.get("subject"))
	m.subjectL = lowerASCII(m.subject)
	m.locate(root)
	if len(m.dsParts) == 0 && len(m.textDS) > 0 {
		m.dsParts = m.textDS
	}
	return m, nil
}

// locate walks the tree (not into enclosed messages) and records the parts
// of interest.
func (m *message) locate(p *part) {
	switch {
	case p.ctype == "message/delivery-status" || p.ctype == "message/global-delivery-status" ||
		p.ctype == "text/delivery-status" || p.ctype == "message/x-delivery-status":
		m.dsParts = append(m.dsParts, p)
		return
	case p.ctype == "message/feedback-report":
		if m.feedback == nil {
			m.feedback = p
		}
		return
	case p.ctype == "message/rfc822" || p.ctype == "message/global" ||
		p.ctype == "text/rfc822-headers" || p.ctype == "message/global-headers" ||
		p.ctype == "message/partial":
		if m.origPart == nil {
			m.origPart = p
		}
		return
	case strings.HasPrefix(p.ctype, "multipart/") && len(p.children) > 0:
		for _, c := range p.children {
			m.locate(c)
		}
		return
	case strings.HasPrefix(p.ctype, "multipart/"):
		// A multipart without any delimiter line (some MTAs drop them):
		// its body is the text.
		if m.textPart == nil {
			m.textPart = &part{hdr: p.hdr, body: p.body, ctype: "text/plain", encoding: p.encoding, depth: p.depth}
		}
		return
	case p.ctype == "text/plain" || p.ctype == "":
		if p.depth > 0 && (m.textPart != nil || isAttachment(p)) && looksDeliveryStatus(p) {
			// A later or attached text part holding report fields is
			// the report, not the human-readable text.
			m.textDS = append(m.textDS, p)
			return
		}
		if m.textPart == nil || strings.HasPrefix(m.textPart.ctype, "text/html") {
			if !isAttachment(p) {
				m.textPart = p
			}
		}
	case strings.HasPrefix(p.ctype, "text/html"):
		if !isAttachment(p) {
			if m.textPart == nil {
				m.textPart = p
			}
			if m.htmlPart == nil {
				m.htmlPart = p
			}
		}
	case strings.HasPrefix(p.ctype, "text/"):
		if m.textPart == nil && !isAttachment(p) {
			m.textPart = p
		}
	}
}

// looksDeliveryStatus reports whether a text part holds RFC 3464
// delivery-status fields: a Final-Recipient (or Original-Recipient) field
// and an Action or Status field at line starts.
func looksDeliveryStatus(p *part) bool {
	t := p.text()
	if len(t) > 8192 {
		t = t[:8192]
	}
	l := bytes.ToLower(t)
	if !bytes.HasPrefix(l, []byte("\n")) {
		l = append([]byte("\n"), l...)
	}
	return (bytes.Contains(l, []byte("\nfinal-recipient:")) || bytes.Contains(l, []byte("\noriginal-recipient:"))) &&
		(bytes.Contains(l, []byte("\naction:")) || bytes.Contains(l, []byte("\nstatus:")))
}

// isAttachment reports whether a part is marked as an attachment.
func isAttachment(p *part) bool {
	d := p.hdr.get("content-disposition")
	return len(d) >= 10 && strings.EqualFold(d[:10], "attachment")
}

// stripHTML reduces an HTML body to text: tags removed, <br>, <p>, <div>
// and <tr> ended with a line break, common entities decoded.
func stripHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	noClose := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '<' {
			j := bytes.IndexByte(b[i:], '>')
			if j < 0 {
				break
			}
			raw := b[i+1 : i+j]
			if len(raw) > 8 {
				raw = raw[:8] // enough to tell the tags that matter
			}
			tag := lowerASCII(string(raw))
			tag = strings.TrimPrefix(tag, "/")
			if strings.HasPrefix(tag, "br") || strings.HasPrefix(tag, "p") || strings.HasPrefix(tag, "div") || strings.HasPrefix(tag, "tr") || strings.HasPrefix(tag, "li") {
				out = append(out, '\n')
			}
			if strings.HasPrefix(tag, "style") || strings.HasPrefix(tag, "script") {
				if !noClose && !strings.HasPrefix(lowerASCII(string(b[i+1:i+2])), "/") {
					end := indexFold(b[i:], "</"+tag[:5])
					if end > 0 {
						i += end
						continue
					}
					noClose = true // never search the rest again
				}
			}
			i += j
			continue
		}
		if c == '&' {
			semi := bytes.IndexByte(b[i:min(len(b), i+10)], ';')
			if semi > 0 {
				switch string(b[i+1 : i+semi]) {
				case "lt":
					out = append(out, '<')
				case "gt":
					out = append(out, '>')
				case "amp":
					out = append(out, '&')
				case "quot":
					out = append(out, '"')
				case "nbsp", "#160":
					out = append(out, ' ')
				default:
					out = append(out, b[i:i+semi+1]...)
				}
				i += semi
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// indexFold returns the index of the lower-case ASCII needle in b,
// ignoring case, or -1.
func indexFold(b []byte, needle string) int {
	if len(needle) == 0 {
		return 0
	}
	first := needle[0]
	for i := 0; i+len(needle) <= len(b); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != first {
			continue
		}
		if strings.EqualFold(string(b[i:i+len(needle)]), needle) {
			return i
		}
	}
	return -1
}

// indexAny returns the smallest index in s of one of subs, or -1.
func indexAny(s string, subs []string) int {
	best := -1
	for _, x := range subs {
		if i := strings.Index(s, x); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}
