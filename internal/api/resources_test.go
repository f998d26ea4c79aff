package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/tracking"
)

// list is the body of every list route.
type list struct {
	Data       []map[string]any `json:"data"`
	NextCursor *string          `json:"next_cursor"`
}

func (r *response) list() list {
	r.t.Helper()
	var l list
	r.decode(&l)
	return l
}

// ids returns the "id" of each item.
func (l list) ids() []int64 {
	out := make([]int64, 0, len(l.Data))
	for _, d := range l.Data {
		out = append(out, int64(d["id"].(float64)))
	}
	return out
}

// fixture is one workspace's resources, built through the API (and one
// bounce recorded through tracking, as the worker does).
type fixture struct {
	ws         workspace
	campaignID int64
	leadID     int64
	lead2ID    int64
	sentID     int64
	mailboxID  int64
	bounceID   int64
	unmatched  int64
	suppID     int64
	keyID      int64
	activityID int64
}

// dsnFor writes an RFC 3464 bounce of the message msgID sent to rcpt,
// failed with 550 5.1.1.
func dsnFor(rcpt, msgID string) []byte {
	return []byte(strings.ReplaceAll(`From: Mail Delivery System <MAILER-DAEMON@mx.example.net>
To: sender@example.com
Subject: Undelivered Mail Returned to Sender
Message-ID: <dsn-`+msgID+`>
Date: Mon, 30 Nov 2026 10:00:00 +0000
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="BOUND"

--BOUND
Content-Type: text/plain

The message could not be delivered.

--BOUND
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net

Final-Recipient: rfc822; `+rcpt+`
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.example.org
Diagnostic-Code: smtp; 550 5.1.1 <`+rcpt+`>: Recipient address rejected: User unknown

--BOUND
Content-Type: text/rfc822-headers

From: sender@example.com
To: `+rcpt+`
Subject: Hello
Message-ID: <`+msgID+`>

--BOUND--
`, "\n", "\r\n"))
}

// newFixture builds a workspace with one of every resource.
func (v *env) newFixture(name string) fixture {
	v.t.Helper()
	f := fixture{ws: v.newWorkspace(name)}
	tok := f.ws.Token
	f.keyID = f.ws.KeyID
	f.campaignID = v.post(tok, "/v1/campaigns", map[string]any{"name": name + " launch"}).expect(http.StatusCreated).idOf()
	f.leadID = v.post(tok, "/v1/leads", map[string]any{"campaign_id": f.campaignID, "email": "ann@" + strings.ToLower(name) + ".example"}).expect(http.StatusCreated).idOf()
	f.lead2ID = v.post(tok, "/v1/leads", map[string]any{"campaign_id": f.campaignID, "email": "bob@" + strings.ToLower(name) + ".example"}).expect(http.StatusCreated).idOf()
	f.mailboxID = v.post(tok, "/v1/mailboxes", map[string]any{
		"name": "Sales", "host": "127.0.0.1", "port": 1, "tls": "tls", "username": "sales",
		"credentials": map[string]any{"password": "s3cret-password"},
	}).expect(http.StatusCreated).idOf()
	msgID := fmt.Sprintf("m1.%s@example.com", strings.ToLower(name))
	f.sentID = v.post(tok, "/v1/sent-messages", map[string]any{
		"lead_id": f.leadID, "mailbox_id": f.mailboxID, "message_id": "<" + msgID + ">", "sent_at": "2026-11-29T10:00:00Z",
	}).expect(http.StatusCreated).idOf()

	ctx := context.Background()
	out, err := v.tracking.Record(ctx, tracking.Incoming{WorkspaceID: f.ws.ID, MailboxID: f.mailboxID, Folder: "INBOX",
		Raw: dsnFor("ann@"+strings.ToLower(name)+".example", msgID), ReceivedAt: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)})
	if err != nil || len(out.Events) != 1 || out.Events[0].LeadID != f.leadID {
		v.t.Fatalf("record bounce: %+v %v", out, err)
	}
	f.bounceID = out.Events[0].EventID
	out, err = v.tracking.Record(ctx, tracking.Incoming{WorkspaceID: f.ws.ID, Folder: "INBOX",
		Raw: dsnFor("nobody@elsewhere.example", "unknown."+msgID), ReceivedAt: time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)})
	if err != nil || len(out.Events) != 1 || out.Events[0].CampaignID != 0 {
		v.t.Fatalf("record unmatched bounce: %+v %v", out, err)
	}
	f.unmatched = out.Events[0].EventID
	f.suppID = v.post(tok, "/v1/suppressions", map[string]any{"email": "manual@" + strings.ToLower(name) + ".example"}).expect(http.StatusCreated).idOf()
	acts := v.get(tok, fmt.Sprintf("/v1/leads/%d/activities", f.leadID)).expect(http.StatusOK).list()
	if len(acts.Data) == 0 {
		v.t.Fatal("the lead has no timeline")
	}
	f.activityID = acts.ids()[0]
	return f
}

