// Package config reads Rebound's settings from the environment.
//
// Every setting has a default that suits local development against the private
// services of scripts/services.sh, so `make run-api` works with no variables
// set. A value that is present but wrong stops start-up: Load returns one error
// naming each bad variable and what it expects. Secrets (OPERATOR_TOKEN,
// SECRET_KEYS, DATABASE_URL, REDIS_URL) may instead be given in a file named by
// NAME_FILE (for container secrets); setting both NAME and NAME_FILE is an error.
//
// Binaries call Load once in main and pass the Config down; nothing else reads
// the environment.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/redis/go-redis/v9"

	"github.com/rebound-hq/rebound/internal/secret"
)

// DevSecretKeys is the SECRET_KEYS default: a fixed, publicly known key for
// local development only. UsesDevSecretKey reports when it is in use, and the
// binaries log a warning then.
const DevSecretKeys = "dev:ZGV2ZWxvcG1lbnQta2V5LW5vdC1mb3ItcHJvZHVjdCE="

// Config holds every setting. Field tags name the variable (env), its default
// (envDefault) and, for error messages, what it expects (expect).
type Config struct {
	// DatabaseURL locates PostgreSQL (pgx URL syntax).
	DatabaseURL string `env:"DATABASE_URL" envDefault:"postgres://rebound:rebound@127.0.0.1:55432/rebound?sslmode=disable" expect:"a postgres:// URL" secret:"url"`
	// DatabaseMaxConns caps the connection pool of each process.
	DatabaseMaxConns int `env:"DATABASE_MAX_CONNS" envDefault:"10" expect:"a whole number from 1 to 1000"`
	// RedisURL locates Redis for asynq (redis://[user:password@]host:port/db or rediss://).
	RedisURL string `env:"REDIS_URL" envDefault:"redis://127.0.0.1:56379/0" expect:"a redis:// or rediss:// URL" secret:"url"`
	// APIAddr is the address cmd/api listens on.
	APIAddr string `env:"API_ADDR" envDefault:"127.0.0.1:8080" expect:"host:port to listen on, such as :8080 or 127.0.0.1:8080"`
	// APIRatePerSecond is the per-API-key rate limit of cmd/api, in requests
	// a second sustained; 0 turns limiting off.
	APIRatePerSecond float64 `env:"API_RATE_PER_SECOND" envDefault:"20" expect:"a number of requests a second, 0 or more"`
	// APIRateBurst is how many requests one API key may make at once.
	APIRateBurst int `env:"API_RATE_BURST" envDefault:"100" expect:"a whole number from 1 to 1000000"`
	// LogLevel is the minimum level logged.
	LogLevel slog.Level `env:"LOG_LEVEL" envDefault:"info" expect:"debug, info, warn or error"`
	// LogFormat selects JSON lines (production) or slog's text format.
	LogFormat string `env:"LOG_FORMAT" envDefault:"json" expect:"json or text"`
	// OperatorToken is the bearer token of the operator endpoints (workspace
	// and API key management). Empty turns those endpoints off.
	OperatorToken string `env:"OPERATOR_TOKEN" expect:"empty (operator endpoints off) or a token of at least 16 characters" secret:"value"`
	// SecretKeys lists the AES-256-GCM keys that seal mailbox credentials:
	// "id:KEY,id2:KEY2", each KEY 32 bytes in base64 or 64 hex digits.
	SecretKeys string `env:"SECRET_KEYS" envDefault:"dev:ZGV2ZWxvcG1lbnQta2V5LW5vdC1mb3ItcHJvZHVjdCE=" expect:"a comma-separated list of key-id:base64(32 bytes)" secret:"value"`
	// SecretActiveKeyID names the key that seals new credentials; empty means
	// the first key of SECRET_KEYS.
	SecretActiveKeyID string `env:"SECRET_ACTIVE_KEY_ID" expect:"the id of one of the SECRET_KEYS"`
	// AllowPrivateHosts lets mailboxes point at loopback, private and link-local
	// addresses (tests, the demo, on-premises servers). Off, such hosts are refused.
	AllowPrivateHosts bool `env:"ALLOW_PRIVATE_HOSTS" envDefault:"false" expect:"true or false"`
	// WorkerConcurrency is the number of tasks one worker runs at once.
	WorkerConcurrency int `env:"WORKER_CONCURRENCY" envDefault:"10" expect:"a whole number from 1 to 1000"`
	// SyncInterval is the default time between two syncs of a mailbox.
	SyncInterval time.Duration `env:"SYNC_INTERVAL" envDefault:"5m" expect:"a duration of at least 10s, such as 90s or 5m"`
	// IMAPTimeout bounds each IMAP network operation (dial, command, fetch).
	IMAPTimeout time.Duration `env:"IMAP_TIMEOUT" envDefault:"1m" expect:"a duration of at least 1s, such as 30s"`
	// ShutdownTimeout is how long api and worker wait for work in flight on
	// SIGTERM/SIGINT before exiting.
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" envDefault:"20s" expect:"a duration of at least 1s, such as 20s"`
	// MatchHeaderCampaign and MatchHeaderLead name the headers the sending side
	// puts on each message, found again in returned originals (design.md,
	// "Matching a bounce to its lead").
	MatchHeaderCampaign string `env:"MATCH_HEADER_CAMPAIGN" envDefault:"X-Rebound-Campaign" expect:"a header field name (letters, digits and -)"`
	MatchHeaderLead     string `env:"MATCH_HEADER_LEAD" envDefault:"X-Rebound-Lead" expect:"a header field name (letters, digits and -)"`

	// RedisSentinelAddrs, when set, finds the Redis master through these
	// Sentinels (host:port, comma-separated) under RedisSentinelMaster;
	// REDIS_URL then only gives the credentials, database and TLS.
	RedisSentinelAddrs []string `env:"REDIS_SENTINEL_ADDRS" expect:"a comma-separated list of host:port Sentinel addresses"`
	// RedisSentinelMaster is the master name the Sentinels watch.
	RedisSentinelMaster string `env:"REDIS_SENTINEL_MASTER" expect:"the Sentinel master name (set with REDIS_SENTINEL_ADDRS)"`
	// RedisSentinelPassword authenticates to the Sentinels themselves.
	RedisSentinelPassword string `env:"REDIS_SENTINEL_PASSWORD" expect:"the Sentinels' password" secret:"value"`
	// RedisClusterAddrs, when set, connects to a Redis Cluster through these
	// seed nodes (host:port, comma-separated); REDIS_URL then only gives the
	// credentials and TLS (its database must be 0).
	RedisClusterAddrs []string `env:"REDIS_CLUSTER_ADDRS" expect:"a comma-separated list of host:port cluster nodes"`
	// WorkerHTTPAddr is where cmd/worker serves /healthz, /readyz and
	// /metrics.
	WorkerHTTPAddr string `env:"WORKER_HTTP_ADDR" envDefault:"127.0.0.1:8081" expect:"host:port to listen on, such as :8081"`
	// WorkerStrictPriority makes the worker drain higher-priority queues
	// first (syncs, then reprocessing, then housekeeping); by default queues
	// are picked at random in proportion to their weights (6:3:1), so no
	// queue starves.
	WorkerStrictPriority bool `env:"WORKER_STRICT_PRIORITY" envDefault:"false" expect:"true or false"`
	// RawRetention is how long the raw bytes of fetched messages are kept;
	// housekeeping then empties them, keeping the message row and its events.
	// 0 keeps them forever.
	RawRetention time.Duration `env:"RAW_RETENTION" envDefault:"4320h" expect:"0 (keep forever) or a duration of at least 24h, such as 4320h (180 days)"`

	// Keyring is SECRET_KEYS and SECRET_ACTIVE_KEY_ID parsed; set by Load.
	Keyring *secret.Keyring `env:"-"`
}

