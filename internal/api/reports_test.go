package api_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/report"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// bounceReport is the JSON of a bounce report, as far as the tests read it.
type bounceReport struct {
	WorkspaceID  int64  `json:"workspace_id"`
	CampaignID   *int64 `json:"campaign_id"`
	CampaignName string `json:"campaign_name"`
	From, To, TZ string
	Totals       struct {
		MessagesSent int64   `json:"messages_sent"`
		Events       int64   `json:"events"`
		Bounced      int64   `json:"bounced"`
		Hard         int64   `json:"hard"`
		Soft         int64   `json:"soft"`
		LeadsBounced int64   `json:"leads_bounced"`
		HardRate     float64 `json:"hard_bounce_rate"`
	} `json:"totals"`
	Labels []struct {
		Label    string  `json:"label"`
		Count    int64   `json:"count"`
		Soft     int64   `json:"soft"`
		Hard     int64   `json:"hard"`
		Share    float64 `json:"share"`
		TopCodes []struct {
			Code  string `json:"code"`
			Count int64  `json:"count"`
			Title string `json:"title"`
		} `json:"top_codes"`
	} `json:"labels"`
	Providers []struct {
		Provider     string `json:"provider"`
		MessagesSent int64  `json:"messages_sent"`
		Hard         int64  `json:"hard"`
	} `json:"providers"`
	Mailboxes []struct {
		MailboxID    *int64 `json:"mailbox_id"`
		Name         string `json:"name"`
		MessagesSent int64  `json:"messages_sent"`
		Bounced      int64  `json:"bounced"`
	} `json:"mailboxes"`
	Daily []struct {
		Date         string `json:"date"`
		MessagesSent int64  `json:"messages_sent"`
		Bounced      int64  `json:"bounced"`
	} `json:"daily"`
	Signals []struct {
		Type     string `json:"type"`
		Severity string `json:"severity"`
	} `json:"signals"`
}

