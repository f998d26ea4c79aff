package config

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// key32 is base64 of 32 bytes, a valid SECRET_KEYS key.
const key32 = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

func TestDefaults(t *testing.T) {
	c, err := LoadFrom(map[string]string{})
	if err != nil {
		t.Fatalf("LoadFrom(empty) = %v", err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"DATABASE_URL", c.DatabaseURL, "postgres://rebound:rebound@127.0.0.1:55432/rebound?sslmode=disable"},
		{"REDIS_URL", c.RedisURL, "redis://127.0.0.1:56379/0"},
		{"API_ADDR", c.APIAddr, "127.0.0.1:8080"},
		{"API_RATE_PER_SECOND", c.APIRatePerSecond, 20.0},
		{"API_RATE_BURST", c.APIRateBurst, 100},
		{"LOG_LEVEL", c.LogLevel, slog.LevelInfo},
		{"LOG_FORMAT", c.LogFormat, "json"},
		{"OPERATOR_TOKEN", c.OperatorToken, ""},
		{"ALLOW_PRIVATE_HOSTS", c.AllowPrivateHosts, false},
		{"WORKER_CONCURRENCY", c.WorkerConcurrency, 10},
		{"SYNC_INTERVAL", c.SyncInterval, 5 * time.Minute},
		{"MATCH_HEADER_CAMPAIGN", c.MatchHeaderCampaign, "X-Rebound-Campaign"},
		{"MATCH_HEADER_LEAD", c.MatchHeaderLead, "X-Rebound-Lead"},
		{"UsesDevSecretKey", c.UsesDevSecretKey(), true},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	if c.Keyring == nil || c.Keyring.ActiveKeyID() != "dev" {
		t.Errorf("Keyring = %v, want the dev key active", c.Keyring)
	}
}

func TestEmptyMeansDefault(t *testing.T) {
	c, err := LoadFrom(map[string]string{"API_ADDR": "", "SECRET_KEYS": ""})
	if err != nil {
		t.Fatal(err)
	}
	if c.APIAddr != "127.0.0.1:8080" || !c.UsesDevSecretKey() {
		t.Errorf("empty variables did not take defaults: %+v", c)
	}
}

func TestValidValues(t *testing.T) {
	c, err := LoadFrom(map[string]string{
		"DATABASE_URL":         "postgresql://u:p@db.example:5432/rebound",
		"REDIS_URL":            "rediss://:pw@redis.example:6380/2",
		"API_ADDR":             ":9090",
		"LOG_LEVEL":            "DEBUG",
		"LOG_FORMAT":           "text",
		"OPERATOR_TOKEN":       "0123456789abcdef",
		"SECRET_KEYS":          "old:" + key32 + ", new:" + strings.Repeat("ab", 32),
		"SECRET_ACTIVE_KEY_ID": "new",
		"ALLOW_PRIVATE_HOSTS":  "true",
		"WORKER_CONCURRENCY":   "3",
		"SYNC_INTERVAL":        "90s",
		"MATCH_HEADER_LEAD":    "X-Lead-Id",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.APIAddr != ":9090" || c.LogLevel != slog.LevelDebug || !c.AllowPrivateHosts ||
		c.WorkerConcurrency != 3 || c.SyncInterval != 90*time.Second || c.MatchHeaderLead != "X-Lead-Id" {
		t.Errorf("values not taken: %+v", c)
	}
	if c.UsesDevSecretKey() {
		t.Error("UsesDevSecretKey with keys set")
	}
	if got := c.Keyring.ActiveKeyID(); got != "new" {
		t.Errorf("active key = %q, want new", got)
	}
	if got := strings.Join(c.Keyring.KeyIDs(), ","); got != "new,old" {
		t.Errorf("key ids = %q", got)
	}
}

// TestInvalid checks that each wrong value stops loading with a message
// naming the variable and what it expects.
func TestInvalid(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want []string // substrings of the error
	}{
		{"database scheme", map[string]string{"DATABASE_URL": "mysql://x/y"}, []string{"DATABASE_URL", "postgres:// URL"}},
		{"max conns", map[string]string{"DATABASE_MAX_CONNS": "0"}, []string{"DATABASE_MAX_CONNS", "1 to 1000"}},
		{"max conns not a number", map[string]string{"DATABASE_MAX_CONNS": "many"}, []string{"DATABASE_MAX_CONNS", "whole number"}},
		{"redis", map[string]string{"REDIS_URL": "http://localhost:6379"}, []string{"REDIS_URL", "redis://"}},
		{"api addr", map[string]string{"API_ADDR": "8080"}, []string{"API_ADDR", "host:port"}},
		{"rate negative", map[string]string{"API_RATE_PER_SECOND": "-1"}, []string{"API_RATE_PER_SECOND", "0 or more"}},
		{"rate not a number", map[string]string{"API_RATE_PER_SECOND": "fast"}, []string{"API_RATE_PER_SECOND", "requests a second"}},
		{"rate infinite", map[string]string{"API_RATE_PER_SECOND": "+Inf"}, []string{"API_RATE_PER_SECOND"}},
		{"rate NaN", map[string]string{"API_RATE_PER_SECOND": "NaN"}, []string{"API_RATE_PER_SECOND"}},
		{"burst zero", map[string]string{"API_RATE_BURST": "0"}, []string{"API_RATE_BURST", "1 to 1000000"}},
		{"burst too big", map[string]string{"API_RATE_BURST": "1000001"}, []string{"API_RATE_BURST", "1 to 1000000"}},
		{"log level", map[string]string{"LOG_LEVEL": "loud"}, []string{"LOG_LEVEL", "debug, info, warn or error"}},
		{"log level offset", map[string]string{"LOG_LEVEL": "info+2"}, []string{"LOG_LEVEL", "debug, info, warn or error"}},
		{"log format", map[string]string{"LOG_FORMAT": "xml"}, []string{"LOG_FORMAT", "json or text"}},
		{"operator token short", map[string]string{"OPERATOR_TOKEN": "short"}, []string{"OPERATOR_TOKEN", "at least 16"}},
		{"secret keys only commas", map[string]string{"SECRET_KEYS": " , "}, []string{"SECRET_KEYS", "key-id:base64"}},
		{"secret key short", map[string]string{"SECRET_KEYS": "k1:AAAA"}, []string{"SECRET_KEYS", "key-id:base64"}},
		{"secret key no id", map[string]string{"SECRET_KEYS": key32}, []string{"SECRET_KEYS"}},
		{"active key unknown", map[string]string{"SECRET_KEYS": "k1:" + key32, "SECRET_ACTIVE_KEY_ID": "k2"}, []string{"SECRET_ACTIVE_KEY_ID", "one of the SECRET_KEYS"}},
		{"private hosts", map[string]string{"ALLOW_PRIVATE_HOSTS": "maybe"}, []string{"ALLOW_PRIVATE_HOSTS", "true or false"}},
		{"concurrency", map[string]string{"WORKER_CONCURRENCY": "-1"}, []string{"WORKER_CONCURRENCY"}},
		{"sync interval unit", map[string]string{"SYNC_INTERVAL": "5"}, []string{"SYNC_INTERVAL", "duration"}},
		{"sync interval short", map[string]string{"SYNC_INTERVAL": "1s"}, []string{"SYNC_INTERVAL", "at least 10s"}},
		{"imap timeout", map[string]string{"IMAP_TIMEOUT": "0s"}, []string{"IMAP_TIMEOUT"}},
		{"shutdown timeout", map[string]string{"SHUTDOWN_TIMEOUT": "10ms"}, []string{"SHUTDOWN_TIMEOUT"}},
		{"campaign header", map[string]string{"MATCH_HEADER_CAMPAIGN": "X Campaign"}, []string{"MATCH_HEADER_CAMPAIGN", "header field name"}},
		{"lead header colon", map[string]string{"MATCH_HEADER_LEAD": "X-Lead:"}, []string{"MATCH_HEADER_LEAD"}},
		{"two at once", map[string]string{"API_ADDR": "x", "LOG_FORMAT": "xml"}, []string{"API_ADDR", "LOG_FORMAT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadFrom(tt.vars)
			if err == nil {
				t.Fatalf("LoadFrom(%v) = %+v, want an error", tt.vars, c)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "config: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestSecretsHiddenInErrorsAndLogs(t *testing.T) {
	_, err := LoadFrom(map[string]string{"DATABASE_URL": "mysql://user:hunter2@db/x", "OPERATOR_TOKEN": "hunter3"})
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "hunter3") {
		t.Errorf("error %v shows a secret", err)
	}
	c, err := LoadFrom(map[string]string{
		"DATABASE_URL":   "postgres://user:hunter2@db/x",
		"OPERATOR_TOKEN": "hunter3-hunter3-hunter3",
		"SECRET_KEYS":    "k1:" + key32,
	})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("config", "config", c)
	out := b.String()
	for _, secret := range []string{"hunter2", "hunter3", key32} {
		if strings.Contains(out, secret) {
			t.Errorf("log line shows secret %q: %s", secret, out)
		}
	}
	if !strings.Contains(out, "config.SECRET_KEYS=\"key ids k1\"") || !strings.Contains(out, "config.API_ADDR=127.0.0.1:8080") ||
		!strings.Contains(out, "config.SYNC_INTERVAL=5m0s") {
		t.Errorf("log line lacks settings: %s", out)
	}
}

func TestFileVariants(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("from-a-file-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadFrom(map[string]string{"OPERATOR_TOKEN_FILE": tokenFile})
	if err != nil {
		t.Fatal(err)
	}
	if c.OperatorToken != "from-a-file-0123456789" {
		t.Errorf("OPERATOR_TOKEN from file = %q", c.OperatorToken)
	}

	_, err = LoadFrom(map[string]string{"OPERATOR_TOKEN_FILE": tokenFile, "OPERATOR_TOKEN": "also-set-0123456789"})
	if err == nil || !strings.Contains(err.Error(), "OPERATOR_TOKEN and OPERATOR_TOKEN_FILE") {
		t.Errorf("both set: err = %v", err)
	}
	_, err = LoadFrom(map[string]string{"SECRET_KEYS_FILE": filepath.Join(dir, "missing")})
	if err == nil || !strings.Contains(err.Error(), "SECRET_KEYS_FILE") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestLoadReadsProcessEnvironment(t *testing.T) {
	t.Setenv("API_ADDR", "127.0.0.1:18080")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.APIAddr != "127.0.0.1:18080" {
		t.Errorf("APIAddr = %q", c.APIAddr)
	}
}