func TestCampaigns(t *testing.T) {
	v := newEnv(t)
	a := v.newWorkspace("A")
	tok := a.Token
	var c struct {
		ID         int64   `json:"id"`
		Name       string  `json:"name"`
		ExternalID *string `json:"external_id"`
		Status     string  `json:"status"`
		CreatedAt  string  `json:"created_at"`
	}
	v.post(tok, "/v1/campaigns", map[string]any{"name": " Spring ", "external_id": "sp-1"}).expect(http.StatusCreated).decode(&c)
	if c.Name != "Spring" || c.ExternalID == nil || *c.ExternalID != "sp-1" || c.Status != "active" || strings.HasPrefix(c.CreatedAt, "0001") {
		t.Fatalf("created campaign = %+v", c)
	}
	v.post(tok, "/v1/campaigns", map[string]any{"name": "Other", "external_id": "sp-1"}).expectField(http.StatusConflict, "body", "external_id")
	v.do(request{method: "POST", path: "/v1/campaigns", token: tok, body: []byte(`{"name": "x", "status": "done"}`), invalid: true}).
		expectField(http.StatusBadRequest, "body", "status")
	v.do(request{method: "POST", path: "/v1/campaigns", token: tok, body: []byte(`{"name": "x", "colour": "red"}`), invalid: true}).
		expectField(http.StatusBadRequest, "body", "colour")
	v.do(request{method: "POST", path: "/v1/campaigns", token: tok, body: []byte(`{"name": 5}`), invalid: true}).
		expectField(http.StatusBadRequest, "body", "name")
	if p := v.do(request{method: "POST", path: "/v1/campaigns", token: tok, body: []byte(`{"name": `), invalid: true}).
		expect(http.StatusBadRequest).problem(); p.Code != "malformed_body" {
		t.Fatalf("truncated JSON problem = %+v", p)
	}
	v.do(request{method: "POST", path: "/v1/campaigns", token: tok, body: []byte(`name=x`), contentType: "application/x-www-form-urlencoded", invalid: true}).
		expect(http.StatusUnsupportedMediaType).problem()
	big := `{"name": "` + strings.Repeat("x", 2<<20) + `"}`
	v.do(request{method: "POST", path: "/v1/campaigns", token: tok, body: []byte(big), invalid: true}).expect(http.StatusRequestEntityTooLarge).problem()

	// PATCH: only present fields change; null clears the external ID.
	var p struct {
		Name       string  `json:"name"`
		ExternalID *string `json:"external_id"`
		Status     string  `json:"status"`
	}
	v.patch(tok, "/v1/campaigns/"+itoa(c.ID), map[string]any{"status": "paused"}).expect(http.StatusOK).decode(&p)
	if p.Name != "Spring" || p.Status != "paused" || p.ExternalID == nil {
		t.Fatalf("after status patch = %+v", p)
	}
	v.patch(tok, "/v1/campaigns/"+itoa(c.ID), map[string]any{"external_id": nil}).expect(http.StatusOK).decode(&p)
	if p.ExternalID != nil {
		t.Fatalf("external_id not cleared: %+v", p)
	}

	// Pagination: stable, newest first, no overlap, limit validated.
	for i := 0; i < 4; i++ {
		v.post(tok, "/v1/campaigns", map[string]any{"name": fmt.Sprintf("c%d", i)}).expect(http.StatusCreated)
	}
	seen := map[int64]bool{}
	path := "/v1/campaigns?limit=2"
	pages := 0
	last := int64(1 << 62)
	for {
		l := v.get(tok, path).expect(http.StatusOK).list()
		pages++
		for _, id := range l.ids() {
			if seen[id] || id >= last {
				t.Fatalf("page %d repeats or misorders id %d", pages, id)
			}
			seen[id], last = true, id
		}
		if l.NextCursor == nil {
			break
		}
		path = "/v1/campaigns?limit=2&cursor=" + *l.NextCursor
	}
	if len(seen) != 5 || pages != 3 {
		t.Fatalf("paged %d campaigns in %d pages, want 5 in 3", len(seen), pages)
	}
	if l := v.get(tok, "/v1/campaigns?status=paused").expect(http.StatusOK).list(); len(l.Data) != 1 {
		t.Fatalf("status filter: %d campaigns", len(l.Data))
	}
	v.do(request{method: "GET", path: "/v1/campaigns?limit=501", token: tok, invalid: true}).expectField(http.StatusBadRequest, "query", "limit")
	v.do(request{method: "GET", path: "/v1/campaigns?cursor=nonsense", token: tok}).expectField(http.StatusBadRequest, "query", "cursor")
	v.do(request{method: "GET", path: "/v1/campaigns/abc", token: tok, invalid: true}).expectField(http.StatusBadRequest, "path", "campaign_id")

	v.del(tok, "/v1/campaigns/"+itoa(c.ID)).expect(http.StatusNoContent)
	v.get(tok, "/v1/campaigns/"+itoa(c.ID)).expect(http.StatusNotFound).problem()
	v.del(tok, "/v1/campaigns/"+itoa(c.ID)).expect(http.StatusNotFound)
}

