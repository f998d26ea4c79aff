// Package demo runs Rebound's whole job end to end on real bounce messages,
// for `make demo` (`rebound demo`) and its smoke test.
//
// A run has six steps, each reported on its own line, and fails naming the
// step (a *StepError):
//
//  1. services: checks that PostgreSQL (DATABASE_URL) holds the current
//     schema and claims a Redis database of its own on REDIS_URL's server
//     (see claimRedisDB);
//  2. processes: builds cmd/api and cmd/worker and runs them as real
//     processes on free loopback ports, with ALLOW_PRIVATE_HOSTS=true, logs
//     in RunDir/api.log and RunDir/worker.log;
//  3. mailbox: starts an in-process IMAP server (go-imap v2 imapserver with
//     its in-memory backend) whose INBOX holds real bounce messages (the
//     corpus beside the project, read at run time, or the decoder's own
//     test fixtures) mixed with ordinary mail, and reads the failed
//     recipients and original Message-IDs out of the bounces with
//     dsn.Decode;
//  4. setup: through the REST API, with real HTTP calls, creates a
//     workspace and an API key (operator token), a campaign, its leads (the
//     recipients), their sent messages (the Message-IDs) and connects the
//     mailbox;
//  5. sync: lets the worker sync the mailbox through asynq, either on the
//     scheduler's own tick or queued by the API's sync route, and waits until
//     the mailbox's state shows the sync finished;
//  6. report: prints the campaign's bounce report and one lead's timeline as
//     the API returned them, and curl commands to explore the running API.
//
// Then it keeps the API and worker running until its context ends (Ctrl-C),
// unless Options.Once is set, and stops what it started.
package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rebound-hq/rebound/internal/dsn"
	"github.com/rebound-hq/rebound/internal/store"
)

// SyncMode says how the demo mailbox's sync is started.
type SyncMode string

// Sync modes. Both run the sync in the worker, through asynq.
const (
	// SyncScheduler waits for the worker's scheduler, which enqueues the
	// syncs of due mailboxes every minute (a new mailbox is due at once).
	SyncScheduler SyncMode = "scheduler"
	// SyncTrigger enqueues the sync at once with POST
	// /v1/mailboxes/{id}/sync, for runs that cannot wait for the tick.
	SyncTrigger SyncMode = "trigger"
)

// Options configure a run. Zero values take the defaults named.
type Options struct {
	// Root is the module's root directory; "" finds it upwards from the
	// working directory.
	Root string
	// RunDir receives the built binaries and the logs; "" means
	// Root/.run/demo.
	RunDir string
	// DatabaseURL is a migrated PostgreSQL database (required unless
	// Prepare sets it).
	DatabaseURL string
	// Prepare, when set, runs first in the services step and returns the
	// database to use and a line saying what it did (`rebound demo` creates
	// and migrates a fresh database there).
	Prepare func(ctx context.Context) (databaseURL, note string, err error)
	// RedisURL locates the Redis server (required); the demo uses a
	// database of its own on it (8 to 15), whatever database the URL names.
	RedisURL string
	// MailDir holds the bounce messages (*.eml); "" means
	// Root/../shared/corpus/emails when it exists, else
	// Root/internal/dsn/testdata.
	MailDir string
	// Limit keeps at most this many files of MailDir, spread over the
	// sorted names; 0 keeps all.
	Limit int
	// Ordinary is the number of ordinary messages mixed in; 0 means 12,
	// negative means none.
	Ordinary int
	// Delivered is the number of further, made-up leads the campaign sent
	// to whose messages did not bounce (addresses spread over the providers,
	// see deliveredDomains), so the report's rates have a realistic
	// denominator; 0 means 4000, negative means none.
	Delivered int
	// Sync says how the sync starts; "" means SyncScheduler.
	Sync SyncMode
	// SyncTimeout bounds the wait for the sync; 0 means 3 minutes.
	SyncTimeout time.Duration
	// Once returns after printing the report instead of serving until ctx
	// ends.
	Once bool
	// Stdout receives the demo's output; nil means os.Stdout.
	Stdout io.Writer
}

// StepError is a failed step of the demo.
type StepError struct {
	Step string // services, processes, mailbox, setup, sync, report or serve
	Err  error
}

