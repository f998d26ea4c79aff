package api_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
)

// TestWorkspaceIsolation proves, for every route that takes an API key,
// that workspace B cannot see, change or refer to workspace A's rows: a row
// of A answers B 404 exactly like a missing one, and B's lists never show
// A's rows. The test fails when a route of openapi.yaml has no case here,
// so a new route cannot skip isolation.
func TestWorkspaceIsolation(t *testing.T) {
	v := newEnv(t)
	a := v.newFixture("Acme")
	b := v.newFixture("Bolt")
	bt := b.ws.Token
	id := itoa
	v.put(a.ws.Token, "/v1/policy", map[string]any{"soft_bounce_limit": 9}).expect(http.StatusOK)

	// notFound asserts that B gets 404 for A's row.
	notFound := func(method, path string, body any) func(t *testing.T) {
		return func(t *testing.T) {
			t.Helper()
			r := request{method: method, path: path, token: bt}
			if body != nil {
				r.body = jsonBody(t, body)
			}
			res := v.do(r)
			if res.Status != http.StatusNotFound {
				t.Fatalf("%s %s with workspace B's key = %d, want 404: %s", method, path, res.Status, res.Body)
			}
			res.problem()
		}
	}
	// onlyOwn asserts that B's list shows B's rows own and none of A's
	// rows theirs (other cases may add rows to B meanwhile).
	onlyOwn := func(path string, own, theirs []int64) func(t *testing.T) {
		return func(t *testing.T) {
			t.Helper()
			l := v.get(bt, path+"?limit=500").expect(http.StatusOK).list()
			got := map[int64]bool{}
			for _, id := range l.ids() {
				got[id] = true
			}
			for _, id := range theirs {
				if got[id] {
					t.Fatalf("GET %s with B's key lists A's id %d", path, id)
				}
			}
			for _, id := range own {
				if !got[id] {
					t.Fatalf("GET %s with B's key lacks B's id %d", path, id)
				}
			}
		}
	}
	ids := func(x ...int64) []int64 { return x }
	// theirs fails when A's list at path shows B's new row id.
	theirs := func(t *testing.T, path string, id int64) {
		t.Helper()
		for _, got := range v.get(a.ws.Token, path+"?limit=500").expect(http.StatusOK).list().ids() {
			if got == id {
				t.Fatalf("A's %s lists B's new row %d", path, id)
			}
		}
	}
	empty := func(path string) func(t *testing.T) {
		return func(t *testing.T) {
			t.Helper()
			if l := v.get(bt, path).expect(http.StatusOK).list(); len(l.Data) != 0 {
				t.Fatalf("GET %s with B's key (A's IDs as filters) lists %v", path, l.ids())
			}
		}
	}

	cases := map[string][]func(t *testing.T){
		"GET /v1/workspace": {func(t *testing.T) {
			var ws struct{ ID int64 }
			v.get(bt, "/v1/workspace").expect(http.StatusOK).decode(&ws)
			if ws.ID != b.ws.ID {
				t.Fatalf("B's key shows workspace %d", ws.ID)
			}
		}},
		"GET /v1/api-keys":                 {onlyOwn("/v1/api-keys", ids(b.keyID), ids(a.keyID))},
		"POST /v1/api-keys":                {func(t *testing.T) { v.post(bt, "/v1/api-keys", map[string]any{}).expect(http.StatusCreated) }},
		"DELETE /v1/api-keys/{api_key_id}": {notFound("DELETE", "/v1/api-keys/"+id(a.keyID), nil)},

		"GET /v1/mailboxes": {onlyOwn("/v1/mailboxes", ids(b.mailboxID), ids(a.mailboxID))},
		"POST /v1/mailboxes": {func(t *testing.T) {
			nb := v.post(bt, "/v1/mailboxes", map[string]any{"host": "127.0.0.1", "username": "iso",
				"credentials": map[string]any{"password": "pw-iso"}}).expect(http.StatusCreated).idOf()
			theirs(t, "/v1/mailboxes", nb)
		}},
		"GET /v1/mailboxes/{mailbox_id}":       {notFound("GET", "/v1/mailboxes/"+id(a.mailboxID), nil)},
		"PATCH /v1/mailboxes/{mailbox_id}":     {notFound("PATCH", "/v1/mailboxes/"+id(a.mailboxID), map[string]any{"name": "x"})},
		"DELETE /v1/mailboxes/{mailbox_id}":    {notFound("DELETE", "/v1/mailboxes/"+id(a.mailboxID), nil)},
		"POST /v1/mailboxes/{mailbox_id}/test": {notFound("POST", "/v1/mailboxes/"+id(a.mailboxID)+"/test", nil)},
		"POST /v1/mailboxes/{mailbox_id}/sync": {notFound("POST", "/v1/mailboxes/"+id(a.mailboxID)+"/sync", nil)},

		"GET /v1/campaigns": {onlyOwn("/v1/campaigns", ids(b.campaignID), ids(a.campaignID))},
		"POST /v1/campaigns": {func(t *testing.T) {
			// External IDs are unique per workspace, not across them.
			v.patch(a.ws.Token, "/v1/campaigns/"+id(a.campaignID), map[string]any{"external_id": "shared-ext"}).expect(http.StatusOK)
			nb := v.post(bt, "/v1/campaigns", map[string]any{"name": "iso", "external_id": "shared-ext"}).expect(http.StatusCreated).idOf()
			theirs(t, "/v1/campaigns", nb)
		}},
		"GET /v1/campaigns/{campaign_id}":    {notFound("GET", "/v1/campaigns/"+id(a.campaignID), nil)},
		"PATCH /v1/campaigns/{campaign_id}":  {notFound("PATCH", "/v1/campaigns/"+id(a.campaignID), map[string]any{"name": "x"})},
		"DELETE /v1/campaigns/{campaign_id}": {notFound("DELETE", "/v1/campaigns/"+id(a.campaignID), nil)},

		"GET /v1/leads": {onlyOwn("/v1/leads", ids(b.leadID, b.lead2ID), ids(a.leadID, a.lead2ID)), empty("/v1/leads?campaign_id=" + id(a.campaignID)),
			empty("/v1/leads?email=ann@acme.example")},
		"POST /v1/leads": {notFound("POST", "/v1/leads", map[string]any{"campaign_id": a.campaignID, "email": "x@example.com"})},
		"POST /v1/leads/import": {
			notFound("POST", "/v1/leads/import", map[string]any{"campaign_id": a.campaignID, "leads": []map[string]any{{"email": "x@example.com"}}}),
			func(t *testing.T) {
				v.do(request{method: "POST", path: "/v1/leads/import?campaign_id=" + id(a.campaignID), token: bt,
					body: []byte("email\nx@example.com\n"), contentType: "text/csv"}).expect(http.StatusNotFound)
			}},
		"GET /v1/leads/{lead_id}":            {notFound("GET", "/v1/leads/"+id(a.leadID), nil)},
		"PATCH /v1/leads/{lead_id}":          {notFound("PATCH", "/v1/leads/"+id(a.leadID), map[string]any{"status": "paused"})},
		"DELETE /v1/leads/{lead_id}":         {notFound("DELETE", "/v1/leads/"+id(a.leadID), nil)},
		"GET /v1/leads/{lead_id}/activities": {notFound("GET", "/v1/leads/"+id(a.leadID)+"/activities", nil)},

		"GET /v1/sent-messages": {onlyOwn("/v1/sent-messages", ids(b.sentID), ids(a.sentID)), empty("/v1/sent-messages?lead_id=" + id(a.leadID)),
			empty("/v1/sent-messages?campaign_id=" + id(a.campaignID))},
		"POST /v1/sent-messages": {
			notFound("POST", "/v1/sent-messages", map[string]any{"lead_id": a.leadID, "message_id": "iso1@x", "sent_at": "2026-11-29T10:00:00Z"}),
			notFound("POST", "/v1/sent-messages", map[string]any{"lead_id": b.leadID, "mailbox_id": a.mailboxID, "message_id": "iso2@x", "sent_at": "2026-11-29T10:00:00Z"}),
		},
		"POST /v1/sent-messages/bulk": {func(t *testing.T) {
			var rep struct {
				Created, Failed int
			}
			v.post(bt, "/v1/sent-messages/bulk", map[string]any{"messages": []map[string]any{
				{"lead_id": a.leadID, "message_id": "iso3@x", "sent_at": "2026-11-29T10:00:00Z"},
				{"lead_id": b.leadID, "mailbox_id": a.mailboxID, "message_id": "iso4@x", "sent_at": "2026-11-29T10:00:00Z"},
			}}).expect(http.StatusOK).decode(&rep)
			if rep.Created != 0 || rep.Failed != 2 {
				t.Fatalf("bulk with A's lead and mailbox = %+v", rep)
			}
		}},
		"GET /v1/sent-messages/{sent_message_id}": {notFound("GET", "/v1/sent-messages/"+id(a.sentID), nil)},

		"GET /v1/bounces": {onlyOwn("/v1/bounces", ids(b.bounceID, b.unmatched), ids(a.bounceID, a.unmatched)),
			empty("/v1/bounces?campaign_id=" + id(a.campaignID)), empty("/v1/bounces?lead_id=" + id(a.leadID)),
			empty("/v1/bounces?mailbox_id=" + id(a.mailboxID))},
		"GET /v1/bounces/{bounce_id}":     {notFound("GET", "/v1/bounces/"+id(a.bounceID), nil), notFound("GET", "/v1/bounces/"+id(a.unmatched), nil)},
		"GET /v1/bounces/{bounce_id}/raw": {notFound("GET", "/v1/bounces/"+id(a.bounceID)+"/raw", nil)},
		"GET /v1/unmatched-bounces":       {onlyOwn("/v1/unmatched-bounces", ids(b.unmatched), ids(a.unmatched))},

		"GET /v1/suppressions": {onlyOwn("/v1/suppressions", suppressionsOf(t, v, b), suppressionsOf(t, v, a))},
		"POST /v1/suppressions": {func(t *testing.T) {
			// Suppressing A's address in B creates B's own row.
			v.post(bt, "/v1/suppressions", map[string]any{"email": "manual@acme.example"}).expect(http.StatusCreated)
		}},
		"GET /v1/suppressions/check": {func(t *testing.T) {
			var c struct{ Suppressed bool }
			v.get(bt, "/v1/suppressions/check?email=ann@acme.example").expect(http.StatusOK).decode(&c)
			if c.Suppressed {
				t.Fatal("A's suppression shows in B")
			}
		}},
		"DELETE /v1/suppressions/{suppression_id}": {notFound("DELETE", "/v1/suppressions/"+id(a.suppID), nil)},

		"GET /v1/policy": {func(t *testing.T) {
			var p struct {
				Effective struct {
					SoftBounceLimit int `json:"soft_bounce_limit"`
				} `json:"effective"`
			}
			v.get(bt, "/v1/policy").expect(http.StatusOK).decode(&p)
			if p.Effective.SoftBounceLimit == 9 {
				t.Fatalf("A's policy shows in B: %+v", p)
			}
		}},
		"PUT /v1/policy": {func(t *testing.T) {
			v.put(bt, "/v1/policy", map[string]any{"soft_bounce_limit": 3}).expect(http.StatusOK)
			var p struct {
				Effective struct {
					SoftBounceLimit int `json:"soft_bounce_limit"`
				} `json:"effective"`
			}
			v.get(a.ws.Token, "/v1/policy").expect(http.StatusOK).decode(&p)
			if p.Effective.SoftBounceLimit == 3 {
				t.Fatalf("B's PUT changed A's policy: %+v", p)
			}
		}},

		// The knowledge base and the decoder hold no workspace data; the
		// case checks that they answer B without touching A's rows.
		"GET /v1/codes":        {func(t *testing.T) { v.get(bt, "/v1/codes?limit=1").expect(http.StatusOK) }},
		"GET /v1/codes/{code}": {func(t *testing.T) { v.get(bt, "/v1/codes/550-5.1.1").expect(http.StatusOK) }},
		"POST /v1/decode": {func(t *testing.T) {
			before := countRows(t, v, "bounce_events")
			v.do(request{method: "POST", path: "/v1/decode", token: bt, body: dsnFor("ann@acme.example", "m1.acme@example.com"),
				contentType: "message/rfc822"}).expect(http.StatusOK)
			if after := countRows(t, v, "bounce_events"); after != before {
				t.Fatalf("decode stored events: %d -> %d", before, after)
			}
		}},
	}

	// Report routes (issue 9).
	cases["GET /v1/campaigns/{campaign_id}/reports/bounces"] = []func(t *testing.T){
		notFound("GET", "/v1/campaigns/"+id(a.campaignID)+"/reports/bounces", nil),
		func(t *testing.T) {
			var r struct {
				CampaignID *int64 `json:"campaign_id"`
			}
			v.get(a.ws.Token, "/v1/campaigns/"+id(a.campaignID)+"/reports/bounces").expect(http.StatusOK).decode(&r)
			if r.CampaignID == nil || *r.CampaignID != a.campaignID {
				t.Fatalf("A's own campaign report is of campaign %v", r.CampaignID)
			}
		}}
	cases["GET /v1/reports/bounces"] = []func(t *testing.T){func(t *testing.T) {
		res := v.get(bt, "/v1/reports/bounces").expect(http.StatusOK)
		var r struct {
			WorkspaceID int64 `json:"workspace_id"`
		}
		res.decode(&r)
		if r.WorkspaceID != b.ws.ID || strings.Contains(string(res.Body), fmt.Sprintf(`"mailbox_id":%d`, a.mailboxID)) {
			t.Fatalf("B's workspace report shows A's data: %.500s", res.Body)
		}
	}}
	// Other files of the suite add cases for their routes here.
	for _, hook := range isolationHooks {
		for k, fns := range hook(v, a, b) {
			cases[k] = append(cases[k], fns...)
		}
	}

	var missing []string
	for path, item := range specDoc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security != nil && len(*op.Security) == 0 {
				continue // public
			}
			if op.Security != nil && len(*op.Security) > 0 {
				if _, ok := (*op.Security)[0]["operatorToken"]; ok {
					continue
				}
			}
			k := method + " " + path
			fns, ok := cases[k]
			if !ok {
				missing = append(missing, k)
				continue
			}
			for i, fn := range fns {
				t.Run(fmt.Sprintf("%s#%d", strings.ReplaceAll(k, "/", "_"), i), fn)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("routes without an isolation case: %s", strings.Join(missing, ", "))
	}

	// Operator routes: a workspace key (even of A) is not the operator token.
	v.post(a.ws.Token, "/v1/workspaces/"+id(b.ws.ID)+"/api-keys", map[string]any{}).expect(http.StatusUnauthorized)

	// Nothing B did changed A's rows.
	v.get(a.ws.Token, "/v1/campaigns/"+id(a.campaignID)).expect(http.StatusOK)
	v.get(a.ws.Token, "/v1/mailboxes/"+id(a.mailboxID)).expect(http.StatusOK)
	v.get(a.ws.Token, "/v1/leads/"+id(a.leadID)).expect(http.StatusOK)
	v.get(a.ws.Token, "/v1/bounces/"+id(a.bounceID)).expect(http.StatusOK)
	if l := v.get(a.ws.Token, "/v1/suppressions?source=manual").expect(http.StatusOK).list(); len(l.Data) != 1 || l.ids()[0] != a.suppID {
		t.Fatalf("A's manual suppressions = %v", l.ids())
	}
	keys := v.get(a.ws.Token, "/v1/api-keys").expect(http.StatusOK).list()
	if len(keys.Data) != 1 || keys.Data[0]["revoked_at"] != nil {
		t.Fatalf("A's keys = %+v", keys.Data)
	}
}

// isolationHooks let test files of later routes add isolation cases:
// hook(v, a, b) returns cases keyed "METHOD /path" that use workspace B's
// key (b.ws.Token) against A's rows.
var isolationHooks []func(v *env, a, b fixture) map[string][]func(t *testing.T)

// suppressionsOf lists the IDs of w's suppressions (policy-made ones too).
func suppressionsOf(t *testing.T, v *env, w fixture) []int64 {
	t.Helper()
	var ids []int64
	v.db.Raw("SELECT id FROM suppressions WHERE workspace_id = ?", w.ws.ID).Scan(&ids)
	return ids
}

func countRows(t *testing.T, v *env, table string) int64 {
	t.Helper()
	var n int64
	if err := v.db.Raw("SELECT count(*) FROM " + table).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}
