package dsn

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestDecodeErrors checks unreadable input gives a typed *DecodeError and
// no results.
func TestDecodeErrors(t *testing.T) {
	for name, raw := range map[string][]byte{
		"empty":      nil,
		"blank":      []byte("\n\r\n  \n"),
		"no headers": []byte("just some words without any header\nsecond line\n"),
		"nested":     nested(100),
		"too many parts": func() []byte {
			var b bytes.Buffer
			b.WriteString("From: a@b.test\nContent-Type: multipart/mixed; boundary=x\n\n")
			for i := 0; i < maxParts+10; i++ {
				b.WriteString("--x\nContent-Type: text/plain\n\nhi\n")
			}
			b.WriteString("--x--\n")
			return b.Bytes()
		}(),
	} {
		res, err := Decode(raw)
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%s: error %v, want *DecodeError", name, err)
			continue
		}
		if de.Part == "" || de.Reason == "" {
			t.Errorf("%s: DecodeError without part or reason: %+v", name, de)
		}
		if len(res) != 0 {
			t.Errorf("%s: %d results with an error", name, len(res))
		}
	}
}

// TestLeadingJunk checks a byte order mark and leading blank lines do not
// hide the header.
func TestLeadingJunk(t *testing.T) {
	raw := []byte("\xef\xbb\xbf\n\nFrom: Frank <frank@example.org>\nSubject: Out of office\nAuto-Submitted: auto-replied\n\nAway.\n")
	res, err := Decode(raw)
	if err != nil || len(res) != 1 || res[0].Kind != KindAutoReply || res[0].Recipient != "frank@example.org" {
		t.Fatalf("Decode: %v %+v", err, res)
	}
}

// nested builds a message with depth levels of multipart nesting.
func nested(depth int) []byte {
	var b strings.Builder
	b.WriteString("From: a@b.test\nSubject: deep\n")
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=\"b%d\"\n\n--b%d\n", i, i)
	}
	b.WriteString("Content-Type: text/plain\n\nbottom\n")
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\n", i)
	}
	return []byte(b.String())
}

// TestNestingLimit checks a message at the depth cap still decodes.
func TestNestingLimit(t *testing.T) {
	if _, err := Decode(nested(MaxDepth - 1)); err != nil {
		t.Fatalf("depth %d: %v", MaxDepth-1, err)
	}
	if _, err := Decode(nested(MaxDepth + 5)); err == nil {
		t.Fatalf("depth %d decoded without error", MaxDepth+5)
	}
}

// bigBounce builds an RFC 3464 bounce returning an original of about size
// bytes (a base64 attachment), as a large bounce looks in practice.
func bigBounce(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	b.WriteString(`From: MAILER-DAEMON@mx.sender.test
To: campaign@sender.test
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="big"

--big
Content-Type: text/plain

Your message could not be delivered.

--big
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.sender.test

Final-Recipient: rfc822; zed@example.com
Action: failed
Status: 5.3.4
Diagnostic-Code: smtp; 552 5.3.4 Message size exceeds fixed limit

--big
Content-Type: message/rfc822

From: campaign@sender.test
To: zed@example.com
Subject: Big
Message-ID: <big@sender.test>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="inner"

--inner
Content-Type: text/plain

See attachment.
--inner
Content-Type: application/octet-stream
Content-Transfer-Encoding: base64

`)
	line := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", 3)[:76] + "\n"
	for b.Len() < size {
		b.WriteString(line)
	}
	b.WriteString("--inner--\n\n--big--\n")
	return b.Bytes()
}

// peakHeapDuring runs fn while sampling the heap and returns the largest
// growth of HeapAlloc over the starting value, in bytes.
func peakHeapDuring(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var max uint64
		var s runtime.MemStats
		for {
			select {
			case <-done:
				runtime.ReadMemStats(&s)
				if s.HeapAlloc > max {
					max = s.HeapAlloc
				}
				peak <- max
				return
			default:
				runtime.ReadMemStats(&s)
				if s.HeapAlloc > max {
					max = s.HeapAlloc
				}
				runtime.Gosched()
			}
		}
	}()
	fn()
	close(done)
	p := <-peak
	if p < base {
		return 0
	}
	return p - base
}

