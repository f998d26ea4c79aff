package dsn

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message/charset"
)

// MaxDepth is the deepest MIME nesting Decode accepts (multipart inside
// multipart, message/rfc822 inside multipart, ...). Deeper messages are
// refused with a *DecodeError rather than walked, which bounds stack and
// time on hostile input.
const MaxDepth = 20

// maxParts bounds the number of MIME parts walked in one message.
const maxParts = 2000

// field is one header field: the name in lower case and the unfolded value.
type field struct {
	name  string
	value string
}

// header is a parsed header block, fields in message order.
type header []field

// get returns the first value of the named field (name in lower case).
func (h header) get(name string) string {
	for i := range h {
		if h[i].name == name {
			return h[i].value
		}
	}
	return ""
}

// has reports whether the named field (lower case) is present.
func (h header) has(name string) bool {
	for i := range h {
		if h[i].name == name {
			return true
		}
	}
	return false
}

// normalise turns CRLF line endings into LF once, so that every later step
// sees one line ending. Input without CR is returned as is (no copy).
func normalise(raw []byte) []byte {
	i := bytes.IndexByte(raw, '\r')
	if i < 0 {
		return raw
	}
	out := make([]byte, 0, len(raw))
	out = append(out, raw[:i]...)
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == '\r' {
			if i+1 < len(raw) && raw[i+1] == '\n' {
				continue
			}
			// A lone CR is a line break too (old Mac mailers).
			c = '\n'
		}
		out = append(out, c)
	}
	return out
}

// isFieldName reports whether b is a syntactically valid header field name
// (RFC 5322 §3.6.8: printable ASCII except colon and space).
func isFieldName(b []byte) bool {
	if len(b) == 0 || len(b) > 76 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c > '~' || c == ':' {
			return false
		}
	}
	return true
}

// parseHeader splits b into its header block and body. It is lenient: an
// mbox "From " line is skipped, a line without a colon ends the header.
// Folded lines are unfolded with a single space.
func parseHeader(b []byte) (header, []byte) {
	// One string for the whole header block; field values are substrings
	// of it (one allocation per block rather than one per field).
	src := ""
	if end := bytes.Index(b, []byte("\n\n")); end > 0 && end <= maxHeaderBlock {
		src = string(b[:end+1])
	}
	return parseHeaderIn(b, src)
}

// maxHeaderBlock is the largest header block copied as one string.
const maxHeaderBlock = 256 << 10

// parseHeaderIn is parseHeader where src, when not empty, holds a prefix
// of b's bytes: field values inside it are substrings of src instead of
// new strings.
func parseHeaderIn(b []byte, src string) (header, []byte) {
	var h header
	if bytes.HasPrefix(b, []byte("From ")) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
			if src != "" {
				src = src[i+1:]
			}
		}
	}
	h = make(header, 0, 24)
	pos := 0
	// fold collects the continuation lines of the last field; they are
	// joined once when the field ends (no quadratic concatenation).
	var fold []string
	endField := func() {
		if len(fold) > 0 && len(h) > 0 {
			last := &h[len(h)-1]
			parts := fold
			if last.value != "" {
				parts = append([]string{last.value}, fold...)
			}
			last.value = strings.Join(parts, " ")
		}
		fold = fold[:0]
	}
	for pos < len(b) {
		end := bytes.IndexByte(b[pos:], '\n')
		var line []byte
		next := len(b)
		if end < 0 {
			line = b[pos:]
		} else {
			line = b[pos : pos+end]
			next = pos + end + 1
		}
		if len(line) == 0 {
			endField()
			return h, b[next:]
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(h) > 0 {
				if t := bytes.TrimSpace(line); len(t) > 0 {
					fold = append(fold, sub(src, b, t))
				}
			}
			pos = next
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isFieldName(line[:colon]) {
			// Not a header line: the header ends here without a blank line.
			endField()
			return h, b[pos:]
		}
		endField()
		h = append(h, field{name: fieldName(line[:colon]), value: sub(src, b, bytes.TrimSpace(line[colon+1:]))})
		pos = next
	}
	endField()
	return h, nil
}

// sub returns t, a subslice of b, as a string: a substring of src when
// src holds b's first bytes and covers t, else a new string.
func sub(src string, b, t []byte) string {
	if src == "" || len(t) == 0 {
		return string(t)
	}
	off := cap(b) - cap(t)
	if off < 0 || off+len(t) > len(src) || &b[off] != &t[0] {
		return string(t)
	}
	return src[off : off+len(t)]
}

