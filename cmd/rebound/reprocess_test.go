package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"strings"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// reprocessBounce is a small RFC 3464 bounce written for this test.
const reprocessBounce = "From: MAILER-DAEMON@mail.example.org\nTo: sender@example.org\n" +
	"Subject: Undelivered Mail Returned to Sender\nMessage-ID: <rp1@mail.example.org>\n" +
	"MIME-Version: 1.0\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\n\n" +
	"--B\nContent-Type: text/plain\n\nYour message could not be delivered.\n\n" +
	"--B\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mail.example.org\n\n" +
	"Final-Recipient: rfc822; gone@example.com\nAction: failed\nStatus: 5.1.1\n" +
	"Diagnostic-Code: smtp; 550 5.1.1 <gone@example.com>: User unknown\n\n--B--\n"

func TestReprocessCommand(t *testing.T) {
	url := dbtest.NewURL(t)
	t.Setenv("DATABASE_URL", url)
	db, err := gorm.Open(postgres.Open(url), &gorm.Config{Logger: logger.Default.LogMode(logger.Silent)})
	if err != nil {
		t.Fatal(err)
	}
	if sqlDB, err := db.DB(); err == nil {
		defer sqlDB.Close()
	}
	ws := &store.Workspace{Name: "w"}
	db.Create(ws)
	camp := &store.Campaign{WorkspaceID: ws.ID, Name: "c", Status: "active"}
	db.Create(camp)
	lead := &store.Lead{WorkspaceID: ws.ID, CampaignID: camp.ID, Email: "gone@example.com", Status: store.LeadActive,
		CreatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	db.Create(lead)
	// A message an older release could not decode.
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(reprocessBounce))
	w.Close()
	sum := tracking.DedupeHash([]byte(reprocessBounce))
	raw := &store.RawMessage{WorkspaceID: ws.ID, DedupeHash: sum[:], Content: gz.Bytes(), Size: len(reprocessBounce),
		ReceivedAt: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), DecodeStatus: store.DecodeUndecoded, DecodeError: "old release"}
	if err := db.Create(raw).Error; err != nil {
		t.Fatal(err)
	}

	cmd := func(args ...string) (string, int) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"reprocess"}, args...), nil, &out, &errOut)
		return out.String() + errOut.String(), code
	}
	if out, code := cmd("--since", "2026-11-30"); code != 0 || !strings.Contains(out, "messages 0 ") {
		t.Fatalf("--since after the message: %d %q", code, out)
	}
	out, code := cmd("--since", "2026-11-29")
	if code != 0 || !strings.Contains(out, "messages 1  changed 1  events created 1") {
		t.Fatalf("reprocess: %d %q", code, out)
	}
	var l store.Lead
	db.First(&l, lead.ID)
	if l.Status != store.LeadStopped || l.BounceCount != 1 {
		t.Fatalf("lead after reprocess: %+v", l)
	}
	if out, code := cmd(); code != 0 || !strings.Contains(out, "messages 1  changed 0  events created 0") {
		t.Fatalf("second run: %d %q", code, out)
	}
	// Stale counters (a row changed behind tracking's back) are rebuilt.
	db.Exec("UPDATE report_campaign_counters SET hard = hard + 5")
	if out, code := cmd("--recount"); code != 0 || !strings.Contains(out, "counters recounted for 1 workspaces") {
		t.Fatalf("--recount: %d %q", code, out)
	}
	var hard int64
	db.Raw("SELECT hard FROM report_campaign_counters WHERE campaign_id = ?", camp.ID).Scan(&hard)
	if hard != 1 {
		t.Fatalf("hard after recount = %d, want 1", hard)
	}
	for _, bad := range [][]string{{"--since", "yesterday"}, {"--batch", "0"}, {"extra"}} {
		if out, code := cmd(bad...); code != 2 || !strings.Contains(out, "rebound reprocess:") {
			t.Fatalf("%v: %d %q", bad, code, out)
		}
	}
}