// TestLargeMessageMemory decodes a 25 MB bounce (LF and CRLF) and checks
// the heap grows by less than 3x the message size: the returned original
// is sliced, not copied or decoded.
func TestLargeMessageMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("large message test skipped in -short mode")
	}
	decodeWithinHeap(t, bigBounce(25<<20), "message", func(res []Result) bool {
		return len(res) == 1 && res[0].Recipient == "zed@example.com" && res[0].Status == "5.3.4"
	})
}

// TestLargeTextBounce decodes a 25 MB text bounce whose original is quoted
// in the body (no MIME structure) and checks the heap stays under 3x.
func TestLargeTextBounce(t *testing.T) {
	if testing.Short() {
		t.Skip("large message test skipped in -short mode")
	}
	var b bytes.Buffer
	b.WriteString("From: MAILER-DAEMON@mx.example.com\nTo: campaign@sender.test\nSubject: failure notice\n\n" +
		"Hi. This is the qmail-send program at mx.example.com.\n\n<zoe@example.com>:\n" +
		"Sorry, no mailbox here by that name. (#5.1.1)\n\n--- Below this line is a copy of the message.\n\n" +
		"From: campaign@sender.test\nTo: zoe@example.com\nMessage-ID: <big-text@sender.test>\n\n")
	line := strings.Repeat("All work and no play makes Jack a dull boy. ", 2) + "\n"
	for b.Len() < 25<<20 {
		b.WriteString(line)
	}
	decodeWithinHeap(t, b.Bytes(), "text bounce", func(res []Result) bool {
		return len(res) == 1 && res[0].Recipient == "zoe@example.com" && res[0].Original.MessageID == "big-text@sender.test"
	})
}

// decodeWithinHeap decodes raw as it is (LF) and with CRLF line endings,
// fails unless want accepts the results, and checks that the peak heap
// growth stays under 3x the message size; what names the message in the
// log.
func decodeWithinHeap(t *testing.T, raw []byte, what string, want func([]Result) bool) {
	t.Helper()
	for _, crlf := range []bool{false, true} {
		raw := raw
		if crlf {
			raw = toCRLF(raw)
		}
		var res []Result
		var err error
		grow := peakHeapDuring(func() { res, err = Decode(raw) })
		if err != nil {
			t.Fatal(err)
		}
		if !want(res) {
			t.Fatalf("results %+v", res)
		}
		if limit := uint64(3 * len(raw)); grow > limit {
			t.Errorf("crlf=%v: heap grew %d bytes decoding %d bytes (limit %d)", crlf, grow, len(raw), limit)
		}
		t.Logf("crlf=%v: %d MB %s, peak heap growth %.1f MB", crlf, len(raw)>>20, what, float64(grow)/(1<<20))
	}
}

// BenchmarkDecodeLarge decodes a 2 MB bounce and reports the peak heap
// growth relative to the message size (target under 3).
func BenchmarkDecodeLarge(b *testing.B) {
	raw := bigBounce(2 << 20)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var worst uint64
	for i := 0; i < b.N; i++ {
		g := peakHeapDuring(func() {
			if _, err := Decode(raw); err != nil {
				b.Fatal(err)
			}
		})
		if g > worst {
			worst = g
		}
	}
	b.ReportMetric(float64(worst)/float64(len(raw)), "peakheap/size")
}

// TestConcurrentDecode decodes the fixtures from several goroutines at once
// and checks each gets the same results as alone (run with -race to check
// for shared state).
func TestConcurrentDecode(t *testing.T) {
	files := fixtures(t)
	want := make([][]Result, len(files))
	raws := make([][]byte, len(files))
	for i, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		raws[i] = raw
		want[i], _ = Decode(raw)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(files))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, raw := range raws {
				got, _ := Decode(raw)
				if !reflect.DeepEqual(got, want[i]) {
					errs <- files[i]
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for f := range errs {
		t.Errorf("%s: concurrent decode differs", f)
	}
}
