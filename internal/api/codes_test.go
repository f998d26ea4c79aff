package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

func TestCodes(t *testing.T) {
	v := newEnv(t)
	tok := v.newWorkspace("A").Token

	// Gmail's specific 451 4.3.0 reply is its own entry, distinct from the
	// generic one (issue 5).
	var look struct {
		Entry struct {
			ID       string `json:"id"`
			Code     string `json:"code"`
			Provider string `json:"provider"`
			Title    string `json:"title"`
			Fixes    []string
		} `json:"entry"`
		Others []struct {
			ID string `json:"id"`
		} `json:"others"`
	}
	v.get(tok, "/v1/codes/451-4.3.0").expect(http.StatusOK).decode(&look)
	if !strings.Contains(look.Entry.Code, "4.3.0") || len(look.Others) == 0 {
		t.Fatalf("451-4.3.0 = %+v", look)
	}
	generic := look.Entry.ID
	v.get(tok, "/v1/codes/451-4.3.0?provider=google").expect(http.StatusOK).decode(&look)
	if look.Entry.Provider != "google" || look.Entry.ID == generic {
		t.Fatalf("451-4.3.0 for google = %+v (generic %s)", look.Entry, generic)
	}
	v.get(tok, "/v1/codes/5.1.1").expect(http.StatusOK).decode(&look)
	if look.Entry.Code != "5.1.1" && !strings.HasSuffix(look.Entry.Code, "5.1.1") {
		t.Fatalf("5.1.1 = %+v", look.Entry)
	}
	v.get(tok, "/v1/codes/550").expect(http.StatusOK)
	v.do(request{method: "GET", path: "/v1/codes/hello", token: tok, invalid: true}).expectField(http.StatusBadRequest, "path", "code")

	// List: filters, search and pages.
	l := v.get(tok, "/v1/codes?provider=google&limit=5").expect(http.StatusOK).list()
	if len(l.Data) != 5 || l.NextCursor == nil {
		t.Fatalf("google codes page = %d, next %v", len(l.Data), l.NextCursor)
	}
	for _, e := range l.Data {
		if e["provider"] != "google" {
			t.Fatalf("provider filter let through %v", e["provider"])
		}
	}
	l2 := v.get(tok, "/v1/codes?provider=google&limit=5&cursor="+*l.NextCursor).expect(http.StatusOK).list()
	if len(l2.Data) == 0 || l2.Data[0]["id"] == l.Data[4]["id"] {
		t.Fatalf("second page repeats the first: %v", l2.Data)
	}
	for _, e := range v.get(tok, "/v1/codes?class=hard&label=Mailbox%20full&limit=500").expect(http.StatusOK).list().Data {
		if e["class"] != "hard" || e["label"] != "Mailbox full" {
			t.Fatalf("class/label filter let through %v %v", e["class"], e["label"])
		}
	}
	if l := v.get(tok, "/v1/codes?q=multiple%20destination%20domains").expect(http.StatusOK).list(); len(l.Data) == 0 {
		t.Fatal("search found no entry for Gmail's multiple-domains reply")
	}
	v.do(request{method: "GET", path: "/v1/codes?class=medium", token: tok, invalid: true}).expectField(http.StatusBadRequest, "query", "class")
}

