package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dbtest"
)

// TestDemoOnce runs the whole demo once, in ONCE mode, against the real
// PostgreSQL (a fresh database) and Redis: real api and worker processes,
// the in-process IMAP server, the sync through asynq (trigger mode, to stay
// well under a minute) and the report.
func TestDemoOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the api and worker (-short)")
	}
	dbURL := dbtest.NewURL(t)
	redisURL := dbtest.RedisURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	t0 := time.Now()
	res, err := Run(ctx, Options{
		RunDir:      t.TempDir(),
		DatabaseURL: dbURL,
		RedisURL:    redisURL,
		Delivered:   500,
		Sync:        SyncTrigger,
		SyncTimeout: time.Minute,
		Once:        true,
		Stdout:      &out,
	})
	t.Logf("demo ran in %s: %+v", time.Since(t0).Round(time.Millisecond), res.Steps)
	if err != nil {
		t.Fatalf("Run: %v\noutput:\n%s", err, out.String())
	}
	text := out.String()

	// The mailbox's state, as the API returned it after the sync: every
	// message of the INBOX was looked at and bounces were recorded.
	var mb mailboxJSON
	if err := json.Unmarshal(res.Mailbox, &mb); err != nil {
		t.Fatalf("mailbox JSON: %v", err)
	}
	if want := int64(res.Files + res.Ordinary); mb.MessagesSeen != want || mb.BouncesRecorded == 0 || mb.Status != "active" {
		t.Errorf("mailbox after sync: status %s, messages_seen %d (want %d), bounces_recorded %d",
			mb.Status, mb.MessagesSeen, want, mb.BouncesRecorded)
	}

	// The report is the campaign's, holds bounces, and is printed exactly
	// as rendered from the API's JSON.
	var rep struct {
		CampaignID int64 `json:"campaign_id"`
		Totals     struct {
			Bounced      int `json:"bounced"`
			MessagesSent int `json:"messages_sent"`
		} `json:"totals"`
		Labels []json.RawMessage `json:"labels"`
	}
	if err := json.Unmarshal(res.Report, &rep); err != nil {
		t.Fatalf("report JSON: %v", err)
	}
	if rep.CampaignID != res.CampaignID || rep.Totals.Bounced == 0 || rep.Totals.MessagesSent == 0 || len(rep.Labels) == 0 {
		t.Errorf("report: campaign %d (want %d), %d bounced of %d sent, %d labels",
			rep.CampaignID, res.CampaignID, rep.Totals.Bounced, rep.Totals.MessagesSent, len(rep.Labels))
	}
	for _, doc := range [][]byte{res.Report, res.Timeline} {
		var want bytes.Buffer
		if err := RenderJSON(&want, doc, "  "); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, want.String()) {
			t.Errorf("output does not hold the API's document as rendered:\n%s", want.String())
		}
	}

	// The lead's timeline shows a bounce.
	var tl struct {
		Data []struct {
			LeadID   int64  `json:"lead_id"`
			Activity string `json:"activity"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res.Timeline, &tl); err != nil {
		t.Fatalf("timeline JSON: %v", err)
	}
	bounced := false
	for _, a := range tl.Data {
		if a.LeadID != res.LeadID {
			t.Errorf("timeline of lead %d holds an activity of lead %d", res.LeadID, a.LeadID)
		}
		bounced = bounced || a.Activity == "bounce"
	}
	if !bounced {
		t.Errorf("timeline of lead %d has no bounce: %s", res.LeadID, res.Timeline)
	}

	for _, want := range []string{
		"[6/6] report", `sync mode "trigger"`,
		"curl -s -H 'Authorization: Bearer " + res.APIKey + "'",
		res.APIURL + "/v1/leads/",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}

	// ONCE mode stopped the API it started.
	if resp, err := http.Get(res.APIURL + "/healthz"); err == nil {
		resp.Body.Close()
		t.Errorf("the API still answers at %s after Run returned", res.APIURL)
	}
}

// TestDemoStepError checks that a failing step is named.
func TestDemoStepError(t *testing.T) {
	var out bytes.Buffer
	_, err := Run(context.Background(), Options{
		RunDir:      t.TempDir(),
		DatabaseURL: "postgres://nobody:x@127.0.0.1:1/none?sslmode=disable&connect_timeout=2",
		RedisURL:    "redis://127.0.0.1:1/0",
		Once:        true,
		Stdout:      &out,
	})
	var se *StepError
	if !errors.As(err, &se) || se.Step != "services" || !strings.Contains(err.Error(), `step "services" failed`) {
		t.Fatalf("Run with no database: %v, want a services StepError", err)
	}
	_, err = Run(context.Background(), Options{DatabaseURL: "x", RedisURL: "y", Sync: "sometimes", Stdout: &out})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "sync mode") {
		t.Errorf("Run with a bad sync mode: %v", err)
	}
}

// TestClaimRedisDB checks that two runs never share a Redis database and
// that a released database can be claimed again.
func TestClaimRedisDB(t *testing.T) {
	base := dbtest.RedisURL(t)
	ctx := context.Background()
	a, err := claimRedisDB(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	b, err := claimRedisDB(ctx, base)
	if err != nil {
		a.Release()
		t.Fatal(err)
	}
	if a.DB == b.DB || a.DB < firstDemoRedisDB || b.DB > lastDemoRedisDB {
		t.Errorf("claimed databases %d and %d", a.DB, b.DB)
	}
	if !strings.HasSuffix(a.URL, "/"+strconv.Itoa(a.DB)) {
		t.Errorf("claim URL %s does not name database %d", a.URL, a.DB)
	}
	held := a.DB
	a.Release()
	b.Release()
	c, err := claimRedisDB(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if c.DB > held {
		t.Errorf("after release, claimed database %d; want %d or lower again", c.DB, held)
	}
}
