package dsn_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime/quotedprintable"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	gomessage "github.com/emersion/go-message"

	"github.com/rebound-hq/rebound/internal/dsn/dsntest"
)

// dsFieldNames are the RFC 3464 field names the perturbations rewrite.
var dsFieldNames = []string{"Final-Recipient:", "Original-Recipient:", "Action:", "Status:", "Diagnostic-Code:", "Remote-MTA:", "Reporting-MTA:", "Arrival-Date:", "Last-Attempt-Date:"}

// dsFieldSpace matches a delivery-status field name and the blanks after
// its colon.
var dsFieldSpace = regexp.MustCompile(`(?m)^(Final-Recipient|Original-Recipient|Action|Status|Diagnostic-Code|Remote-MTA|Reporting-MTA):[ \t]*`)

// invariantPerturbations rewrite a bounce in ways that keep every fact it
// states: field names are case-insensitive (RFC 5322 section 1.2.2) and
// the blanks after a field's colon are optional (section 3.2.2).
var invariantPerturbations = []struct {
	name string
	fn   func([]byte) []byte
}{
	{"lower-case field names", func(b []byte) []byte {
		for _, f := range dsFieldNames {
			b = bytes.ReplaceAll(b, []byte("\n"+f), bytes.ToLower([]byte("\n"+f)))
		}
		return b
	}},
	{"upper-case field names", func(b []byte) []byte {
		for _, f := range dsFieldNames {
			b = bytes.ReplaceAll(b, []byte("\n"+f), bytes.ToUpper([]byte("\n"+f)))
		}
		return b
	}},
	{"no blank after the colon", func(b []byte) []byte {
		return dsFieldSpace.ReplaceAll(b, []byte("$1:"))
	}},
	{"two blanks after the colon", func(b []byte) []byte {
		return dsFieldSpace.ReplaceAll(b, []byte("$1:  "))
	}},
	{"single-part body in base64", func(b []byte) []byte {
		return reencodeBody(b, func(body []byte) []byte {
			enc := base64.StdEncoding.EncodeToString(body)
			var out bytes.Buffer
			for len(enc) > 76 {
				out.WriteString(enc[:76] + "\n")
				enc = enc[76:]
			}
			out.WriteString(enc + "\n")
			return out.Bytes()
		}, "base64")
	}},
	{"single-part body in quoted-printable", func(b []byte) []byte {
		return reencodeBody(b, func(body []byte) []byte {
			var out bytes.Buffer
			w := quotedprintable.NewWriter(&out)
			w.Write(body)
			w.Close()
			return out.Bytes()
		}, "quoted-printable")
	}},
	{"report part labelled text/plain", func(b []byte) []byte {
		re := regexp.MustCompile(`(?i)content-type:[ \t]*message/delivery-status`)
		return re.ReplaceAll(b, []byte("Content-Type: text/plain"))
	}},
	{"multipart/report sent as multipart/mixed", func(b []byte) []byte {
		re := regexp.MustCompile(`(?i)multipart/report`)
		return re.ReplaceAll(b, []byte("multipart/mixed"))
	}},
	{"media types in upper case", func(b []byte) []byte {
		re := regexp.MustCompile(`(?i)(content-type:[ \t]*)([a-z0-9./-]+)`)
		return re.ReplaceAllFunc(b, func(m []byte) []byte {
			i := bytes.IndexByte(m, ':')
			return append(bytes.Clone(m[:i+1]), bytes.ToUpper(m[i+1:])...)
		})
	}},
	{"Subject folded", func(b []byte) []byte {
		return foldField(b, "\nSubject:", "\n ")
	}},
	{"Diagnostic-Code folded", func(b []byte) []byte {
		return foldField(b, "\nDiagnostic-Code:", "\n\t")
	}},
	{"text parts of multiparts in base64", func(b []byte) []byte {
		return reencodeParts(b, "base64")
	}},
	{"text parts of multiparts in quoted-printable", func(b []byte) []byte {
		return reencodeParts(b, "quoted-printable")
	}},
}

// foldField folds every field starting with name (RFC 5322 section 2.2.3)
// at the first blank after its 20th byte, continuing with cont: unfolding
// restores the same value.
func foldField(b []byte, name, cont string) []byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	var out bytes.Buffer
	for {
		i := bytes.Index(b, []byte(name))
		if i < 0 {
			out.Write(b)
			return out.Bytes()
		}
		eol := bytes.IndexByte(b[i+1:], '\n')
		if eol < 0 {
			out.Write(b)
			return out.Bytes()
		}
		line := b[i+1 : i+1+eol]
		sp := -1
		if len(line) > 20 {
			sp = bytes.IndexByte(line[20:], ' ')
		}
		out.Write(b[:i+1])
		if sp < 0 {
			out.Write(line)
		} else {
			out.Write(line[:20+sp])
			out.WriteString(cont)
			out.Write(line[20+sp+1:])
		}
		b = b[i+1+eol:]
	}
}