func TestDecode(t *testing.T) {
	v := newEnv(t)
	tok := v.newWorkspace("A").Token
	type result struct {
		Kind      string `json:"kind"`
		Recipient string `json:"recipient"`
		Status    string `json:"status"`
		Verdict   struct {
			Class          *string `json:"class"`
			Reason         string  `json:"reason"`
			Label          string  `json:"label"`
			AddressInvalid bool    `json:"address_invalid"`
		} `json:"verdict"`
		Explanation *struct {
			Code string `json:"code"`
		} `json:"explanation"`
		Original struct {
			MessageID string `json:"message_id"`
		} `json:"original"`
	}
	var out struct {
		Input       string   `json:"input"`
		Results     []result `json:"results"`
		Error       string   `json:"error"`
		Explanation *struct {
			ID       string `json:"id"`
			Code     string `json:"code"`
			Provider string `json:"provider"`
		} `json:"explanation"`
	}
	v.do(request{method: "POST", path: "/v1/decode", token: tok, body: dsnFor("ann@example.org", "orig@example.com"), contentType: "message/rfc822"}).
		expect(http.StatusOK).decode(&out)
	if out.Input != "message" || len(out.Results) != 1 {
		t.Fatalf("decode = %+v", out)
	}
	r := out.Results[0]
	if r.Kind != "bounce" || r.Recipient != "ann@example.org" || r.Status != "5.1.1" || r.Verdict.Class == nil ||
		*r.Verdict.Class != "hard" || r.Verdict.Reason != "userunknown" || !r.Verdict.AddressInvalid ||
		r.Explanation == nil || r.Original.MessageID != "orig@example.com" {
		t.Fatalf("decoded result = %+v", r)
	}

	// A message pasted as text is still read as a message.
	v.do(request{method: "POST", path: "/v1/decode", token: tok, body: dsnFor("ann@example.org", "orig@example.com"), contentType: "text/plain"}).
		expect(http.StatusOK).decode(&out)
	if out.Input != "message" || len(out.Results) != 1 {
		t.Fatalf("decode of a pasted message = %+v", out)
	}

	// Pasted reply text: explained from the reply it quotes.
	v.do(request{method: "POST", path: "/v1/decode", token: tok, contentType: "text/plain",
		body: []byte("451 4.3.0 Multiple destination domains per transaction is unsupported. Please try again. - gsmtp")}).
		expect(http.StatusOK).decode(&out)
	if out.Input != "text" || len(out.Results) != 0 || out.Explanation == nil || out.Explanation.Provider != "google" {
		t.Fatalf("decode of pasted text = %+v", out)
	}
	v.do(request{method: "POST", path: "/v1/decode", token: tok, contentType: "text/plain", body: []byte("hello there")}).
		expect(http.StatusOK).decode(&out)
	if out.Explanation != nil || out.Error == "" {
		t.Fatalf("decode of plain chat = %+v", out)
	}

	// Nothing is stored.
	if n := countRows(t, v, "raw_messages") + countRows(t, v, "bounce_events"); n != 0 {
		t.Fatalf("decode stored %d rows", n)
	}

	// Limits and media types.
	v.do(request{method: "POST", path: "/v1/decode", token: tok, contentType: "application/json", body: []byte(`{}`), invalid: true}).
		expect(http.StatusUnsupportedMediaType).problem()
	big := bytes.Repeat([]byte("a"), 10_000_001)
	v.do(request{method: "POST", path: "/v1/decode", token: tok, contentType: "text/plain", body: big}).
		expect(http.StatusRequestEntityTooLarge).problem()
	atLimit := append([]byte("Subject: x\r\n\r\n"), bytes.Repeat([]byte("a"), 10_000_000-14)...)
	v.do(request{method: "POST", path: "/v1/decode", token: tok, contentType: "message/rfc822", body: atLimit}).
		expect(http.StatusOK)
}

func TestMetaRoutes(t *testing.T) {
	v := newEnv(t)
	tok := v.newWorkspace("A").Token
	v.get(tok, "/v1/workspace").expect(http.StatusOK)
	v.get(tok, "/v1/campaigns/424242").expect(http.StatusNotFound)

	spec := v.get("", "/openapi.yaml").expect(http.StatusOK)
	if !bytes.HasPrefix(spec.Body, []byte("openapi: 3.1")) {
		t.Fatalf("/openapi.yaml starts %q", spec.Body[:20])
	}
	m := v.get("", "/metrics").expect(http.StatusOK)
	for _, want := range []string{
		`rebound_http_requests_total{method="GET",route="/v1/workspace",status="200"}`,
		`rebound_http_requests_total{method="GET",route="/v1/campaigns/:campaign_id",status="404"}`,
		`rebound_http_request_duration_seconds_bucket{method="GET",route="/v1/workspace",status="200"`,
		`rebound_recorded_events{class="hard",kind="bounce"} 0`,
		`rebound_mailboxes{status="active"} 0`,
		`rebound_metrics_database_up 1`,
	} {
		if !strings.Contains(string(m.Body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	v.get("", "/healthz").expect(http.StatusOK)
	v.get("", "/readyz").expect(http.StatusOK) // no dependency checks in this env

	// Unknown routes and methods are problems too.
	v.do(request{method: "GET", path: "/v1/nothing", token: tok, invalid: true}).expect(http.StatusNotFound).problem()
	p := v.do(request{method: "PUT", path: "/v1/campaigns", token: tok, invalid: true}).expect(http.StatusMethodNotAllowed).problem()
	if p.Code != "method_not_allowed" {
		t.Fatalf("405 problem = %+v", p)
	}
	// Unknown paths do not become metric labels.
	m = v.get("", "/metrics").expect(http.StatusOK)
	if strings.Contains(string(m.Body), "/v1/nothing") {
		t.Error("/metrics has a label for an unrouted path")
	}
}
