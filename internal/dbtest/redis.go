package dbtest

import (
	"os"
	"testing"
)

// EnvRedisURL and EnvFallbackRedisURL name the variables that locate the
// test Redis (scripts/services.sh, started by `make test`).
const (
	EnvRedisURL         = "REBOUND_TEST_REDIS_URL"
	EnvFallbackRedisURL = "REDIS_URL"
)

// RedisURL returns the URL of the test Redis: REBOUND_TEST_REDIS_URL, or
// REDIS_URL when that is unset. Without either the test fails, unless
// `go test -short` is used, where it is skipped. Tests sharing this Redis
// keep to queues or keys of their own.
func RedisURL(tb testing.TB) string {
	tb.Helper()
	for _, v := range []string{EnvRedisURL, EnvFallbackRedisURL} {
		if u := os.Getenv(v); u != "" {
			return u
		}
	}
	if testing.Short() {
		tb.Skip("REBOUND_TEST_REDIS_URL not set; skipped in -short mode")
	}
	tb.Fatal("neither REBOUND_TEST_REDIS_URL nor REDIS_URL is set: run make test (starts Redis)")
	return ""
}
