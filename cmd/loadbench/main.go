// Command loadbench measures the campaign bounce report under load (issue 9).
//
//	loadbench seed [flags]   (re)create the bench database and seed it:
//	                         100 campaigns, 1,000,000 bounce events, their
//	                         sent messages and report counters (make seed-bench)
//	loadbench run [flags]    start the API on a loopback port over the bench
//	                         database and drive GET /v1/campaigns/{id}/reports/bounces
//	                         from concurrent clients; print p50, p99 and
//	                         requests/s (make bench-report)
//
// The bench database is a separate database (default rebound_bench) on the
// cluster of DATABASE_URL, so seeding never touches the development data.
// The run is bounded by -requests and -duration, whichever ends first.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/api"
	"github.com/rebound-hq/rebound/internal/report/benchseed"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/migrations"
)

// workspaceName names the seeded workspace; run finds it by this name.
const workspaceName = "loadbench"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loadbench seed|run [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "seed":
		err = seed(ctx, os.Args[2:])
	case "run":
		err = run(ctx, os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (seed or run)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

// benchURL returns the URL of database name on the cluster of base.
func benchURL(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("DATABASE_URL %q is not a postgres:// URL", base)
	}
	u.Path = "/" + name
	return u.String(), nil
}

func seed(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ExitOnError)
	base := fs.String("url", os.Getenv("DATABASE_URL"), "URL of the cluster (its database is only used to create the bench database)")
	name := fs.String("db", "rebound_bench", "bench database name (dropped and recreated)")
	campaigns := fs.Int("campaigns", 100, "campaigns")
	events := fs.Int("events", 1_000_000, "bounce events")
	verify := fs.Bool("verify", true, "check every counter against the aggregation over events afterwards")
	_ = fs.Parse(args)
	if !validName(*name) {
		return fmt.Errorf("-db %q: letters, digits and _ only", *name)
	}
	admin, err := sql.Open("pgx", *base)
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+*name+` WITH (FORCE)`); err != nil {
		return fmt.Errorf("drop %s: %w", *name, err)
	}
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+*name); err != nil {
		return fmt.Errorf("create %s: %w", *name, err)
	}
	u, err := benchURL(*base, *name)
	if err != nil {
		return err
	}
	db, err := sql.Open("pgx", u)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := migrations.NewProvider(db, nil)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", *name, err)
	}
	start := time.Now()
	res, err := benchseed.Seed(ctx, db, workspaceName, benchseed.Options{Campaigns: *campaigns, Events: *events},
		func(step string, d time.Duration) { fmt.Printf("seed: %-20s %8.1fs\n", step, d.Seconds()) })
	if err != nil {
		return err
	}
	fmt.Printf("seed: workspace %d, %d campaigns, %d sent messages, %d events in %s (database %s)\n",
		res.WorkspaceID, len(res.CampaignIDs), res.Sent, res.Events, time.Since(start).Round(time.Second), *name)
	if *verify {
		g, err := store.Open(ctx, u, store.OpenOptions{MaxConns: 2})
		if err != nil {
			return err
		}
		start := time.Now()
		if err := benchseed.Verify(ctx, g, res.WorkspaceID); err != nil {
			return err
		}
		fmt.Printf("seed: counters equal the aggregation over events (checked in %s)\n", time.Since(start).Round(time.Second))
	}
	return nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	base := fs.String("url", os.Getenv("DATABASE_URL"), "URL of the cluster holding the bench database")
	name := fs.String("db", "rebound_bench", "bench database name (seeded by loadbench seed)")
	clients := fs.Int("clients", 32, "concurrent clients")
	requests := fs.Int("requests", 30_000, "requests to send at most (after the warm-up)")
	duration := fs.Duration("duration", 20*time.Second, "time to run at most")
	warmup := fs.Int("warmup", 500, "warm-up requests, not measured")
	conns := fs.Int("conns", 8, "database connections of the server")
	tz := fs.String("tz", "Europe/Paris", "time zone of the reports")
	days := fs.Int("days", 30, "days of the daily series")
	p99Target := fs.Duration("target-p99", 20*time.Millisecond, "p99 target")
	rpsTarget := fs.Float64("target-rps", 2000, "requests/s target")
	vary := fs.Int("vary-days", 0, "end each request's range on one of this many days before today, at random (0: always today); with many, most requests miss the report cache")
	route := fs.String("route", "report", "report: the campaign report; workspace-report: GET /v1/reports/bounces; workspace: GET /v1/workspace (the floor: authentication and one query) for comparison")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the measured run (server and clients) to this file")
	_ = fs.Parse(args)

	u, err := benchURL(*base, *name)
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, u, store.OpenOptions{MaxConns: *conns})
	if err != nil {
		return fmt.Errorf("open %s (run make seed-bench first): %w", *name, err)
	}
	var ws int64
	var camps []int64
	if err := db.WithContext(ctx).Raw(`SELECT id FROM workspaces WHERE name = ? ORDER BY id LIMIT 1`, workspaceName).Scan(&ws).Error; err != nil || ws == 0 {
		return fmt.Errorf("no seeded workspace in %s: run make seed-bench first (%v)", *name, err)
	}
	if err := db.WithContext(ctx).Raw(`SELECT id FROM campaigns WHERE workspace_id = ? ORDER BY id`, ws).Scan(&camps).Error; err != nil || len(camps) == 0 {
		return fmt.Errorf("no campaigns in workspace %d: %v", ws, err)
	}
	var events int64
	db.WithContext(ctx).Raw(`SELECT COALESCE(sum(events), 0) FROM report_campaign_counters WHERE workspace_id = ?`, ws).Scan(&events)

	// The API as cmd/api serves it (auth, rate limiting off, error
	// handler, metrics), on a loopback port.
	operator := fmt.Sprintf("loadbench-%d", rand.Int64())
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	deps := api.Deps{DB: db, Log: log, OperatorToken: operator, RateLimit: &api.RateLimit{}}
	e := api.New(log, nil, func(e *echo.Echo) { api.Register(e, deps) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ends with Shutdown
	defer srv.Shutdown(context.Background())
	baseURL := "http://" + ln.Addr().String()

	tr := &http.Transport{MaxIdleConns: *clients * 2, MaxIdleConnsPerHost: *clients * 2, IdleConnTimeout: time.Minute}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	token, err := newKey(ctx, client, baseURL, operator, ws)
	if err != nil {
		return err
	}
	zone, err := time.LoadLocation(*tz)
	if err != nil {
		return err
	}
	to := time.Now().In(zone)
	from := to.AddDate(0, 0, -(*days - 1))
	query := fmt.Sprintf("?from=%s&to=%s&tz=%s", from.Format(time.DateOnly), to.Format(time.DateOnly), url.QueryEscape(*tz))

	one := func(rng *rand.Rand) (time.Duration, error) {
		id := camps[rng.IntN(len(camps))]
		target := fmt.Sprintf("%s/v1/campaigns/%d/reports/bounces%s", baseURL, id, query)
		if *vary > 0 {
			end := to.AddDate(0, 0, -rng.IntN(*vary))
			target = fmt.Sprintf("%s/v1/campaigns/%d/reports/bounces?from=%s&to=%s&tz=%s", baseURL, id,
				end.AddDate(0, 0, -(*days-1)).Format(time.DateOnly), end.Format(time.DateOnly), url.QueryEscape(*tz))
		}
		switch *route {
		case "workspace":
			target = baseURL + "/v1/workspace"
		case "workspace-report":
			target = strings.Replace(target, fmt.Sprintf("/v1/campaigns/%d/reports/", id), "/v1/reports/", 1)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		d := time.Since(start)
		if err != nil {
			return 0, err
		}
		if res.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("campaign %d: status %d", id, res.StatusCode)
		}
		return d, nil
	}

	fmt.Printf("loadbench: route %s; %d campaigns, %d events (workspace %d); %d clients, up to %d requests or %s; days %s..%s %s\n",
		*route, len(camps), events, ws, *clients, *requests, *duration, from.Format(time.DateOnly), to.Format(time.DateOnly), *tz)
	// Warm-up: connections, prepared statements, caches.
	if err := drive(ctx, *clients, *warmup, time.Minute, one, nil); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	lat := make([]time.Duration, 0, *requests)
	var mu sync.Mutex
	start := time.Now()
	err = drive(ctx, *clients, *requests, *duration, one, func(d time.Duration) {
		mu.Lock()
		lat = append(lat, d)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	if err != nil {
		return err
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(float64(len(lat))*p))] }
	rps := float64(len(lat)) / elapsed.Seconds()
	fmt.Printf("loadbench: %d requests in %.2fs: %.0f requests/s\n", len(lat), elapsed.Seconds(), rps)
	fmt.Printf("loadbench: latency p50 %s  p90 %s  p99 %s  max %s\n",
		ms(pct(0.50)), ms(pct(0.90)), ms(pct(0.99)), ms(lat[len(lat)-1]))
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "MISSED"
	}
	fmt.Printf("loadbench: target p99 <= %s: %s; target >= %.0f requests/s: %s\n",
		*p99Target, verdict(pct(0.99) <= *p99Target), *rpsTarget, verdict(rps >= *rpsTarget))
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

// drive runs n requests (or until d has passed) from clients goroutines;
// each successful request's latency goes to observe (when not nil). The
// first failure stops the run and is returned.
func drive(ctx context.Context, clients, n int, d time.Duration, one func(*rand.Rand) (time.Duration, error), observe func(time.Duration)) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 42))
			for ctx.Err() == nil && next.Add(1) <= int64(n) {
				lat, err := one(rng)
				if err != nil {
					if ctx.Err() != nil {
						return // the time bound ended the request
					}
					once.Do(func() { firstErr = err; cancel() })
					return
				}
				if observe != nil {
					observe(lat)
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil && !errors.Is(firstErr, context.Canceled) {
		return firstErr
	}
	return nil
}

// newKey creates an API key of workspace ws through the operator route.
func newKey(ctx context.Context, c *http.Client, base, operator string, ws int64) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("%s/v1/workspaces/%d/api-keys", base, ws),
		bytes.NewReader([]byte(`{"name":"loadbench"}`)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+operator)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("create API key: %d %s", res.StatusCode, strings.TrimSpace(string(body)))
	}
	var out struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Token == "" {
		return "", fmt.Errorf("create API key: %s: %v", body, err)
	}
	return out.Token, nil
}