func (e *StepError) Error() string { return fmt.Sprintf("demo: step %q failed: %v", e.Step, e.Err) }

func (e *StepError) Unwrap() error { return e.Err }

// Result is what a run made and printed, for tests and callers.
type Result struct {
	APIURL      string // http://127.0.0.1:PORT (stopped once Run returns)
	APIKey      string
	WorkspaceID int64
	CampaignID  int64
	MailboxID   int64
	LeadID      int64  // the lead whose timeline was printed
	Report      []byte // the bounce report, as the API returned it
	Timeline    []byte // the lead's timeline, as the API returned it
	Mailbox     []byte // the mailbox after its sync, as the API returned it
	Files       int    // bounce files in the mailbox
	Ordinary    int    // ordinary messages in the mailbox
	Recipients  int    // distinct recipients decoded from the files
	Delivered   int    // leads added whose messages did not bounce
	SyncedBy    SyncMode
	Steps       []StepTiming
}

// StepTiming is how long one step took.
type StepTiming struct {
	Step     string
	Duration time.Duration
}

// send is a message the campaign sent, registered through the API.
type send struct {
	email, messageID string
}

// run holds the state of one demo run.
type run struct {
	o   Options
	out io.Writer
	res *Result

	redis  *redisClaim
	api    *process
	worker *process
	imap   *imapServer
	client *apiClient

	operatorToken string
	mail          []mailFile
	mailSource    string
	start         time.Time // received time of the mailbox's first message
	recipients    []string
	sends         []send // one per decoded result of the bounce files
	originalIDs   int    // sends that carry the bounce's original Message-ID
}

// Run runs the demo. It returns a *StepError naming the step that failed;
// whatever it started is stopped before it returns.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Sync == "" {
		o.Sync = SyncScheduler
	}
	if o.Sync != SyncScheduler && o.Sync != SyncTrigger {
		return nil, &StepError{"services", fmt.Errorf("demo: sync mode %q: want scheduler or trigger", o.Sync)}
	}
	if o.SyncTimeout == 0 {
		o.SyncTimeout = 3 * time.Minute
	}
	if o.Ordinary == 0 {
		o.Ordinary = 12
	}
	if o.Delivered == 0 {
		o.Delivered = 4000
	}
	r := &run{o: o, out: o.Stdout, res: &Result{SyncedBy: o.Sync}}
	defer r.cleanup()

	fmt.Fprintln(r.out, "Rebound demo: the whole job on real bounce messages")
	steps := []struct {
		name, title string
		fn          func(context.Context) error
	}{
		{"services", "PostgreSQL and Redis", r.services},
		{"processes", "the API and the worker, as real processes", r.processes},
		{"mailbox", "an IMAP server holding real bounce messages", r.mailbox},
		{"setup", "workspace, API key, campaign, leads, sent messages and mailbox, through the REST API", r.setup},
		{"sync", "the worker syncs the mailbox through asynq", r.sync},
		{"report", "what the API reports", r.report},
	}
	for i, s := range steps {
		fmt.Fprintf(r.out, "\n[%d/%d] %s: %s\n", i+1, len(steps), s.name, s.title)
		t0 := time.Now()
		err := s.fn(ctx)
		d := time.Since(t0)
		r.res.Steps = append(r.res.Steps, StepTiming{s.name, d})
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		if err != nil {
			return r.res, &StepError{s.name, err}
		}
	}
	var ts []string
	for _, st := range r.res.Steps {
		ts = append(ts, fmt.Sprintf("%s %.1fs", st.Step, st.Duration.Seconds()))
	}
	fmt.Fprintf(r.out, "\nStep timings: %s\n", strings.Join(ts, ", "))
	if o.Once {
		fmt.Fprintln(r.out, "\nONCE: stopping the API and the worker (the curl commands above need `make demo` without ONCE=1).")
		return r.res, nil
	}
	fmt.Fprintln(r.out, "\nThe API and the worker keep running; press Ctrl-C to stop them.")
	select {
	case <-ctx.Done():
		fmt.Fprintln(r.out, "\nStopping the API and the worker.")
		return r.res, nil
	case <-r.api.done:
		return r.res, &StepError{"serve", r.api.deadErr()}
	case <-r.worker.done:
		return r.res, &StepError{"serve", r.worker.deadErr()}
	}
}