// Load reads the configuration from the process environment.
func Load() (*Config, error) {
	return LoadFrom(environ())
}

// LoadFrom reads the configuration from vars (NAME -> value) instead of the
// process environment; tests use it. It returns one error listing every
// missing or wrong variable. A variable set to the empty string counts as
// unset and takes its default.
func LoadFrom(vars map[string]string) (*Config, error) {
	vars, errs := resolveFiles(vars)
	var c Config
	if err := env.ParseWithOptions(&c, env.Options{Environment: vars}); err != nil {
		errs = append(errs, explain(err)...)
	}
	if len(errs) == 0 {
		errs = c.validate()
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("config: %w", errors.Join(errs...))
	}
	return &c, nil
}

// UsesDevSecretKey reports whether SECRET_KEYS is the built-in development key.
func (c *Config) UsesDevSecretKey() bool { return c.SecretKeys == DevSecretKeys }

func environ() map[string]string {
	m := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// resolveFiles replaces NAME_FILE by the content of that file (without a final
// newline) for the secret variables.
func resolveFiles(vars map[string]string) (map[string]string, []error) {
	out := make(map[string]string, len(vars))
	for k, v := range vars {
		out[k] = v
	}
	var errs []error
	for _, f := range fields() {
		if f.secret == "" {
			continue
		}
		path, ok := vars[f.name+"_FILE"]
		if !ok || path == "" {
			continue
		}
		if v, set := vars[f.name]; set && v != "" {
			errs = append(errs, fmt.Errorf("%s and %s_FILE are both set: want only one", f.name, f.name))
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s_FILE=%s: want a readable file holding %s: %w", f.name, path, f.expect, err))
			continue
		}
		out[f.name] = strings.TrimRight(string(b), "\r\n")
	}
	return out, errs
}

// field describes one setting, from its struct tags.
type field struct {
	goName, name, expect, secret string
}

func fields() []field {
	t := reflect.TypeFor[Config]()
	var fs []field
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("env"), ",")
		if name == "" || name == "-" {
			continue
		}
		fs = append(fs, field{goName: sf.Name, name: name, expect: sf.Tag.Get("expect"), secret: sf.Tag.Get("secret")})
	}
	return fs
}