// commonFields are header names interned by fieldName, so that the usual
// fields cost no allocation.
var commonFields = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{"received", "from", "to", "cc", "subject", "date", "message-id", "content-type",
		"content-transfer-encoding", "content-disposition", "content-description", "mime-version", "return-path",
		"x-failed-recipients", "auto-submitted", "precedence", "reply-to", "dkim-signature", "authentication-results",
		"x-mailer", "delivered-to", "in-reply-to", "references", "x-original-to", "arc-seal", "arc-message-signature",
		"arc-authentication-results", "received-spf", "x-received", "x-google-smtp-source", "list-unsubscribe",
		"content-id", "x-ms-exchange-organization-scl", "thread-topic", "thread-index", "x-virus-scanned",
		"x-spam-status", "sender", "errors-to", "x-priority", "user-agent", "x-originating-ip",
		"reporting-mta", "arrival-date", "received-from-mta", "original-envelope-id", "final-recipient",
		"original-recipient", "action", "status", "remote-mta", "diagnostic-code", "last-attempt-date",
		"will-retry-until", "x-postfix-queue-id", "x-postfix-sender", "x-actual-recipient", "feedback-type",
		"version", "original-rcpt-to", "original-mail-from", "source-ip", "reported-domain", "removal-recipient"} {
		m[n] = n
	}
	return m
}()

// fieldNameString is fieldName for a string.
func fieldNameString(s string) string {
	var buf [32]byte
	if len(s) <= len(buf) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		if n, ok := commonFields[string(buf[:len(s)])]; ok {
			return n
		}
	}
	return lowerASCII(s)
}

