package tracking

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
	"sync"
)

// traceFields are top-level header fields that differ between copies of one
// message (delivery into two folders, a forward by the receiving system, a
// re-sync from another server), so the dedupe hash ignores them; every X-
// field is ignored too.
var traceFields = map[string]bool{
	"received":                   true,
	"return-path":                true,
	"delivered-to":               true,
	"envelope-to":                true,
	"authentication-results":     true,
	"received-spf":               true,
	"arc-seal":                   true,
	"arc-message-signature":      true,
	"arc-authentication-results": true,
	"status":                     true, // mbox status flags
	"content-length":             true,
	"lines":                      true,
}

// nextLine splits the first line off rest, without its LF or CRLF; tail is
// what follows the LF (nil when there is none).
func nextLine(rest []byte) (line, tail []byte) {
	line, tail, _ = bytes.Cut(rest, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'}), tail
}

// DedupeHash returns the SHA-256 that identifies a message within a
// workspace: the message with line endings normalised to LF, its top-level
// trace fields (traceFields, X-*) dropped and trailing white space trimmed.
// Two copies of one bounce delivered into two folders hash alike.
func DedupeHash(raw []byte) [32]byte {
	h := sha256.New()
	rest := raw
	inHeader := true
	skipping := false
	for len(rest) > 0 && inHeader {
		var line []byte
		line, rest = nextLine(rest)
		if len(line) == 0 {
			inHeader = false
			h.Write([]byte{'\n'})
			break
		}
		if line[0] == ' ' || line[0] == '\t' { // continuation
			if !skipping {
				h.Write(line)
				h.Write([]byte{'\n'})
			}
			continue
		}
		name := line
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name = line[:i]
		}
		lname := strings.ToLower(strings.TrimSpace(string(name)))
		skipping = traceFields[lname] || strings.HasPrefix(lname, "x-")
		if !skipping {
			h.Write(line)
			h.Write([]byte{'\n'})
		}
	}
	// Body: CRLF -> LF, trailing white space dropped.
	body := bytes.TrimRight(rest, " \t\r\n")
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\r')
		if i < 0 {
			h.Write(body)
			break
		}
		h.Write(body[:i])
		if i+1 < len(body) && body[i+1] == '\n' {
			body = body[i+1:]
		} else {
			h.Write([]byte{'\r'})
			body = body[i+1:]
		}
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return w
}}

// compress returns raw gzip-compressed (RFC 1952) at the fastest level.
func compress(raw []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(raw)/3 + 64)
	w := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(raw); err != nil {
		return nil, fmt.Errorf("tracking: compress: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("tracking: compress: %w", err)
	}
	return buf.Bytes(), nil
}

// Decompress returns the raw bytes of a stored (gzip) message.
func Decompress(content []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(content))
	if err != nil {
		return nil, fmt.Errorf("tracking: decompress: %w", err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("tracking: decompress: %w", err)
	}
	return b, nil
}

// envelopeFields are the top-level fields that may carry the VERP address
// the bounce was returned to.
var envelopeFields = map[string]bool{
	"to":             true,
	"delivered-to":   true,
	"x-original-to":  true,
	"envelope-to":    true,
	"x-envelope-to":  true,
	"return-path":    false, // the bounce's own null sender: never the token
	"x-delivered-to": true,
}

// lowerASCII maps A-Z to a-z and keeps every other byte, so the result has
// the input's length and byte offsets (strings.ToLower may lengthen
// non-ASCII text).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// verpTokens returns the tokens of VERP addresses (prefix+TOKEN@domain, the
// prefix matched without regard to ASCII case) found in the top-level To,
// Delivered-To and similar fields of raw, in order of appearance, without
// duplicates.
func verpTokens(raw []byte, prefix string) []string {
	if prefix == "" {
		return nil
	}
	needle := lowerASCII(prefix) + "+"
	var out []string
	rest := raw
	var field string
	collect := func(value string) {
		lv := lowerASCII(value) // same length as value: its indexes are value's
		for {
			i := strings.Index(lv, needle)
			if i < 0 {
				return
			}
			// The prefix must start the local part.
			if i > 0 && !strings.ContainsRune("<, \t:\"", rune(lv[i-1])) {
				lv, value = lv[i+len(needle):], value[i+len(needle):]
				continue
			}
			tail := value[i+len(needle):]
			end := strings.IndexAny(tail, "@>, \t\"")
			if end > 0 && tail[end] == '@' {
				tok := tail[:end]
				dup := false
				for _, t := range out {
					dup = dup || t == tok
				}
				if !dup {
					out = append(out, tok)
				}
			}
			lv, value = lv[i+len(needle):], value[i+len(needle):]
		}
	}
	for len(rest) > 0 {
		var line []byte
		line, rest = nextLine(rest)
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if envelopeFields[field] {
				collect(string(line))
			}
			continue
		}
		i := bytes.IndexByte(line, ':')
		if i < 0 {
			field = ""
			continue
		}
		field = strings.ToLower(strings.TrimSpace(string(line[:i])))
		if envelopeFields[field] {
			collect(string(line[i+1:]))
		}
	}
	return out
}