func fieldByGoName(goName string) (field, bool) {
	for _, f := range fields() {
		if f.goName == goName {
			return f, true
		}
	}
	return field{}, false
}

// explain turns env's parse errors (which name struct fields) into messages
// that name the variable and what it expects.
func explain(err error) []error {
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return []error{err}
	}
	var out []error
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			if f, ok := fieldByGoName(pe.Name); ok {
				out = append(out, fmt.Errorf("%s: want %s: %w", f.name, f.expect, pe.Err))
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// validate checks the values env could parse but not judge.
func (c *Config) validate() []error {
	var errs []error
	bad := func(name, value string) { errs = append(errs, badValue(name, value)) }
	if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		bad("DATABASE_URL", redactURL(c.DatabaseURL))
	}
	if c.DatabaseMaxConns < 1 || c.DatabaseMaxConns > 1000 {
		bad("DATABASE_MAX_CONNS", fmt.Sprint(c.DatabaseMaxConns))
	}
	if _, err := redis.ParseURL(c.RedisURL); err != nil {
		f := fieldByName("REDIS_URL")
		errs = append(errs, fmt.Errorf("REDIS_URL=%q: want %s: %w", redactURL(c.RedisURL), f.expect, err))
	}
	if _, port, err := net.SplitHostPort(c.APIAddr); err != nil || port == "" {
		bad("API_ADDR", c.APIAddr)
	}
	if c.APIRatePerSecond < 0 || math.IsInf(c.APIRatePerSecond, 0) || math.IsNaN(c.APIRatePerSecond) {
		bad("API_RATE_PER_SECOND", fmt.Sprint(c.APIRatePerSecond))
	}
	if c.APIRateBurst < 1 || c.APIRateBurst > 1_000_000 {
		bad("API_RATE_BURST", fmt.Sprint(c.APIRateBurst))
	}
	if c.LogLevel != slog.LevelDebug && c.LogLevel != slog.LevelInfo && c.LogLevel != slog.LevelWarn && c.LogLevel != slog.LevelError {
		bad("LOG_LEVEL", c.LogLevel.String())
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		bad("LOG_FORMAT", c.LogFormat)
	}
	if c.OperatorToken != "" && len(c.OperatorToken) < 16 {
		bad("OPERATOR_TOKEN", "(hidden)")
	}
	if c.SecretKeys == "" {
		bad("SECRET_KEYS", "")
	} else if keys, first, err := secret.ParseKeys(c.SecretKeys); err != nil {
		f := fieldByName("SECRET_KEYS")
		errs = append(errs, fmt.Errorf("SECRET_KEYS: want %s: %w", f.expect, err))
	} else {
		active := c.SecretActiveKeyID
		if active == "" {
			active = first
		}
		if _, ok := keys[active]; !ok {
			bad("SECRET_ACTIVE_KEY_ID", c.SecretActiveKeyID)
		} else if kr, err := secret.NewKeyring(keys, active); err != nil {
			f := fieldByName("SECRET_KEYS")
			errs = append(errs, fmt.Errorf("SECRET_KEYS: want %s: %w", f.expect, err))
		} else {
			c.Keyring = kr
		}
	}
	if c.WorkerConcurrency < 1 || c.WorkerConcurrency > 1000 {
		bad("WORKER_CONCURRENCY", fmt.Sprint(c.WorkerConcurrency))
	}
	if c.SyncInterval < 10*time.Second {
		bad("SYNC_INTERVAL", c.SyncInterval.String())
	}
	if c.IMAPTimeout < time.Second {
		bad("IMAP_TIMEOUT", c.IMAPTimeout.String())
	}
	if c.ShutdownTimeout < time.Second {
		bad("SHUTDOWN_TIMEOUT", c.ShutdownTimeout.String())
	}
	if !isHeaderName(c.MatchHeaderCampaign) {
		bad("MATCH_HEADER_CAMPAIGN", c.MatchHeaderCampaign)
	}
	if !isHeaderName(c.MatchHeaderLead) {
		bad("MATCH_HEADER_LEAD", c.MatchHeaderLead)
	}
	errs = append(errs, c.validateScale()...)
	return errs
}