func TestLeadsAndImport(t *testing.T) {
	v := newEnv(t)
	a := v.newWorkspace("A")
	tok := a.Token
	cid := v.post(tok, "/v1/campaigns", map[string]any{"name": "C"}).expect(http.StatusCreated).idOf()

	var l struct {
		ID     int64  `json:"id"`
		Email  string `json:"email"`
		Status string `json:"status"`
	}
	v.post(tok, "/v1/leads", map[string]any{"campaign_id": cid, "email": "Ann@Example.COM"}).expect(http.StatusCreated).decode(&l)
	if l.Email != "ann@example.com" || l.Status != "active" {
		t.Fatalf("lead = %+v", l)
	}
	v.post(tok, "/v1/leads", map[string]any{"campaign_id": cid, "email": "ann@example.com"}).expectField(http.StatusConflict, "body", "email")
	v.post(tok, "/v1/leads", map[string]any{"campaign_id": cid, "email": "x1@example.com", "external_id": "e1"}).expect(http.StatusCreated)
	v.post(tok, "/v1/leads", map[string]any{"campaign_id": cid, "email": "x2@example.com", "external_id": "e1"}).expectField(http.StatusConflict, "body", "external_id")
	v.post(tok, "/v1/leads", map[string]any{"campaign_id": cid, "email": "not an address"}).expectField(http.StatusBadRequest, "body", "email")
	v.post(tok, "/v1/leads", map[string]any{"campaign_id": 99999, "email": "x@example.com"}).expectField(http.StatusNotFound, "body", "campaign_id")

	// Stop and resume by PATCH.
	var p struct {
		Status     string  `json:"status"`
		StopReason string  `json:"stop_reason"`
		StoppedAt  *string `json:"stopped_at"`
	}
	v.patch(tok, "/v1/leads/"+itoa(l.ID), map[string]any{"status": "stopped", "stop_reason": "unsubscribed"}).expect(http.StatusOK).decode(&p)
	if p.Status != "stopped" || p.StopReason != "unsubscribed" || p.StoppedAt == nil {
		t.Fatalf("stopped lead = %+v", p)
	}
	v.patch(tok, "/v1/leads/"+itoa(l.ID), map[string]any{"status": "active"}).expect(http.StatusOK).decode(&p)
	if p.StopReason != "" || p.StoppedAt != nil {
		t.Fatalf("resumed lead = %+v", p)
	}
	v.patch(tok, "/v1/leads/"+itoa(l.ID), map[string]any{"stop_reason": "x"}).expectField(http.StatusBadRequest, "body", "stop_reason")

	// JSON import: valid, existing, duplicate in request, invalid rows.
	rows := []map[string]any{
		{"email": "b@example.com", "external_id": "b"},
		{"email": "ann@example.com"},                   // already a lead
		{"email": "B@example.com"},                     // repeated in the request
		{"email": "broken"},                            // invalid
		{"email": "c@example.com", "external_id": "b"}, // external ID repeated
		{"email": "d@example.com"},
	}
	var rep struct {
		Received, Created, Existing, Failed int
		Errors                              []struct {
			Row     int    `json:"row"`
			Field   string `json:"field"`
			Message string `json:"message"`
		}
	}
	v.post(tok, "/v1/leads/import", map[string]any{"campaign_id": cid, "leads": rows}).expect(http.StatusOK).decode(&rep)
	if rep.Received != 6 || rep.Created != 2 || rep.Existing != 2 || rep.Failed != 2 || len(rep.Errors) != 2 ||
		rep.Errors[0].Row != 4 || rep.Errors[0].Field != "email" || rep.Errors[1].Row != 5 || rep.Errors[1].Field != "external_id" {
		t.Fatalf("JSON import report = %+v", rep)
	}

	// CSV import with a BOM, extra columns and a quoted field.
	csv := "\ufeffName,Email,external_id\n\"Doe, Jane\",jane@example.com,j1\nX,,\nY,d@example.com,\n"
	v.do(request{method: "POST", path: "/v1/leads/import?campaign_id=" + itoa(cid), token: tok, body: []byte(csv), contentType: "text/csv"}).
		expect(http.StatusOK).decode(&rep)
	if rep.Received != 3 || rep.Created != 1 || rep.Existing != 1 || rep.Failed != 1 || rep.Errors[0].Row != 2 {
		t.Fatalf("CSV import report = %+v", rep)
	}
	v.do(request{method: "POST", path: "/v1/leads/import?campaign_id=" + itoa(cid), token: tok, body: []byte("name\nx\n"), contentType: "text/csv"}).
		expectField(http.StatusBadRequest, "body", "header")
	v.do(request{method: "POST", path: "/v1/leads/import", token: tok, body: []byte("email\nx@example.com\n"), contentType: "text/csv"}).
		expectField(http.StatusBadRequest, "query", "campaign_id")

	// 10,000 rows in one request; one more is refused.
	many := make([]map[string]any, 10000)
	for i := range many {
		many[i] = map[string]any{"email": fmt.Sprintf("bulk%05d@example.com", i)}
	}
	start := time.Now()
	v.post(tok, "/v1/leads/import", map[string]any{"campaign_id": cid, "leads": many}).expect(http.StatusOK).decode(&rep)
	if rep.Created != 10000 || rep.Failed != 0 {
		t.Fatalf("10,000-row import = %+v", rep)
	}
	t.Logf("imported 10,000 leads in %v", time.Since(start))
	many = append(many, map[string]any{"email": "one-more@example.com"})
	v.do(request{method: "POST", path: "/v1/leads/import", token: tok, invalid: true,
		body: jsonBody(t, map[string]any{"campaign_id": cid, "leads": many})}).expectField(http.StatusBadRequest, "body", "leads")

	if got := v.get(tok, "/v1/leads?campaign_id="+itoa(cid)+"&email=JANE@example.com").expect(http.StatusOK).list(); len(got.Data) != 1 {
		t.Fatalf("email filter found %d leads", len(got.Data))
	}
	if got := v.get(tok, "/v1/leads?status=active&limit=500").expect(http.StatusOK).list(); len(got.Data) != 500 || got.NextCursor == nil {
		t.Fatalf("page of 500: %d, next %v", len(got.Data), got.NextCursor)
	}
	v.del(tok, "/v1/leads/"+itoa(l.ID)).expect(http.StatusNoContent)
	v.get(tok, "/v1/leads/"+itoa(l.ID)).expect(http.StatusNotFound)
}