// say prints one indented line of a step.
func (r *run) say(format string, args ...any) {
	fmt.Fprintf(r.out, "      "+format+"\n", args...)
}

// cleanup pauses the demo mailbox (its IMAP server goes away with the
// demo, so later runs of the scheduler should leave it alone), stops the
// worker and the API, the IMAP server, and gives the Redis database back.
func (r *run) cleanup() {
	if r.client != nil && r.res.MailboxID != 0 && r.res.APIKey != "" && r.api != nil && !r.api.exited() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := r.client.call(ctx, "PATCH", fmt.Sprintf("/v1/mailboxes/%d", r.res.MailboxID), r.res.APIKey,
			map[string]string{"status": "paused"}, 200)
		cancel()
		if err != nil {
			fmt.Fprintf(r.out, "demo: could not pause mailbox %d: %v\n", r.res.MailboxID, err)
		}
	}
	for _, p := range []*process{r.worker, r.api} {
		if p == nil {
			continue
		}
		if err := p.stop(30 * time.Second); err != nil {
			fmt.Fprintln(r.out, err)
		}
	}
	if r.imap != nil {
		r.imap.Close()
	}
	if r.redis != nil {
		r.redis.Release()
	}
}

// services checks PostgreSQL's schema and claims a Redis database.
func (r *run) services(ctx context.Context) error {
	if r.o.Prepare != nil {
		u, note, err := r.o.Prepare(ctx)
		if err != nil {
			return err
		}
		r.o.DatabaseURL = u
		r.say("%s (%s)", note, redact(u))
	}
	if r.o.DatabaseURL == "" || r.o.RedisURL == "" {
		return errors.New("demo: DATABASE_URL and REDIS_URL are required (make demo sets them)")
	}
	root, err := findRoot(r.o.Root)
	if err != nil {
		return err
	}
	r.o.Root = root
	if r.o.RunDir == "" {
		r.o.RunDir = filepath.Join(root, ".run", "demo")
	}
	if err := os.MkdirAll(r.o.RunDir, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	db, err := store.Open(ctx, r.o.DatabaseURL, store.OpenOptions{MaxConns: 2})
	if err != nil {
		return err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer sqlDB.Close()
	if err := store.CheckSchema(ctx, db); err != nil {
		return fmt.Errorf("%w (run make migrate)", err)
	}
	if r.o.Prepare == nil {
		r.say("PostgreSQL %s: reachable, schema up to date", redact(r.o.DatabaseURL))
	}
	r.redis, err = claimRedisDB(ctx, r.o.RedisURL)
	if err != nil {
		return err
	}
	r.say("Redis %s: database %d claimed for this run (asynq queues)", redact(r.redis.URL), r.redis.DB)
	return nil
}

// processes builds and starts the API and the worker.
func (r *run) processes(ctx context.Context) error {
	bin := filepath.Join(r.o.RunDir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	t0 := time.Now()
	if err := build(ctx, r.o.Root, bin, "./cmd/api", "./cmd/worker"); err != nil {
		return err
	}
	r.say("built cmd/api and cmd/worker into %s in %.1fs", rel(r.o.Root, bin), time.Since(t0).Seconds())
	port, err := freeLoopbackPort()
	if err != nil {
		return err
	}
	workerPort, err := freeLoopbackPort()
	if err != nil {
		return err
	}
	r.operatorToken = "demo-op-" + randomHex(16)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	env := []string{
		// The worker's probe and metrics listener gets a free port too, so
		// the demo runs beside another worker on this machine.
		fmt.Sprintf("WORKER_HTTP_ADDR=127.0.0.1:%d", workerPort),
		"DATABASE_URL=" + r.o.DatabaseURL,
		"REDIS_URL=" + r.redis.URL,
		"API_ADDR=" + addr,
		"OPERATOR_TOKEN=" + r.operatorToken,
		"ALLOW_PRIVATE_HOSTS=true", // the demo mailbox is on loopback
		"IMAP_TIMEOUT=30s",
		"SHUTDOWN_TIMEOUT=10s",
		"LOG_FORMAT=json",
	}
	r.api, err = start("api", filepath.Join(bin, "api"), filepath.Join(r.o.RunDir, "api.log"), env)
	if err != nil {
		return err
	}
	r.worker, err = start("worker", filepath.Join(bin, "worker"), filepath.Join(r.o.RunDir, "worker.log"), env)
	if err != nil {
		return err
	}
	r.res.APIURL = "http://" + addr
	r.client = newAPIClient(r.res.APIURL)
	if err := r.api.waitReady(ctx, r.res.APIURL+"/readyz", 60*time.Second); err != nil {
		return err
	}
	r.say("api    pid %d  %s  (ALLOW_PRIVATE_HOSTS=true; log %s)", r.api.cmd.Process.Pid, r.res.APIURL, rel(r.o.Root, r.api.logPath))
	if err := r.worker.waitLog(ctx, "tasks: worker running", 60*time.Second); err != nil {
		return err
	}
	r.say("worker pid %d  asynq server + scheduler  (log %s)", r.worker.cmd.Process.Pid, rel(r.o.Root, r.worker.logPath))
	return nil
}

// mailbox reads the bounces, decodes their recipients and Message-IDs and
// starts the IMAP server.
func (r *run) mailbox(ctx context.Context) error {
	dir := r.o.MailDir
	if dir == "" {
		dir = filepath.Join(r.o.Root, "..", "shared", "corpus", "emails")
		if _, err := os.Stat(dir); err != nil {
			dir = filepath.Join(r.o.Root, "internal", "dsn", "testdata")
		}
	}
	files, err := readMailDir(dir, r.o.Limit)
	if err != nil {
		return err
	}
	r.mailSource = dir
	seen := map[string]bool{}
	usedIDs := map[string]bool{}
	undecoded := 0
	token := randomHex(4)
	for _, f := range files {
		results, err := dsn.Decode(f.Raw)
		if err != nil {
			undecoded++
			continue
		}
		for _, res := range results {
			if res.Kind == dsn.KindNotBounce || res.Recipient == "" {
				continue
			}
			email := strings.ToLower(res.Recipient)
			if !seen[email] {
				seen[email] = true
				r.recipients = append(r.recipients, email)
			}
			// Every result stands for a message the campaign sent: its
			// original Message-ID when the bounce carries one not seen
			// yet, else a made-up one (matched by recipient instead).
			id := strings.Trim(res.Original.MessageID, "<> ")
			if id != "" && !usedIDs[id] {
				usedIDs[id] = true
				r.originalIDs++
			} else {
				id = fmt.Sprintf("demo-%s-%d@rebound-demo.example", token, len(r.sends)+1)
			}
			r.sends = append(r.sends, send{email, id})
		}
	}
	if len(r.recipients) == 0 {
		return fmt.Errorf("demo: no recipient decoded from the %d files of %s", len(files), dir)
	}
	now := time.Now()
	r.mail = files
	var ordinary []mailFile
	if r.o.Ordinary > 0 {
		ordinary = ordinaryMail(r.o.Ordinary, now)
	}
	// Interleave the ordinary mail with the bounces, as in a real inbox.
	var all []mailFile
	step := len(files)/max(len(ordinary), 1) + 1
	for i, f := range files {
		if i%step == 0 && i/step < len(ordinary) {
			all = append(all, ordinary[i/step])
		}
		all = append(all, f)
	}
	for i := (len(files)-1)/step + 1; i < len(ordinary); i++ {
		all = append(all, ordinary[i])
	}
	logf, err := os.OpenFile(filepath.Join(r.o.RunDir, "imap.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	r.start = now.Add(-time.Duration(len(all)) * time.Minute)
	r.imap, err = startIMAP(all, "sender@rebound-demo.example", randomHex(12), now, logf)
	if err != nil {
		logf.Close()
		return err
	}
	r.res.Files, r.res.Ordinary, r.res.Recipients = len(files), len(ordinary), len(r.recipients)
	r.say("in-process IMAP server (go-imap v2 imapmemserver) on %s, plain IMAP, loopback only", r.imap.Addr)
	r.say("INBOX: %d bounce files from %s + %d ordinary messages = %d messages", len(files), rel(r.o.Root, dir), len(ordinary), len(all))
	r.say("dsn.Decode found %d results for %d distinct recipients, %d with their own original Message-ID (%d files not decodable)",
		len(r.sends), len(r.recipients), r.originalIDs, undecoded)
	return nil
}

// setup creates the workspace, key, campaign, leads and sent messages and
// connects the mailbox, all through the API.
func (r *run) setup(ctx context.Context) error {
	c := r.client
	var ws struct {
		Workspace struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"workspace"`
	}
	name := "Rebound demo " + time.Now().UTC().Format("2006-01-02 15:04:05")
	if _, err := c.callJSON(ctx, "POST", "/v1/workspaces", r.operatorToken,
		map[string]string{"name": name, "api_key_name": "default"}, 201, &ws); err != nil {
		return err
	}
	r.res.WorkspaceID = ws.Workspace.ID
	var key struct {
		ID     int64  `json:"id"`
		Prefix string `json:"prefix"`
		Token  string `json:"token"`
	}
	if _, err := c.callJSON(ctx, "POST", fmt.Sprintf("/v1/workspaces/%d/api-keys", ws.Workspace.ID), r.operatorToken,
		map[string]string{"name": "demo"}, 201, &key); err != nil {
		return err
	}
	r.res.APIKey = key.Token
	r.say("POST /v1/workspaces                 -> workspace %d %q (operator token)", ws.Workspace.ID, ws.Workspace.Name)
	r.say("POST /v1/workspaces/%d/api-keys      -> API key %d (%s...)", ws.Workspace.ID, key.ID, key.Prefix)

	var camp struct {
		ID int64 `json:"id"`
	}
	if _, err := c.callJSON(ctx, "POST", "/v1/campaigns", key.Token,
		map[string]string{"name": "Demo campaign (" + filepath.Base(r.mailSource) + ")", "external_id": "demo-" + randomHex(4)},
		201, &camp); err != nil {
		return err
	}
	r.res.CampaignID = camp.ID
	r.say("POST /v1/campaigns                  -> campaign %d", camp.ID)

	type leadRow struct {
		Email string `json:"email"`
	}
	rows := make([]leadRow, 0, len(r.recipients)+max(r.o.Delivered, 0))
	for _, e := range r.recipients {
		rows = append(rows, leadRow{e})
	}
	var delivered []string
	for i := range max(r.o.Delivered, 0) {
		e := fmt.Sprintf("demo-lead-%05d@%s", i+1, deliveredDomains[i%len(deliveredDomains)])
		delivered = append(delivered, e)
		rows = append(rows, leadRow{e})
	}
	r.res.Delivered = len(delivered)
	var imp importReport
	if _, err := c.callJSON(ctx, "POST", "/v1/leads/import", key.Token,
		map[string]any{"campaign_id": camp.ID, "leads": rows}, 200, &imp); err != nil {
		return err
	}
	r.say("POST /v1/leads/import               -> %s", imp.summary())
	r.say("  (%d decoded recipients + %d made-up leads whose messages were delivered)", len(r.recipients), len(delivered))
	if imp.Created == 0 {
		return fmt.Errorf("demo: the API imported no lead")
	}
	leads, err := r.listLeads(ctx, camp.ID)
	if err != nil {
		return err
	}
	byEmail := make(map[string]int64, len(leads))
	for _, l := range leads {
		byEmail[l.Email] = l.ID
	}
	var mb struct {
		ID int64 `json:"id"`
	}
	if _, err := c.callJSON(ctx, "POST", "/v1/mailboxes", key.Token, map[string]any{
		"name": "Demo inbox (in-process IMAP)", "host": r.imap.Host, "port": r.imap.Port, "tls": "plain",
		"username": r.imap.User, "credentials": map[string]string{"password": r.imap.Password},
		"folders": []string{"INBOX"}, "sync_interval_seconds": 60,
		// Paused until the sent messages below name it as their mailbox, so
		// the first sync already finds them.
		"status": "paused",
	}, 201, &mb); err != nil {
		return err
	}
	r.res.MailboxID = mb.ID
	var test struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if _, err := c.callJSON(ctx, "POST", fmt.Sprintf("/v1/mailboxes/%d/test", mb.ID), key.Token, nil, 200, &test); err != nil {
		return err
	}
	if !test.OK {
		return fmt.Errorf("demo: mailbox connection test failed: %s", test.Error)
	}
	r.say("POST /v1/mailboxes                  -> mailbox %d, %s:%d plain, sync every 60s, created paused; POST /v1/mailboxes/%d/test -> ok",
		mb.ID, r.imap.Host, r.imap.Port, mb.ID)
	type sentRow struct {
		LeadID    int64  `json:"lead_id"`
		MailboxID int64  `json:"mailbox_id"`
		MessageID string `json:"message_id"`
		SentAt    string `json:"sent_at"`
	}
	// Sent an hour before the first message of the mailbox arrived.
	sentAt := r.start.Add(-time.Hour).UTC().Format(time.RFC3339)
	var sent []sentRow
	for _, m := range r.sends {
		if lid, ok := byEmail[m.email]; ok {
			sent = append(sent, sentRow{lid, mb.ID, m.messageID, sentAt})
		}
	}
	for i, email := range delivered {
		if lid, ok := byEmail[email]; ok {
			sent = append(sent, sentRow{lid, mb.ID, fmt.Sprintf("demo-%d-%05d@rebound-demo.example", r.res.CampaignID, i+1), sentAt})
		}
	}
	if len(sent) > 0 {
		var rep importReport
		if _, err := c.callJSON(ctx, "POST", "/v1/sent-messages/bulk", key.Token,
			map[string]any{"messages": sent}, 200, &rep); err != nil {
			return err
		}
		r.say("POST /v1/sent-messages/bulk         -> %s", rep.summary())
		r.say("  (one per bounce result, with its original Message-ID when it has one of its own, + one per delivered lead)")
	}

	if _, err := c.call(ctx, "PATCH", fmt.Sprintf("/v1/mailboxes/%d", mb.ID), key.Token,
		map[string]string{"status": "active"}, 200); err != nil {
		return err
	}
	r.say("PATCH /v1/mailboxes/%d               -> status active: the worker's scheduler may sync it now", mb.ID)
	return nil
}

// deliveredDomains spread the made-up delivered leads over the providers
// the report tells apart, in a plausible B2C mix (about 40% Google, 20%
// Microsoft, 10% Yahoo, 10% Apple, 20% other). Nothing is ever sent to
// these addresses: the demo only registers that it was.
var deliveredDomains = []string{
	"gmail.com", "outlook.com", "gmail.com", "yahoo.com", "customers.rebound-demo.example",
	"gmail.com", "hotmail.com", "icloud.com", "gmail.com", "partners.rebound-demo.example",
}

// importReport is the API's ImportReport.
type importReport struct {
	Received int `json:"received"`
	Created  int `json:"created"`
	Existing int `json:"existing"`
	Failed   int `json:"failed"`
	Errors   []struct {
		Row     int    `json:"row"`
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
}

func (ir importReport) summary() string {
	s := fmt.Sprintf("received %d, created %d, existing %d, failed %d", ir.Received, ir.Created, ir.Existing, ir.Failed)
	if len(ir.Errors) > 0 {
		e := ir.Errors[0]
		s += fmt.Sprintf(" (e.g. row %d %s: %s)", e.Row, e.Field, e.Message)
	}
	return s
}

type leadJSON struct {
	ID          int64  `json:"id"`
	Email       string `json:"email"`
	Status      string `json:"status"`
	BounceCount int    `json:"bounce_count"`
}

// listLeads pages through the campaign's leads.
func (r *run) listLeads(ctx context.Context, campaignID int64) ([]leadJSON, error) {
	var all []leadJSON
	cursor := ""
	for {
		path := fmt.Sprintf("/v1/leads?campaign_id=%d&limit=500", campaignID)
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		var page struct {
			Data       []leadJSON `json:"data"`
			NextCursor *string    `json:"next_cursor"`
		}
		if _, err := r.client.callJSON(ctx, "GET", path, r.res.APIKey, nil, 200, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Data...)
		if page.NextCursor == nil || *page.NextCursor == "" {
			return all, nil
		}
		cursor = *page.NextCursor
	}
}

// mailboxJSON is the part of the API's Mailbox the demo reads.
type mailboxJSON struct {
	Status          string  `json:"status"`
	LastSyncAt      *string `json:"last_sync_at"`
	LastError       string  `json:"last_error"`
	MessagesSeen    int64   `json:"messages_seen"`
	BouncesRecorded int64   `json:"bounces_recorded"`
	NextSyncAt      *string `json:"next_sync_at"`
}

// sync starts (or waits for) the worker's sync and waits until the
// mailbox's state shows it finished.
func (r *run) sync(ctx context.Context) error {
	path := fmt.Sprintf("/v1/mailboxes/%d", r.res.MailboxID)
	switch r.o.Sync {
	case SyncTrigger:
		var q struct {
			Queued bool `json:"queued"`
		}
		if _, err := r.client.callJSON(ctx, "POST", path+"/sync", r.res.APIKey, nil, 202, &q); err != nil {
			return err
		}
		r.say("POST %s/sync -> 202 queued=%v: the API enqueued the sync task in asynq;", path, q.Queued)
		r.say("the worker runs it (sync mode %q: the scheduler's one-minute tick is slower than this run allows)", SyncTrigger)
	default:
		r.say("waiting for the worker's scheduler: at the start of every minute (wall clock) it enqueues")
		r.say("(asynq) the syncs of due mailboxes, and a new mailbox is due at once, so this takes up to a minute")
		r.say("(sync mode %q; -sync trigger queues the sync at once through the API instead)", SyncScheduler)
	}
	t0 := time.Now()
	deadline := t0.Add(r.o.SyncTimeout)
	nextNote := 15 * time.Second
	var raw []byte
	for {
		var mb mailboxJSON
		var err error
		raw, err = r.client.callJSON(ctx, "GET", path, r.res.APIKey, nil, 200, &mb)
		if err != nil {
			return err
		}
		if mb.LastSyncAt != nil {
			if mb.Status != "active" || mb.LastError != "" {
				return fmt.Errorf("demo: the sync finished with status %s: %s (worker log %s)", mb.Status, mb.LastError, r.worker.logPath)
			}
			r.say("GET %s -> synced after %.1fs: status=%s last_sync_at=%s messages_seen=%d bounces_recorded=%d",
				path, time.Since(t0).Seconds(), mb.Status, *mb.LastSyncAt, mb.MessagesSeen, mb.BouncesRecorded)
			break
		}
		if r.worker.exited() {
			return r.worker.deadErr()
		}
		if w := time.Since(t0); w >= nextNote {
			r.say("... still waiting after %.0fs (mailbox status %s, not synced yet)", w.Seconds(), mb.Status)
			nextNote += 15 * time.Second
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: mailbox %d not synced within %s (status %s, last error %q); last lines of %s:\n%s",
				r.res.MailboxID, r.o.SyncTimeout, mb.Status, mb.LastError, r.worker.logPath, tail(r.worker.logPath, 15))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	r.res.Mailbox = raw
	// The worker's own account of it.
	for _, line := range workerLogLines(r.worker.logPath, r.res.MailboxID) {
		r.say("worker.log: %s", line)
	}
	return nil
}

// workerLogLines returns the worker's JSON log lines that tell of the
// scheduler enqueuing syncs and of the sync of mailbox id, shortened.
func workerLogLines(path string, id int64) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		var l struct {
			Msg       string `json:"msg"`
			MailboxID int64  `json:"mailbox_id"`
		}
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		if l.Msg == "tasks: mailbox syncs enqueued" || l.MailboxID == id && strings.HasPrefix(l.Msg, "tasks: mailbox") {
			if len(line) > 240 {
				line = line[:240] + "..."
			}
			out = append(out, line)
		}
	}
	return out
}

// report prints the campaign report and a lead's timeline as the API
// returned them, and the curl commands.
func (r *run) report(ctx context.Context) error {
	key := r.res.APIKey
	// The days the demo's mail arrived on (UTC), so the daily series is short.
	reportPath := fmt.Sprintf("/v1/campaigns/%d/reports/bounces?from=%s&to=%s", r.res.CampaignID,
		r.start.Add(-time.Hour).UTC().Format(time.DateOnly), time.Now().UTC().Format(time.DateOnly))
	raw, err := r.client.call(ctx, "GET", reportPath, key, nil, 200)
	if err != nil {
		return err
	}
	r.res.Report = raw
	if err := os.WriteFile(filepath.Join(r.o.RunDir, "report.json"), raw, 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(r.out, "\n=== Campaign bounce report: GET %s (as returned; raw JSON in %s) ===\n",
		reportPath, rel(r.o.Root, filepath.Join(r.o.RunDir, "report.json")))
	if err := RenderJSON(r.out, raw, "  "); err != nil {
		return err
	}

	leads, err := r.listLeads(ctx, r.res.CampaignID)
	if err != nil {
		return err
	}
	pick := pickLead(leads)
	if pick == nil {
		return fmt.Errorf("demo: no lead of campaign %d has a recorded bounce", r.res.CampaignID)
	}
	r.res.LeadID = pick.ID
	tlPath := fmt.Sprintf("/v1/leads/%d/activities?limit=10", pick.ID)
	tl, err := r.client.call(ctx, "GET", tlPath, key, nil, 200)
	if err != nil {
		return err
	}
	r.res.Timeline = tl
	fmt.Fprintf(r.out, "\n=== Timeline of lead %d <%s> (status %s, %d bounces): GET %s ===\n",
		pick.ID, pick.Email, pick.Status, pick.BounceCount, tlPath)
	if err := RenderJSON(r.out, tl, "  "); err != nil {
		return err
	}

	base := r.res.APIURL
	auth := fmt.Sprintf("-H 'Authorization: Bearer %s'", key)
	fmt.Fprintf(r.out, "\n=== Explore the running API (API key of workspace %d) ===\n", r.res.WorkspaceID)
	for _, line := range []string{
		fmt.Sprintf("curl -s %s '%s%s'", auth, base, reportPath),
		fmt.Sprintf("curl -s %s '%s%s&format=csv'", auth, base, reportPath),
		fmt.Sprintf("curl -s %s '%s/v1/bounces?campaign_id=%d&limit=20'", auth, base, r.res.CampaignID),
		fmt.Sprintf("curl -s %s '%s%s'", auth, base, tlPath),
		fmt.Sprintf("curl -s %s '%s/v1/leads?campaign_id=%d&status=stopped'", auth, base, r.res.CampaignID),
		fmt.Sprintf("curl -s %s %s/v1/unmatched-bounces", auth, base),
		fmt.Sprintf("curl -s %s %s/v1/suppressions", auth, base),
		fmt.Sprintf("curl -s %s %s/v1/mailboxes/%d", auth, base, r.res.MailboxID),
		fmt.Sprintf("curl -s -X POST %s %s/v1/mailboxes/%d/sync", auth, base, r.res.MailboxID),
		fmt.Sprintf("curl -s %s %s/v1/codes/5.1.1", auth, base),
		fmt.Sprintf("curl -s %s -H 'Content-Type: message/rfc822' --data-binary @%s %s/v1/decode",
			auth, filepath.Join(r.mailSource, r.mail[0].Name), base),
		fmt.Sprintf("curl -s %s/openapi.yaml", base),
	} {
		fmt.Fprintln(r.out, "  "+line)
	}
	return nil
}

// pickLead chooses the lead whose timeline to show: one with a short,
// telling history (1 to 3 bounces, the most of those, a stopped lead first),
// else the lead with the most bounces; nil when no lead bounced.
func pickLead(leads []leadJSON) *leadJSON {
	better := func(a, b *leadJSON) bool { // a better than b
		short := func(l *leadJSON) bool { return l.BounceCount >= 1 && l.BounceCount <= 3 }
		if short(a) != short(b) {
			return short(a)
		}
		if a.BounceCount != b.BounceCount {
			return a.BounceCount > b.BounceCount
		}
		return a.Status == "stopped" && b.Status != "stopped"
	}
	var pick *leadJSON
	for i := range leads {
		if leads[i].BounceCount > 0 && (pick == nil || better(&leads[i], pick)) {
			pick = &leads[i]
		}
	}
	return pick
}

// findRoot returns dir when set, else the directory of the go.mod found
// upwards from the working directory.
func findRoot(dir string) (string, error) {
	if dir != "" {
		return filepath.Abs(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("demo: no go.mod above %s: run the demo from the project", wd)
		}
	}
}

// rel shortens path to one relative to root when that stays near root
// (at most two levels up, such as ../shared/corpus/emails).
func rel(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil || strings.Count(r, "..") > 2 {
		return path
	}
	return r
}

// redact hides a URL's password.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
