package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/rebound-hq/rebound/internal/api"
	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/migrations"
)

// syncBuffer is a bytes.Buffer safe for the server's concurrent log writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testRedis connects to the test Redis of make test.
func testRedis(t *testing.T) *redis.Client {
	t.Helper()
	raw := dbtest.RedisURL(t)
	opt, err := redis.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func get(t *testing.T, e *echo.Echo, path string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}

// healthBody is the Health schema of openapi.yaml.
type healthBody struct {
	Status string
	Checks map[string]string
}

func readyzBody(t *testing.T, rec *httptest.ResponseRecorder) healthBody {
	t.Helper()
	if ct := rec.Header().Get(echo.HeaderContentType); !strings.HasPrefix(ct, echo.MIMEApplicationJSON) {
		t.Errorf("Content-Type = %q, want JSON", ct)
	}
	var b healthBody
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	return b
}

// TestReadyzFollowsPostgreSQL stops and restarts a throwaway PostgreSQL
// cluster of its own (the shared one keeps serving other tests): /readyz is
// 503 naming PostgreSQL while it is down and 200 once it is back.
func TestReadyzFollowsPostgreSQL(t *testing.T) {
	pg := startThrowawayPostgres(t)
	db, err := gorm.Open(postgres.Open(pg.dsn), &gorm.Config{Logger: logger.Default.LogMode(logger.Silent)})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	t.Cleanup(func() { _ = sqlDB.Close() })
	var logs syncBuffer
	e := api.New(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		[]api.ReadyCheck{api.PostgresCheck(db), api.RedisCheck(testRedis(t))}, nil)

	// Reachable but never migrated: not ready either.
	rec := get(t, e, "/readyz", nil)
	if b := readyzBody(t, rec); rec.Code != http.StatusServiceUnavailable || b.Checks["PostgreSQL"] != "schema outdated" {
		t.Fatalf("readyz before migrating = %d %s, want 503 with PostgreSQL schema outdated", rec.Code, rec.Body)
	}
	p, err := migrations.NewProvider(sqlDB, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(context.Background()); err != nil {
		t.Fatal(err)
	}

	rec = get(t, e, "/readyz", nil)
	if b := readyzBody(t, rec); rec.Code != http.StatusOK || b.Status != "ready" || b.Checks["PostgreSQL"] != "ok" || b.Checks["Redis"] != "ok" {
		t.Fatalf("readyz with everything up = %d %s", rec.Code, rec.Body)
	}

	pg.stop(t)
	rec = get(t, e, "/readyz", nil)
	b := readyzBody(t, rec)
	if rec.Code != http.StatusServiceUnavailable || b.Checks["PostgreSQL"] != "unreachable" || b.Checks["Redis"] != "ok" ||
		!strings.Contains(b.Status, "PostgreSQL") || strings.Contains(b.Status, "Redis") {
		t.Fatalf("readyz with PostgreSQL stopped = %d %s, want 503 naming PostgreSQL only", rec.Code, rec.Body)
	}

	pg.start(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec = get(t, e, "/readyz", nil)
		if rec.Code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz after PostgreSQL restarted = %d %s", rec.Code, rec.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), `"dependency":"PostgreSQL"`) {
		t.Errorf("the failing check was not logged: %s", logs.String())
	}
}

func TestReadyzNamesRedis(t *testing.T) {
	// Port 1 on loopback refuses connections: Redis is "down".
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	up := api.ReadyCheck{Name: "PostgreSQL", Ping: func(context.Context) error { return nil }}
	e := api.New(slog.New(slog.DiscardHandler), []api.ReadyCheck{up, api.RedisCheck(rdb)}, nil)
	rec := get(t, e, "/readyz", nil)
	b := readyzBody(t, rec)
	if rec.Code != http.StatusServiceUnavailable || b.Checks["Redis"] != "unreachable" ||
		!strings.Contains(b.Status, "Redis") || strings.Contains(b.Status, "PostgreSQL") {
		t.Errorf("readyz with Redis down = %d %s, want 503 naming Redis only", rec.Code, rec.Body)
	}
}

func TestHealthzAndRequestIDs(t *testing.T) {
	var logs syncBuffer
	registered := false
	e := api.New(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), nil,
		func(*echo.Echo) { registered = true })
	if !registered {
		t.Error("New did not call register")
	}

	rec := get(t, e, "/healthz", http.Header{"X-Request-Id": {"proxy-id-1"}})
	if rec.Code != http.StatusOK || readyzBody(t, rec).Status != "alive" {
		t.Errorf("healthz = %d %s", rec.Code, rec.Body)
	}
	if got := rec.Header().Get(api.HeaderRequestID); got != "proxy-id-1" {
		t.Errorf("request ID = %q, want the proxy's proxy-id-1", got)
	}
	rec = get(t, e, "/healthz", http.Header{"X-Request-Id": {"bad id\nwith newline"}})
	generated := rec.Header().Get(api.HeaderRequestID)
	if generated == "" || strings.Contains(generated, " ") {
		t.Errorf("unsafe incoming ID not replaced: %q", generated)
	}
	// One access line per request, each with its request ID.
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line not JSON: %q", line)
		}
		id, _ := m["request_id"].(string)
		if id == "" {
			t.Errorf("log line without request_id: %s", line)
		}
		ids = append(ids, id)
	}
	if strings.Join(ids, ",") != "proxy-id-1,"+generated {
		t.Errorf("request IDs in logs = %v, want [proxy-id-1 %s]", ids, generated)
	}
}

