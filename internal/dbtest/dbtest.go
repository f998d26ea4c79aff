// Package dbtest gives each test its own freshly migrated PostgreSQL database on
// the project's private cluster (scripts/services.sh, started by `make test`).
//
// The first call in a test process builds (or finds) a template database that
// holds the embedded migrations, named after a hash of them, so later calls and
// later runs only copy it with CREATE DATABASE ... TEMPLATE, which costs no
// more than creating an empty database. Each test's database gets a unique
// name and is dropped in tb.Cleanup.
//
// The cluster is found through REBOUND_TEST_DATABASE_URL, or DATABASE_URL when
// that is unset; the role in the URL needs CREATEDB. Without either variable a
// test fails (it does not skip), unless `go test -short` is used.
package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/rebound-hq/rebound/migrations"
)

// EnvURL and EnvFallbackURL name the variables that locate the test cluster.
const (
	EnvURL         = "REBOUND_TEST_DATABASE_URL"
	EnvFallbackURL = "DATABASE_URL"
)

// testPrefix starts the name of every test database, followed by its
// creation time (Unix seconds) and a random part.
const testPrefix = "rebound_test_"

// staleAfter is the age from which a test database is taken as left behind by
// a test process that crashed before its cleanup; the first template lookup
// of each process drops those.
const staleAfter = 6 * time.Hour

// timeout bounds each administrative step (creating the template, copying it,
// dropping a database).
const timeout = 2 * time.Minute

var (
	mu       sync.Mutex
	admin    *sql.DB // connection pool to the admin URL's database, opened once
	adminURL string
	template string // name of the migrated template, once built
)

// New returns a GORM handle to a fresh, fully migrated database of its own.
// The handle is closed and the database dropped when the test ends.
func New(tb testing.TB) *gorm.DB {
	tb.Helper()
	dsn := NewURL(tb)
	db, err := gorm.Open(postgres.Open(dsn), &gorm.Config{
		Logger: logger.Default.LogMode(logger.Silent),
	})
	if err != nil {
		tb.Fatalf("dbtest: open %s: %v", redact(dsn), err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	tb.Cleanup(func() { _ = sqlDB.Close() })
	return db
}

// NewURL returns the connection URL of a fresh, fully migrated database of its
// own, dropped when the test ends (open connections are terminated then).
func NewURL(tb testing.TB) string {
	tb.Helper()
	a := open(tb)
	tmpl, err := ensureTemplate(a)
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	return create(tb, a, tmpl)
}

// NewEmptyURL returns the connection URL of a fresh database with no schema at
// all (not even goose's version table), dropped when the test ends. It is meant
// for tests of the migrations themselves.
func NewEmptyURL(tb testing.TB) string {
	tb.Helper()
	return create(tb, open(tb), "template0")
}

// open returns the admin pool, failing the test when no URL is configured.
func open(tb testing.TB) *sql.DB {
	tb.Helper()
	raw := os.Getenv(EnvURL)
	if raw == "" {
		raw = os.Getenv(EnvFallbackURL)
	}
	if raw == "" {
		if testing.Short() {
			tb.Skipf("dbtest: %s not set; skipped in -short mode", EnvURL)
		}
		tb.Fatalf("dbtest: neither %s nor %s is set: run make test (starts PostgreSQL)", EnvURL, EnvFallbackURL)
	}
	mu.Lock()
	defer mu.Unlock()
	if admin != nil && adminURL == raw {
		return admin
	}
	db, err := sql.Open("pgx", raw)
	if err != nil {
		tb.Fatalf("dbtest: %s: %v", EnvURL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		tb.Fatalf("dbtest: cannot reach PostgreSQL at %s (run make test, or make services-up): %v", redact(raw), err)
	}
	db.SetMaxOpenConns(8)
	admin, adminURL, template = db, raw, ""
	return admin
}

// ensureTemplate returns the name of the migrated template database, building
// it under a PostgreSQL advisory lock when no process has done so yet.
func ensureTemplate(a *sql.DB) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if template != "" {
		return template, nil
	}
	sum, err := migrationsHash()
	if err != nil {
		return "", err
	}
	name := "rebound_tmpl_" + sum
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	conn, err := a.Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("dbtest: admin connection: %w", err)
	}
	defer conn.Close()
	// Session-level advisory lock: only one test process builds a template at a time.
	const lockKey = 0x7265626f756e64 // "rebound"
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return "", fmt.Errorf("dbtest: advisory lock: %w", err)
	}
	defer conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", lockKey) //nolint:errcheck

	var exists bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", fmt.Errorf("dbtest: look up template: %w", err)
	}
	if !exists {
		building := name + "_build"
		if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quote(building)+" WITH (FORCE)"); err != nil {
			return "", fmt.Errorf("dbtest: drop stale template build: %w", err)
		}
		if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+quote(building)+" TEMPLATE template0"); err != nil {
			return "", fmt.Errorf("dbtest: create template: %w", err)
		}
		if err := migrate(ctx, withDatabase(adminURL, building)); err != nil {
			return "", err
		}
		// Renaming only after a complete migration means a present template is a good one.
		if _, err := conn.ExecContext(ctx, "ALTER DATABASE "+quote(building)+" RENAME TO "+quote(name)); err != nil {
			return "", fmt.Errorf("dbtest: finish template: %w", err)
		}
	}
	dropStale(ctx, conn)
	template = name
	return name, nil
}