func TestSentBouncesTimelineSuppressions(t *testing.T) {
	v := newEnv(t)
	f := v.newFixture("Acme")
	tok := f.ws.Token

	// The sent message and the bounce it drew.
	var sm struct {
		CampaignID int64  `json:"campaign_id"`
		MessageID  string `json:"message_id"`
		Recipient  string `json:"recipient"`
	}
	v.get(tok, "/v1/sent-messages/"+itoa(f.sentID)).expect(http.StatusOK).decode(&sm)
	if sm.CampaignID != f.campaignID || sm.MessageID != "m1.acme@example.com" || sm.Recipient != "ann@acme.example" {
		t.Fatalf("sent message = %+v", sm)
	}
	v.post(tok, "/v1/sent-messages", map[string]any{"lead_id": f.leadID, "message_id": "m1.acme@example.com", "sent_at": "2026-11-29T10:00:00Z"}).
		expectField(http.StatusConflict, "body", "message_id")
	v.post(tok, "/v1/sent-messages", map[string]any{"lead_id": 999999, "message_id": "x@y", "sent_at": "2026-11-29T10:00:00Z"}).
		expectField(http.StatusNotFound, "body", "lead_id")
	if l := v.get(tok, "/v1/sent-messages?lead_id="+itoa(f.leadID)).expect(http.StatusOK).list(); len(l.Data) != 1 {
		t.Fatalf("sent list by lead: %d", len(l.Data))
	}

	var bulk struct {
		Received, Created, Existing, Failed int
		Errors                              []struct{ Row int }
	}
	v.post(tok, "/v1/sent-messages/bulk", map[string]any{"messages": []map[string]any{
		{"lead_id": f.lead2ID, "message_id": "m2@example.com", "sent_at": "2026-11-29T11:00:00Z"},
		{"lead_id": f.leadID, "message_id": "m1.acme@example.com", "sent_at": "2026-11-29T10:00:00Z"},
		{"lead_id": f.lead2ID, "message_id": "", "sent_at": "2026-11-29T11:00:00Z"},
		{"lead_id": 424242, "message_id": "m3@example.com", "sent_at": "2026-11-29T11:00:00Z"},
		{"lead_id": f.lead2ID, "message_id": "m4@example.com", "sent_at": "yesterday"},
	}}).expect(http.StatusOK).decode(&bulk)
	if bulk.Received != 5 || bulk.Created != 1 || bulk.Existing != 1 || bulk.Failed != 3 || bulk.Errors[0].Row != 3 || bulk.Errors[2].Row != 5 {
		t.Fatalf("bulk report = %+v", bulk)
	}

	// Bounce list and filters.
	all := v.get(tok, "/v1/bounces").expect(http.StatusOK).list()
	if len(all.Data) != 2 || all.ids()[0] != f.unmatched {
		t.Fatalf("bounces = %v, want [unmatched, matched]", all.ids())
	}
	for _, q := range []string{
		"campaign_id=" + itoa(f.campaignID), "lead_id=" + itoa(f.leadID), "mailbox_id=" + itoa(f.mailboxID),
		"kind=bounce&class=hard&reason=userunknown&label=Invalid%20recipient&lead_id=" + itoa(f.leadID),
		"since=2026-11-30T09:00:00Z&until=2026-11-30T10:30:00Z",
	} {
		l := v.get(tok, "/v1/bounces?"+q).expect(http.StatusOK).list()
		if len(l.Data) != 1 || l.ids()[0] != f.bounceID {
			t.Errorf("bounces?%s = %v, want [%d]", q, l.ids(), f.bounceID)
		}
	}
	if l := v.get(tok, "/v1/bounces?class=soft").expect(http.StatusOK).list(); len(l.Data) != 0 {
		t.Errorf("class=soft found %v", l.ids())
	}
	if l := v.get(tok, "/v1/bounces?limit=1").expect(http.StatusOK).list(); l.NextCursor == nil {
		t.Error("no next cursor after the first of two bounces")
	} else if l2 := v.get(tok, "/v1/bounces?limit=1&cursor="+*l.NextCursor).expect(http.StatusOK).list(); len(l2.Data) != 1 || l2.ids()[0] != f.bounceID || l2.NextCursor != nil {
		t.Errorf("second page = %v", l2.ids())
	}
	v.do(request{method: "GET", path: "/v1/bounces?kind=spam", token: tok, invalid: true}).expectField(http.StatusBadRequest, "query", "kind")
	v.do(request{method: "GET", path: "/v1/bounces?since=yesterday", token: tok, invalid: true}).expectField(http.StatusBadRequest, "query", "since")
	if u := v.get(tok, "/v1/unmatched-bounces").expect(http.StatusOK).list(); len(u.Data) != 1 || u.ids()[0] != f.unmatched {
		t.Fatalf("unmatched = %v", u.ids())
	}

	// One bounce: decoded detail, explanation and raw message.
	var d struct {
		Bounce struct {
			Kind       string  `json:"kind"`
			Class      *string `json:"class"`
			Reason     string  `json:"reason"`
			Status     string  `json:"status"`
			MatchedBy  *string `json:"matched_by"`
			LeadID     *int64  `json:"lead_id"`
			MailboxID  *int64  `json:"mailbox_id"`
			Recipient  string  `json:"recipient"`
			Diagnostic string  `json:"diagnostic"`
		} `json:"bounce"`
		Explanation *struct {
			Code  string `json:"code"`
			Title string `json:"title"`
		} `json:"explanation"`
		RawMessage struct {
			Content string `json:"content"`
		} `json:"raw_message"`
	}
	v.get(tok, "/v1/bounces/"+itoa(f.bounceID)).expect(http.StatusOK).decode(&d)
	if d.Bounce.Kind != "bounce" || d.Bounce.Class == nil || *d.Bounce.Class != "hard" || d.Bounce.Reason != "userunknown" ||
		d.Bounce.Status != "5.1.1" || d.Bounce.MatchedBy == nil || *d.Bounce.MatchedBy != "message_id" ||
		d.Bounce.LeadID == nil || *d.Bounce.LeadID != f.leadID || d.Bounce.MailboxID == nil || *d.Bounce.MailboxID != f.mailboxID {
		t.Fatalf("bounce detail = %+v", d.Bounce)
	}
	if d.Explanation == nil || !strings.Contains(d.Explanation.Code, "5.1.1") {
		t.Fatalf("explanation = %+v", d.Explanation)
	}
	if !strings.Contains(d.RawMessage.Content, "Final-Recipient: rfc822; ann@acme.example") {
		t.Fatalf("raw content = %q", d.RawMessage.Content)
	}
	raw := v.get(tok, "/v1/bounces/"+itoa(f.bounceID)+"/raw").expect(http.StatusOK)
	if raw.Header.Get("Content-Type") != "message/rfc822" || string(raw.Body) != string(dsnFor("ann@acme.example", "m1.acme@example.com")) {
		t.Fatalf("raw = %s %q", raw.Header.Get("Content-Type"), raw.Body)
	}

	// Past the retention period housekeeping empties the bytes: the detail
	// says when, and the raw route answers 410 Gone.
	if err := v.db.Exec(`UPDATE raw_messages SET content = ''::bytea, content_purged_at = now()
		WHERE id = (SELECT raw_message_id FROM bounce_events WHERE id = ?)`, f.bounceID).Error; err != nil {
		t.Fatal(err)
	}
	var purged struct {
		RawMessage struct {
			Content         string  `json:"content"`
			ContentPurgedAt *string `json:"content_purged_at"`
		} `json:"raw_message"`
	}
	v.get(tok, "/v1/bounces/"+itoa(f.bounceID)).expect(http.StatusOK).decode(&purged)
	if purged.RawMessage.Content != "" || purged.RawMessage.ContentPurgedAt == nil {
		t.Fatalf("purged raw message in detail = %+v", purged.RawMessage)
	}
	v.get(tok, "/v1/bounces/"+itoa(f.bounceID)+"/raw").expect(http.StatusGone)

	// The lead was stopped and the address suppressed by the policy; the
	// timeline shows the send and the bounce, newest first.
	var lead struct {
		Status      string `json:"status"`
		BounceCount int    `json:"bounce_count"`
	}
	v.get(tok, "/v1/leads/"+itoa(f.leadID)).expect(http.StatusOK).decode(&lead)
	if lead.Status != "stopped" || lead.BounceCount != 1 {
		t.Fatalf("lead after hard bounce = %+v", lead)
	}
	tl := v.get(tok, "/v1/leads/"+itoa(f.leadID)+"/activities").expect(http.StatusOK).list()
	if len(tl.Data) != 2 || tl.Data[0]["activity"] != "bounce" || tl.Data[1]["activity"] != "sent" {
		t.Fatalf("timeline = %+v", tl.Data)
	}
	var chk struct {
		Suppressed  bool `json:"suppressed"`
		Suppression *struct {
			Source         string `json:"source"`
			SourceBounceID *int64 `json:"source_bounce_id"`
		} `json:"suppression"`
	}
	v.get(tok, "/v1/suppressions/check?email=ANN@acme.example").expect(http.StatusOK).decode(&chk)
	if !chk.Suppressed || chk.Suppression.Source != "bounce" || *chk.Suppression.SourceBounceID != f.bounceID {
		t.Fatalf("check = %+v", chk)
	}
	v.get(tok, "/v1/suppressions/check?email=bob@acme.example").expect(http.StatusOK).decode(&chk)
	if chk.Suppressed || chk.Suppression != nil {
		t.Fatalf("check of a kept address = %+v", chk)
	}
	v.do(request{method: "GET", path: "/v1/suppressions/check?email=nope", token: tok}).expectField(http.StatusBadRequest, "query", "email")

	// Manual suppressions: add (idempotent), list by source, remove.
	v.post(tok, "/v1/suppressions", map[string]any{"email": "Manual@acme.example"}).expect(http.StatusOK)
	if l := v.get(tok, "/v1/suppressions?source=manual").expect(http.StatusOK).list(); len(l.Data) != 1 || l.ids()[0] != f.suppID {
		t.Fatalf("manual suppressions = %v", l.ids())
	}
	// ann (matched hard bounce), nobody (unmatched hard bounce), manual.
	if l := v.get(tok, "/v1/suppressions").expect(http.StatusOK).list(); len(l.Data) != 3 {
		t.Fatalf("suppressions = %v", l.ids())
	}
	v.del(tok, "/v1/suppressions/"+itoa(f.suppID)).expect(http.StatusNoContent)
	v.del(tok, "/v1/suppressions/"+itoa(f.suppID)).expect(http.StatusNotFound)

	// /metrics reads the recorded events and mailboxes from the database.
	m := string(v.get("", "/metrics").expect(http.StatusOK).Body)
	for _, want := range []string{`rebound_recorded_events{class="hard",kind="bounce"} 2`, `rebound_mailboxes{status="active"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestPolicy(t *testing.T) {
	v := newEnv(t)
	a := v.newWorkspace("A")
	var p struct {
		Overrides map[string]any `json:"overrides"`
		Effective struct {
			SoftBounceLimit    int  `json:"soft_bounce_limit"`
			BackoffBaseSeconds int  `json:"backoff_base_seconds"`
			BackoffCapSeconds  int  `json:"backoff_cap_seconds"`
			StopOnHard         bool `json:"stop_on_hard"`
			SuppressOnAnyHard  bool `json:"suppress_on_any_hard"`
		} `json:"effective"`
		UpdatedAt *string `json:"updated_at"`
	}
	v.get(a.Token, "/v1/policy").expect(http.StatusOK).decode(&p)
	if p.Effective.SoftBounceLimit != 4 || p.Effective.BackoffBaseSeconds != 1800 || p.Effective.BackoffCapSeconds != 172800 ||
		!p.Effective.StopOnHard || p.Effective.SuppressOnAnyHard || p.UpdatedAt != nil {
		t.Fatalf("default policy = %+v", p)
	}
	v.put(a.Token, "/v1/policy", map[string]any{"soft_bounce_limit": 2, "suppress_on_any_hard": true}).expect(http.StatusOK).decode(&p)
	if p.Effective.SoftBounceLimit != 2 || !p.Effective.SuppressOnAnyHard || p.UpdatedAt == nil || p.Overrides["stop_on_hard"] != nil {
		t.Fatalf("policy after PUT = %+v", p)
	}
	v.put(a.Token, "/v1/policy", map[string]any{"backoff_base_seconds": 7200, "backoff_cap_seconds": 3600}).
		expectField(http.StatusBadRequest, "body", "backoff_cap_seconds")
	v.do(request{method: "PUT", path: "/v1/policy", token: a.Token, body: []byte(`{"soft_bounce_limit": 0}`), invalid: true}).
		expectField(http.StatusBadRequest, "body", "soft_bounce_limit")
	// PUT replaces: absent fields return to the default.
	v.put(a.Token, "/v1/policy", map[string]any{}).expect(http.StatusOK).decode(&p)
	if p.Effective.SoftBounceLimit != 4 || p.Effective.SuppressOnAnyHard {
		t.Fatalf("policy after empty PUT = %+v", p)
	}
}

func TestMailboxes(t *testing.T) {
	v := newEnv(t)
	a := v.newWorkspace("A")
	tok := a.Token
	res := v.post(tok, "/v1/mailboxes", map[string]any{
		"name": "Sales", "host": "127.0.0.1", "port": 1, "tls": "tls", "username": "sales",
		"folders": []string{"INBOX", "Bounces"}, "credentials": map[string]any{"password": "hunter2-secret"},
	}).expect(http.StatusCreated)
	if strings.Contains(string(res.Body), "hunter2-secret") || strings.Contains(string(res.Body), "credentials") {
		t.Fatalf("mailbox response shows the secret: %s", res.Body)
	}
	id := res.idOf()
	var mb struct {
		Host    string   `json:"host"`
		Folders []string `json:"folders"`
		Status  string   `json:"status"`
		Name    string   `json:"name"`
	}
	v.get(tok, "/v1/mailboxes/"+itoa(id)).expect(http.StatusOK).decode(&mb)
	if mb.Host != "127.0.0.1" || len(mb.Folders) != 2 || mb.Status != "active" {
		t.Fatalf("mailbox = %+v", mb)
	}
	v.post(tok, "/v1/mailboxes", map[string]any{"host": "127.0.0.1", "username": "x", "credentials": map[string]any{}}).
		expectField(http.StatusBadRequest, "body", "password")
	// A mailbox created paused is not synced until a PATCH resumes it.
	var pausedMB struct {
		Status string `json:"status"`
	}
	v.post(tok, "/v1/mailboxes", map[string]any{"host": "127.0.0.1", "username": "later", "status": "paused",
		"credentials": map[string]any{"password": "p"}}).expect(http.StatusCreated).decode(&pausedMB)
	if pausedMB.Status != "paused" {
		t.Fatalf("mailbox created paused has status %q", pausedMB.Status)
	}
	v.do(request{method: "POST", path: "/v1/mailboxes", token: tok, invalid: true,
		body: []byte(`{"host": "127.0.0.1", "username": "x", "status": "stopped", "credentials": {"password": "p"}}`)}).
		expectField(http.StatusBadRequest, "body", "status")
	v.do(request{method: "POST", path: "/v1/mailboxes", token: tok, invalid: true,
		body: []byte(`{"host": "127.0.0.1", "username": "x"}`)}).expectField(http.StatusBadRequest, "body", "credentials")

	v.patch(tok, "/v1/mailboxes/"+itoa(id), map[string]any{"status": "paused", "name": "Sales EU"}).expect(http.StatusOK).decode(&mb)
	if mb.Status != "paused" || mb.Name != "Sales EU" || mb.Host != "127.0.0.1" {
		t.Fatalf("patched mailbox = %+v", mb)
	}
	if l := v.get(tok, "/v1/mailboxes?status=paused").expect(http.StatusOK).list(); len(l.Data) != 2 {
		t.Fatalf("mailboxes = %v", l.ids())
	}
	// Nothing listens on port 1: the test fails, as a result, not an error.
	var tr struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	v.post(tok, "/v1/mailboxes/"+itoa(id)+"/test", nil).expect(http.StatusOK).decode(&tr)
	if tr.OK || tr.Error == "" || strings.Contains(tr.Error, "hunter2") {
		t.Fatalf("test result = %+v", tr)
	}
	var q struct {
		MailboxID int64 `json:"mailbox_id"`
		Queued    bool  `json:"queued"`
	}
	v.post(tok, "/v1/mailboxes/"+itoa(id)+"/sync", nil).expect(http.StatusAccepted).decode(&q)
	if q.MailboxID != id {
		t.Fatalf("sync = %+v", q)
	}
	v.post(tok, "/v1/mailboxes/"+itoa(id)+"/sync", nil).expect(http.StatusAccepted).decode(&q)
	if q.Queued {
		t.Fatal("a second sync while one is queued was queued again")
	}
	v.del(tok, "/v1/mailboxes/"+itoa(id)).expect(http.StatusNoContent)
	v.get(tok, "/v1/mailboxes/"+itoa(id)).expect(http.StatusNotFound)
}