func TestBounceReports(t *testing.T) {
	v := newEnv(t)
	a := v.newFixture("Acme")
	b := v.newFixture("Bolt")
	tok := a.ws.Token
	path := fmt.Sprintf("/v1/campaigns/%d/reports/bounces", a.campaignID)

	// A second send and a sender-side block for Acme's second lead.
	msgID := "m2.acme@example.com"
	v.post(tok, "/v1/sent-messages", map[string]any{
		"lead_id": a.lead2ID, "mailbox_id": a.mailboxID, "message_id": msgID, "sent_at": "2026-11-29T12:00:00Z",
	}).expect(http.StatusCreated)
	blocked := strings.Replace(string(dsnFor("bob@acme.example", msgID)), "5.1.1", "5.7.1", -1)
	blocked = strings.Replace(blocked, "Recipient address rejected: User unknown", "Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org", -1)
	if _, err := v.tracking.Record(context.Background(), tracking.Incoming{WorkspaceID: a.ws.ID, MailboxID: a.mailboxID, Folder: "INBOX",
		Raw: []byte(blocked), ReceivedAt: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}

	var r bounceReport
	v.get(tok, path+"?from=2026-11-29&to=2026-11-30&tz=UTC").expect(http.StatusOK).decode(&r)
	if r.CampaignID == nil || *r.CampaignID != a.campaignID || r.CampaignName != "Acme launch" || r.WorkspaceID != a.ws.ID {
		t.Fatalf("scope = %+v", r)
	}
	if r.Totals.MessagesSent != 2 || r.Totals.Bounced != 2 || r.Totals.Hard != 2 || r.Totals.LeadsBounced != 2 || r.Totals.HardRate != 1 {
		t.Fatalf("totals = %+v", r.Totals)
	}
	if len(r.Labels) != len(report.Labels) || r.Labels[0].Label != "Invalid recipient" || r.Labels[0].Count != 1 || r.Labels[0].Hard != 1 ||
		r.Labels[0].Share != 0.5 || len(r.Labels[0].TopCodes) != 1 || r.Labels[0].TopCodes[0].Code != "5.1.1" || r.Labels[0].TopCodes[0].Title == "" {
		t.Fatalf("first label = %+v", r.Labels[0])
	}
	if r.Labels[5].Label != "Blocked" || r.Labels[5].Count != 1 || r.Labels[5].TopCodes[0].Code != "5.7.1" {
		t.Fatalf("Blocked = %+v", r.Labels[5])
	}
	if len(r.Providers) != 5 || r.Providers[4].Provider != "other" || r.Providers[4].MessagesSent != 2 || r.Providers[4].Hard != 2 {
		t.Fatalf("providers = %+v", r.Providers)
	}
	if len(r.Mailboxes) != 1 || r.Mailboxes[0].MailboxID == nil || *r.Mailboxes[0].MailboxID != a.mailboxID ||
		r.Mailboxes[0].Name != "Sales" || r.Mailboxes[0].MessagesSent != 2 || r.Mailboxes[0].Bounced != 2 {
		t.Fatalf("mailboxes = %+v", r.Mailboxes)
	}
	if len(r.Daily) != 2 || r.Daily[0].Date != "2026-11-29" || r.Daily[0].MessagesSent != 2 || r.Daily[1].Bounced != 2 {
		t.Fatalf("daily = %+v", r.Daily)
	}
	if len(r.Signals) != 1 || r.Signals[0].Type != "hard_bounce_rate" || r.Signals[0].Severity != "critical" {
		t.Fatalf("signals = %+v", r.Signals)
	}

	// The same days in UTC+14: the 10:00 and 12:00 UTC sends fall on the
	// 30th there, the bounces on 1 December.
	v.get(tok, path+"?from=2026-11-29&to=2026-12-01&tz=Pacific/Kiritimati").expect(http.StatusOK).decode(&r)
	if len(r.Daily) != 3 || r.Daily[0].MessagesSent != 0 || r.Daily[1].MessagesSent != 2 || r.Daily[1].Bounced != 0 ||
		r.Daily[2].Date != "2026-12-01" || r.Daily[2].Bounced != 2 || r.TZ != "Pacific/Kiritimati" {
		t.Fatalf("daily in Pacific/Kiritimati = %+v", r.Daily)
	}
	// Defaults: UTC, the 30 days up to today.
	v.get(tok, path).expect(http.StatusOK).decode(&r)
	if r.TZ != "UTC" || len(r.Daily) != 30 || r.To != time.Now().UTC().Format(time.DateOnly) {
		t.Fatalf("default window = %s..%s %s, %d days", r.From, r.To, r.TZ, len(r.Daily))
	}

	// The workspace report: Acme's campaign, not its unmatched bounce.
	v.get(tok, "/v1/reports/bounces?from=2026-11-29&to=2026-11-30").expect(http.StatusOK).decode(&r)
	if r.CampaignID != nil || r.Totals.MessagesSent != 2 || r.Totals.Events != 2 || r.Totals.LeadsBounced != 2 {
		t.Fatalf("workspace report = %+v", r)
	}
	// Bolt sees its own figures only, and Acme's campaign as missing.
	v.get(b.ws.Token, "/v1/reports/bounces").expect(http.StatusOK).decode(&r)
	if r.WorkspaceID != b.ws.ID || r.Totals.MessagesSent != 1 || r.Totals.Bounced != 1 {
		t.Fatalf("Bolt's workspace report = %+v", r.Totals)
	}
	if p := v.get(b.ws.Token, path).expect(http.StatusNotFound).problem(); p.Code != "not_found" {
		t.Fatalf("Acme's campaign with Bolt's key: %+v", p)
	}
	v.get(tok, "/v1/campaigns/999999999/reports/bounces").expect(http.StatusNotFound).problem()
	v.get("", path).expect(http.StatusUnauthorized).problem()

	// Validation names the field at fault.
	v.get(tok, path+"?tz=Mars/Olympus_Mons").expectField(http.StatusBadRequest, "query", "tz")
	v.get(tok, "/v1/reports/bounces?tz=Local").expectField(http.StatusBadRequest, "query", "tz")
	v.get(tok, path+"?from=2026-11-30&to=2026-11-01").expectField(http.StatusBadRequest, "query", "to")
	v.get(tok, path+"?from=2020-01-01&to=2026-11-01").expectField(http.StatusBadRequest, "query", "from")
	v.get(tok, path+"?from=1999-12-31&to=2000-01-02").expectField(http.StatusBadRequest, "query", "from")
	v.do(request{method: "GET", path: path + "?from=2026-11-31", token: tok, invalid: true}).expectField(http.StatusBadRequest, "query", "from")
	v.do(request{method: "GET", path: path + "?to=yesterday", token: tok, invalid: true}).expectField(http.StatusBadRequest, "query", "to")
	v.do(request{method: "GET", path: path + "?format=xml", token: tok, invalid: true}).expectField(http.StatusBadRequest, "query", "format")
	v.do(request{method: "GET", path: "/v1/campaigns/abc/reports/bounces", token: tok, invalid: true}).expectField(http.StatusBadRequest, "path", "campaign_id")

	// CSV, by format and by Accept.
	res := v.get(tok, path+"?from=2026-11-29&to=2026-11-30&format=csv").expect(http.StatusOK)
	checkReportCSV(t, res.Header, res.Body, fmt.Sprintf("campaign-%d-bounces.csv", a.campaignID), 2)
	res = v.get(tok, "/v1/reports/bounces?from=2026-11-29&to=2026-11-30&format=csv").expect(http.StatusOK)
	checkReportCSV(t, res.Header, res.Body, "workspace-bounces.csv", 2)
	req := httptest.NewRequest("GET", path+"?from=2026-11-29&to=2026-11-30", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "text/csv")
	rec := httptest.NewRecorder()
	v.e.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("Accept: text/csv = %d: %s", rec.Code, rec.Body)
	}
	checkReportCSV(t, rec.Header(), rec.Body.Bytes(), fmt.Sprintf("campaign-%d-bounces.csv", a.campaignID), 2)
	// format=json wins over Accept.
	req = httptest.NewRequest("GET", path+"?format=json", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "text/csv")
	rec = httptest.NewRecorder()
	v.e.ServeHTTP(rec, req)
	if ct := rec.Header().Get("Content-Type"); rec.Code != http.StatusOK || !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("format=json with Accept: text/csv = %d %s", rec.Code, ct)
	}
}

// checkReportCSV parses a CSV report: its header, its sections, and the
// totals row's messages sent.
func checkReportCSV(t *testing.T, h http.Header, body []byte, filename string, sent int) {
	t.Helper()
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("Content-Type %q", ct)
	}
	if cd := h.Get("Content-Disposition"); cd != `attachment; filename="`+filename+`"` {
		t.Fatalf("Content-Disposition %q", cd)
	}
	rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil {
		t.Fatalf("CSV: %v\n%s", err, body)
	}
	if !slices.Equal(rows[0], report.CSVHeader) {
		t.Fatalf("CSV header %v", rows[0])
	}
	sections := map[string]int{}
	for _, r := range rows[1:] {
		sections[r[0]]++
	}
	if sections["totals"] != 1 || sections["label"] != len(report.Labels) || sections["provider"] != 5 || sections["day"] != 2 || sections["mailbox"] < 1 {
		t.Fatalf("CSV sections %v", sections)
	}
	if rows[1][0] != "totals" || rows[1][3] != fmt.Sprint(sent) {
		t.Fatalf("CSV totals row %v", rows[1])
	}
}