// fieldName returns the lower-case form of a header field name, interned
// for the common ones.
func fieldName(b []byte) string {
	var buf [32]byte
	if len(b) <= len(buf) {
		for i, c := range b {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		if n, ok := commonFields[string(buf[:len(b)])]; ok {
			return n
		}
		return string(buf[:len(b)])
	}
	return lowerASCII(string(b))
}

// lowerASCII lower-cases ASCII letters, returning s itself when it has none
// in upper case.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// part is one MIME entity. Body holds the raw (still transfer-encoded)
// bytes; children hold sub-parts of a multipart, or the single enclosed
// message of a message/rfc822 or message/global part.
type part struct {
	hdr      header
	body     []byte
	ctype    string // lower-case media type, "text/plain" when absent
	params   map[string]string
	encoding string // lower-case Content-Transfer-Encoding
	children []*part
	depth    int
	raw      []byte // the whole entity, kept for enclosed messages only
}

// param returns a Content-Type parameter (name in lower case).
func (p *part) param(name string) string {
	if p.params == nil {
		return ""
	}
	return p.params[name]
}

// parseContentType splits a Content-Type value into the lower-case media type
// and its parameters. It never fails: a broken value yields what could be read.
func parseContentType(v string) (string, map[string]string) {
	if v == "" {
		return "", nil
	}
	semi := strings.IndexByte(v, ';')
	mt := v
	if semi >= 0 {
		mt = v[:semi]
	}
	mt = lowerASCII(strings.TrimSpace(mt))
	if semi < 0 {
		return mt, nil
	}
	if _, params, err := mime.ParseMediaType(v); err == nil {
		return mt, params
	}
	// Lenient fallback: name=value pairs separated by semicolons.
	params := map[string]string{}
	for _, kv := range strings.Split(v[semi+1:], ";") {
		eq := strings.IndexByte(kv, '=')
		if eq < 0 {
			continue
		}
		k := lowerASCII(strings.TrimSpace(kv[:eq]))
		val := strings.Trim(strings.TrimSpace(kv[eq+1:]), `"'`)
		if k != "" {
			params[k] = val
		}
	}
	return mt, params
}

// walker carries the state of one parse: the part counter.
type walker struct {
	parts int
}

// parseEntity parses one MIME entity (header and body) at the given depth.
func (w *walker) parseEntity(b []byte, depth int, defType string) (*part, error) {
	if depth > MaxDepth {
		return nil, &DecodeError{Part: "mime", Reason: "nesting deeper than " + itoa(MaxDepth) + " levels"}
	}
	w.parts++
	if w.parts > maxParts {
		return nil, &DecodeError{Part: "mime", Reason: "more than " + itoa(maxParts) + " MIME parts"}
	}
	h, body := parseHeader(b)
	p := &part{hdr: h, body: body, depth: depth}
	p.ctype, p.params = parseContentType(h.get("content-type"))
	if p.ctype == "" {
		p.ctype = defType
	}
	p.encoding = lowerASCII(strings.TrimSpace(h.get("content-transfer-encoding")))
	if err := w.parseChildren(p); err != nil {
		return nil, err
	}
	return p, nil
}

// parseChildren fills p.children for multipart and enclosed-message parts.
func (w *walker) parseChildren(p *part) error {
	switch {
	case strings.HasPrefix(p.ctype, "multipart/"):
		boundary := p.param("boundary")
		if boundary == "" {
			return nil
		}
		def := "text/plain"
		if p.ctype == "multipart/digest" {
			def = "message/rfc822"
		}
		for _, chunk := range splitMultipart(p.body, boundary) {
			c, err := w.parseEntity(chunk, p.depth+1, def)
			if err != nil {
				return err
			}
			p.children = append(p.children, c)
		}
	case p.ctype == "message/rfc822" || p.ctype == "message/global":
		body := p.body
		if p.encoding == "base64" || p.encoding == "quoted-printable" {
			body = transferDecode(body, p.encoding)
		}
		// The enclosed original: only its header is ever read, so its body
		// is kept raw and not walked (a large attachment costs nothing).
		if p.depth+1 > MaxDepth {
			return &DecodeError{Part: "mime", Reason: "nesting deeper than " + itoa(MaxDepth) + " levels"}
		}
		w.parts++
		h, rest := parseHeader(body)
		c := &part{hdr: h, body: rest, depth: p.depth + 1, raw: body}
		c.ctype, c.params = parseContentType(h.get("content-type"))
		p.children = append(p.children, c)
	}
	return nil
}

// splitMultipart returns the bodies between the boundary delimiter lines of
// a multipart body (RFC 2046 §5.1.1). A delimiter line is "--boundary"
// followed only by white space, or "--boundary--" (close); a boundary that
// merely prefixes a longer one does not count. A missing close delimiter
// ends the last part at the end of input.
func splitMultipart(body []byte, boundary string) [][]byte {
	delim := make([]byte, 0, len(boundary)+3)
	delim = append(delim, '\n', '-', '-')
	delim = append(delim, boundary...)
	var out [][]byte
	// next finds the next delimiter line at or after from; it returns the
	// offset of its line start and the offset just past "--boundary".
	next := func(from int) (int, int) {
		for from <= len(body) {
			var i int
			if from == 0 && bytes.HasPrefix(body, delim[1:]) {
				i = -1
			} else {
				j := bytes.Index(body[from:], delim)
				if j < 0 {
					return -1, -1
				}
				i = from + j
			}
			end := i + len(delim)
			rest := body[end:]
			if isDelimEnd(rest) {
				return i + 1, end
			}
			from = end
		}
		return -1, -1
	}
	_, after := next(0)
	if after < 0 {
		return nil
	}
	for {
		if bytes.HasPrefix(body[after:], []byte("--")) {
			return out
		}
		nl := bytes.IndexByte(body[after:], '\n')
		if nl < 0 {
			return out
		}
		start := after + nl + 1
		lineStart, nextAfter := next(start - 1)
		if lineStart < 0 {
			out = append(out, body[start:])
			return out
		}
		end := lineStart - 1 // drop the LF before the delimiter
		if end < start {
			end = start
		}
		out = append(out, body[start:end])
		after = nextAfter
	}
}

// isDelimEnd reports whether what follows "--boundary" ends a delimiter
// line: "--" (close), white space then LF, or the end of input.
func isDelimEnd(rest []byte) bool {
	if bytes.HasPrefix(rest, []byte("--")) {
		return true
	}
	for _, c := range rest {
		switch c {
		case ' ', '\t':
			continue
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// transferDecode undoes a Content-Transfer-Encoding (RFC 2045 §6). It is
// lenient: invalid base64 characters are skipped and broken quoted-printable
// escapes are kept literally.
func transferDecode(b []byte, enc string) []byte {
	switch enc {
	case "base64":
		clean := make([]byte, 0, len(b))
		for _, c := range b {
			if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' {
				clean = append(clean, c)
			}
		}
		out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
		// Drop a dangling sextet that cannot form a byte.
		if len(clean)%4 == 1 {
			clean = clean[:len(clean)-1]
		}
		n, err := base64.RawStdEncoding.Decode(out, clean)
		if err != nil {
			return out[:n]
		}
		return out[:n]
	case "quoted-printable":
		if bytes.IndexByte(b, '=') < 0 {
			return b
		}
		return decodeQP(b)
	}
	return b
}

// decodeQP undoes quoted-printable (RFC 2045 §6.7) leniently: "=XX" hex
// escapes (either case), soft line breaks "=\n" (trailing white space
// allowed), anything malformed kept literally. Trailing white space of
// lines is kept (it is harmless for reading text).
func decodeQP(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '=' {
			out = append(out, c)
			continue
		}
		// Soft line break: "=" then optional spaces/tabs then LF or end.
		j := i + 1
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r') {
			j++
		}
		if j >= len(b) || b[j] == '\n' {
			i = j
			continue
		}
		if i+2 < len(b) {
			if h, ok := unhex(b[i+1]); ok {
				if l, ok := unhex(b[i+2]); ok {
					out = append(out, h<<4|l)
					i += 2
					continue
				}
			}
		}
		out = append(out, c)
	}
	return out
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// charsetDecode converts b from the named charset to UTF-8. Unknown
// charsets leave b unchanged. A body without a declared charset that
// carries ISO-2022-JP escape sequences is decoded as ISO-2022-JP (common in
// Japanese carriers' bounces).
func charsetDecode(b []byte, cs string) []byte {
	cs = lowerASCII(strings.Trim(strings.TrimSpace(cs), `"`))
	switch cs {
	case "", "us-ascii", "ascii", "utf-8", "utf8", "unknown-8bit", "x-unknown", "8bit", "7bit":
		switch {
		case bytes.Contains(b, []byte("\x1b$B")) || bytes.Contains(b, []byte("\x1b$@")):
			cs = "iso-2022-jp"
		case mostlyUTF8(b):
			return b
		default:
			// Undeclared or wrongly declared 8-bit text: the first legacy
			// reading without replacement characters, Latin-1's superset
			// as the last resort.
			for _, alt := range []string{"euc-jp", "shift_jis"} {
				if out, ok := convert(b, alt); ok && !bytes.Contains(out, []byte("\uFFFD")) {
					return out
				}
			}
			cs = "windows-1252"
		}
	}
	if isJapaneseCharset(cs) && !bytes.Contains(b, []byte("\x1b")) && hasHighBytes(b) {
		// Mislabelled Japanese text (8-bit EUC-JP or Shift_JIS declared as
		// ISO-2022-JP, or the reverse): take the reading without
		// replacement characters.
		for _, alt := range []string{cs, "euc-jp", "shift_jis"} {
			if out, ok := convert(b, alt); ok && !bytes.Contains(out, []byte("\uFFFD")) {
				return out
			}
		}
	}
	if out, ok := convert(b, cs); ok {
		return out
	}
	return b
}

// convert decodes b from charset cs to UTF-8.
func convert(b []byte, cs string) ([]byte, bool) {
	r, err := charset.Reader(cs, bytes.NewReader(b))
	if err != nil {
		return nil, false
	}
	out, err := io.ReadAll(r)
	if err != nil && len(out) == 0 {
		return nil, false
	}
	return out, true
}

// mostlyUTF8 reports text whose 8-bit sequences are mostly valid UTF-8
// (a truncated or damaged UTF-8 body stays UTF-8).
func mostlyUTF8(b []byte) bool {
	if utf8.Valid(b) {
		return true
	}
	valid, invalid := 0, 0
	for i := 0; i < len(b); {
		if b[i] < 0x80 {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			invalid++
			i++
			continue
		}
		valid++
		i += n
	}
	return valid > invalid
}

// isJapaneseCharset reports the Japanese legacy charsets.
func isJapaneseCharset(cs string) bool {
	switch cs {
	case "iso-2022-jp", "euc-jp", "shift_jis", "shift-jis", "sjis", "x-sjis", "cp932", "windows-31j":
		return true
	}
	return false
}

// hasHighBytes reports a byte outside 7-bit ASCII.
func hasHighBytes(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// text returns the part body transfer-decoded and converted to UTF-8.
//
// Only the first maxText bytes (about) are decoded: what a bounce says sits
// at its start, and a huge quoted original must not cost memory or time.
func (p *part) text() []byte {
	raw := p.body
	limit := maxText
	if p.encoding == "base64" {
		limit = maxText/3*4 + maxText/38 // base64 length plus line breaks
	}
	if len(raw) > limit {
		raw = raw[:limit]
		if nl := bytes.LastIndexByte(raw, '\n'); nl > 0 {
			raw = raw[:nl+1]
		}
	}
	b := transferDecode(raw, p.encoding)
	return charsetDecode(b, p.param("charset"))
}

// maxText is the number of bytes of a text part Decode reads.
const maxText = 1 << 20

// wordDecoder decodes RFC 2047 encoded words in any charset go-message knows.
var wordDecoder = &mime.WordDecoder{CharsetReader: charset.Reader}

// decodeWords decodes RFC 2047 encoded words in a header value; values
// without "=?" are returned as is. Raw 8-bit ISO-2022-JP values are converted.
func decodeWords(s string) string {
	if strings.Contains(s, "=?") {
		if d, err := wordDecoder.DecodeHeader(s); err == nil {
			s = d
		}
	}
	if strings.Contains(s, "\x1b$") {
		s = string(charsetDecode([]byte(s), "iso-2022-jp"))
	}
	return s
}

// itoa formats a small non-negative integer.
func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