// badValue is the error of variable name set to value: what it expects,
// from its expect tag.
func badValue(name, value string) error {
	return fmt.Errorf("%s=%q: want %s", name, value, fieldByName(name).expect)
}

// fieldByName returns the field of the variable name, one of the names in
// fields() (the zero field for any other).
func fieldByName(name string) field {
	for _, f := range fields() {
		if f.name == name {
			return f
		}
	}
	return field{}
}

// isHeaderName reports whether s is a usable header field name: RFC 5322
// section 3.6.8 allows any printable ASCII but ':'; we keep to letters,
// digits and '-', which every mail system passes through unchanged.
func isHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// redactURL hides the password of a URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// LogValue implements slog.LogValuer: every setting, with secrets masked, so
// start-up can log the configuration in effect.
func (c *Config) LogValue() slog.Value {
	v := reflect.ValueOf(c).Elem()
	var attrs []slog.Attr
	for _, f := range fields() {
		val := v.FieldByName(f.goName).Interface()
		if d, ok := val.(time.Duration); ok {
			val = d.String()
		}
		switch f.secret {
		case "url":
			val = redactURL(fmt.Sprint(val))
		case "value":
			if s := fmt.Sprint(val); s == "" {
				val = ""
			} else if f.name == "SECRET_KEYS" && c.Keyring != nil {
				val = "key ids " + strings.Join(c.Keyring.KeyIDs(), ",")
			} else {
				val = "(set)"
			}
		}
		attrs = append(attrs, slog.Any(f.name, val))
	}
	return slog.GroupValue(attrs...)
}