// throwawayPostgres is a PostgreSQL cluster of one test, in a temporary
// directory, on a free port, run as the postgres user when the test runs as root.
type throwawayPostgres struct {
	bin, dir, port, dsn string
	asPostgres          bool
}

func startThrowawayPostgres(t *testing.T) *throwawayPostgres {
	t.Helper()
	bin := pgBinDir()
	if bin == "" {
		t.Fatal("PostgreSQL server binaries (initdb, pg_ctl) not found: run make test (installs PostgreSQL)")
	}
	dir, err := os.MkdirTemp("", "rebound-readyz-")
	if err != nil {
		t.Fatal(err)
	}
	p := &throwawayPostgres{bin: bin, dir: dir, port: strconv.Itoa(freePort(t)), asPostgres: os.Geteuid() == 0}
	p.dsn = fmt.Sprintf("postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable&connect_timeout=2", p.port)
	t.Cleanup(func() {
		_ = p.cmd(p.bin+"/pg_ctl", "-D", p.data(), "-m", "immediate", "-w", "stop").Run()
		_ = os.RemoveAll(dir)
	})
	if p.asPostgres {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs the postgres user (Debian's package creates it): %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := p.cmd(bin+"/initdb", "-D", p.data(), "-U", "postgres", "--auth=trust", "--no-sync", "--no-locale", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	p.start(t)
	return p
}

func (p *throwawayPostgres) data() string { return filepath.Join(p.dir, "data") }

func (p *throwawayPostgres) cmd(name string, args ...string) *exec.Cmd {
	if p.asPostgres {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	return exec.Command(name, args...)
}

func (p *throwawayPostgres) start(t *testing.T) {
	t.Helper()
	opts := fmt.Sprintf("-p %s -k %s -c listen_addresses=127.0.0.1 -c fsync=off", p.port, p.dir)
	if out, err := p.cmd(p.bin+"/pg_ctl", "-D", p.data(), "-l", filepath.Join(p.dir, "log"), "-o", opts, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(p.dir, "log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

func (p *throwawayPostgres) stop(t *testing.T) {
	t.Helper()
	if out, err := p.cmd(p.bin+"/pg_ctl", "-D", p.data(), "-m", "fast", "-w", "stop").CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// pgBinDir finds the newest installed PostgreSQL server binaries, as
// scripts/services.sh does.
func pgBinDir() string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) > 0 {
		return filepath.Dir(matches[len(matches)-1])
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(real)
		}
	}
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