// reencodeParts rewrites a multipart message with each text/* part
// decoded (to UTF-8, as go-message reads it) and encoded again with the
// transfer encoding enc; other parts are copied as read. A message that is
// not multipart, or that go-message cannot read cleanly, comes back as it is.
func reencodeParts(b []byte, enc string) []byte {
	e, err := gomessage.Read(bytes.NewReader(b))
	if err != nil || e.MultipartReader() == nil {
		return b
	}
	var out bytes.Buffer
	if writeEntity(&out, e, enc) != nil {
		return b
	}
	return out.Bytes()
}

// writeEntity writes e to w, re-encoding its text/* leaves with enc.
func writeEntity(w io.Writer, e *gomessage.Entity, enc string) error {
	h := e.Header.Copy()
	if mr := e.MultipartReader(); mr != nil {
		mw, err := gomessage.CreateWriter(w, h)
		if err != nil {
			return err
		}
		for {
			p, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			pw, err := mw.CreatePart(partHeader(p, enc))
			if err != nil {
				return err
			}
			if err := copyLeaf(pw, p, enc); err != nil {
				return err
			}
		}
		return mw.Close()
	}
	return errors.New("not multipart")
}

// partHeader is p's header, for a text/* leaf with enc as its transfer
// encoding and utf-8 as its charset (go-message hands the body over
// decoded to UTF-8).
func partHeader(p *gomessage.Entity, enc string) gomessage.Header {
	h := p.Header.Copy()
	ct, params, err := h.ContentType()
	if err != nil || !strings.HasPrefix(ct, "text/") {
		return h
	}
	if params == nil {
		params = map[string]string{}
	}
	params["charset"] = "utf-8"
	h.SetContentType(ct, params)
	h.Set("Content-Transfer-Encoding", enc)
	return h
}

// copyLeaf writes part p (a nested multipart recursively) into the part
// writer pw, whose header was copied from p.
func copyLeaf(pw *gomessage.Writer, p *gomessage.Entity, enc string) error {
	if mr := p.MultipartReader(); mr != nil {
		for {
			q, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			qw, err := pw.CreatePart(partHeader(q, enc))
			if err != nil {
				return err
			}
			if err := copyLeaf(qw, q, enc); err != nil {
				return err
			}
		}
		return pw.Close()
	}
	_, err := io.Copy(pw, p.Body)
	if err != nil {
		return err
	}
	return pw.Close()
}

// reencodeBody re-encodes the body of a single-part text message that
// declares no transfer encoding (7bit/8bit as sent) with enc and names
// it in a Content-Transfer-Encoding field; other messages come back as
// they are.
func reencodeBody(b []byte, enc func([]byte) []byte, name string) []byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	end := bytes.Index(b, []byte("\n\n"))
	if end < 0 {
		return b
	}
	head := b[:end+1]
	low := bytes.ToLower(head)
	if bytes.Contains(low, []byte("\ncontent-transfer-encoding:")) || bytes.Contains(low, []byte("multipart/")) ||
		bytes.Contains(low, []byte("content-type:")) && !bytes.Contains(low, []byte("text/plain")) {
		return b
	}
	out := append(bytes.Clone(head), "Content-Transfer-Encoding: "+name+"\n\n"...)
	return append(out, enc(b[end+2:])...)
}

// TestCorpusPerturbed decodes every corpus file rewritten by each
// invariant perturbation and requires the same scores as the original
// files: a variant of a known format that differs only in such spelling
// must decode the same.
func TestCorpusPerturbed(t *testing.T) {
	rows, err := dsntest.LoadExpected(filepath.Join(corpusDir, "expected.jsonl"))
	if err != nil {
		t.Skipf("corpus %s absent (%v): nothing to perturb", corpusDir, err)
	}
	raws := map[string][]byte{}
	base := map[string]dsntest.FileResult{}
	for _, r := range rows {
		if _, ok := raws[r.File]; ok {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(corpusDir, "emails", r.File))
		if err != nil {
			t.Fatal(err)
		}
		raws[r.File] = raw
		base[r.File] = dsntest.DecodeFile(raw)
	}
	want := dsntest.Score(rows, base)
	for _, p := range invariantPerturbations {
		files := map[string]dsntest.FileResult{}
		for f, raw := range raws {
			files[f] = dsntest.DecodeFile(p.fn(bytes.Clone(raw)))
		}
		got := dsntest.Score(rows, files)
		if got.Status != want.Status || got.Reason != want.Reason || got.AddressInvalid != want.AddressInvalid || got.Recipient != want.Recipient {
			t.Errorf("%s: status %d reason %d address_invalid %d recipient %d, want %d %d %d %d",
				p.name, got.Status, got.Reason, got.AddressInvalid, got.Recipient, want.Status, want.Reason, want.AddressInvalid, want.Recipient)
			seen := map[string]bool{}
			for _, f := range want.Failures {
				seen[f.File+f.Field] = true
			}
			for _, f := range got.Failures {
				if !seen[f.File+f.Field] {
					t.Logf("  %s #%d %s: want %s got %s", f.File, f.Index, f.Field, f.Want, f.Got)
				}
			}
		}
	}
}