// dropStale drops test databases older than staleAfter. Failures are ignored:
// this is only tidying.
func dropStale(ctx context.Context, conn *sql.Conn) {
	rows, err := conn.QueryContext(ctx, "SELECT datname FROM pg_database WHERE datname LIKE $1", testPrefix+"%")
	if err != nil {
		return
	}
	var stale []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			continue
		}
		created, _, ok := strings.Cut(strings.TrimPrefix(name, testPrefix), "_")
		if !ok {
			continue
		}
		if sec, err := strconv.ParseInt(created, 10, 64); err == nil && time.Since(time.Unix(sec, 0)) > staleAfter {
			stale = append(stale, name)
		}
	}
	_ = rows.Close()
	for _, name := range stale {
		_, _ = conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quote(name)+" WITH (FORCE)")
	}
}

// migrate applies every embedded migration to the database at dsn.
func migrate(ctx context.Context, dsn string) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return fmt.Errorf("dbtest: open template: %w", err)
	}
	defer db.Close()
	p, err := migrations.NewProvider(db, nil)
	if err != nil {
		return fmt.Errorf("dbtest: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("dbtest: migrate template: %w", err)
	}
	return nil
}

// create makes a randomly named copy of tmpl and registers its removal.
func create(tb testing.TB, a *sql.DB, tmpl string) string {
	tb.Helper()
	name := fmt.Sprintf("%s%d_%s", testPrefix, time.Now().Unix(), randomHex(6))
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if _, err := a.ExecContext(ctx, "CREATE DATABASE "+quote(name)+" TEMPLATE "+quote(tmpl)); err != nil {
		tb.Fatalf("dbtest: create database %s from %s: %v", name, tmpl, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := dropDatabase(ctx, a, name); err != nil {
			tb.Errorf("dbtest: drop database %s: %v", name, err)
		}
	})
	mu.Lock()
	base := adminURL
	mu.Unlock()
	return withDatabase(base, name)
}

// dropDatabase drops name, terminating its sessions. A non-superuser cannot
// terminate an autovacuum worker that happens to be connected (SQLSTATE
// 42501), so the drop is retried for a few seconds while that worker ends.
func dropDatabase(ctx context.Context, a *sql.DB, name string) error {
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		if _, err = a.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quote(name)+" WITH (FORCE)"); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
	return err
}

// migrationsHash is a short hash of the embedded migration files' names and
// contents: a changed migration gets a new template.
func migrationsHash() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("dbtest: hash migrations: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// withDatabase returns dsn (a postgres:// URL) pointing at database name.
func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		// Not a URL: a keyword/value connection string; a later dbname wins.
		return dsn + " dbname=" + name
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String()
}

// redact hides the password of a URL for messages.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return "(connection string)"
	}
	return u.Redacted()
}

func quote(ident string) string { return `"` + ident + `"` }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it crashes the program instead)
	return hex.EncodeToString(b)
}
