package config

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestScaleDefaults(t *testing.T) {
	c, err := LoadFrom(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if c.RedisMode() != RedisSingle || c.WorkerHTTPAddr != "127.0.0.1:8081" || c.WorkerStrictPriority ||
		c.RawRetention != 180*24*time.Hour {
		t.Errorf("defaults: mode %s, http %q, strict %v, retention %v", c.RedisMode(), c.WorkerHTTPAddr,
			c.WorkerStrictPriority, c.RawRetention)
	}
}

func TestRedisSentinelAndCluster(t *testing.T) {
	c, err := LoadFrom(map[string]string{
		"REDIS_URL":                    "redis://:pw@ignored:6379/3",
		"REDIS_SENTINEL_ADDRS":         " s1:26379, s2:26379 ,,s3:26379",
		"REDIS_SENTINEL_MASTER":        "mymaster",
		"REDIS_SENTINEL_PASSWORD":      "sentinel-secret",
		"WORKER_HTTP_ADDR":             ":9100",
		"WORKER_STRICT_PRIORITY":       "true",
		"RAW_RETENTION":                "0",
		"WORKER_CONCURRENCY":           "25",
		"REDIS_SENTINEL_PASSWORD_FILE": "",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.RedisMode() != RedisSentinel || !slices.Equal(c.RedisSentinelAddrs, []string{"s1:26379", "s2:26379", "s3:26379"}) ||
		c.RedisSentinelMaster != "mymaster" || c.WorkerHTTPAddr != ":9100" || !c.WorkerStrictPriority ||
		c.RawRetention != 0 || c.WorkerConcurrency != 25 {
		t.Errorf("sentinel settings not taken: %+v", c)
	}
	if s := logged(t, c); strings.Contains(s, "sentinel-secret") || !strings.Contains(s, "REDIS_SENTINEL_ADDRS") {
		t.Errorf("logged configuration shows the Sentinel password or lacks the addresses: %s", s)
	}

	c, err = LoadFrom(map[string]string{
		"REDIS_URL":           "rediss://user:pw@ignored:6380/0",
		"REDIS_CLUSTER_ADDRS": "n1:7000,n2:7000",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.RedisMode() != RedisCluster || !slices.Equal(c.RedisClusterAddrs, []string{"n1:7000", "n2:7000"}) {
		t.Errorf("cluster settings not taken: %+v", c)
	}
}

func TestScaleErrors(t *testing.T) {
	cases := []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"REDIS_SENTINEL_ADDRS": "s1:26379"}, "REDIS_SENTINEL_MASTER is empty"},
		{map[string]string{"REDIS_SENTINEL_MASTER": "m"}, "without REDIS_SENTINEL_ADDRS"},
		{map[string]string{"REDIS_SENTINEL_ADDRS": "s1", "REDIS_SENTINEL_MASTER": "m"}, `REDIS_SENTINEL_ADDRS="s1"`},
		{map[string]string{"REDIS_CLUSTER_ADDRS": "n1:7000,:7001"}, `REDIS_CLUSTER_ADDRS=":7001"`},
		{map[string]string{"REDIS_CLUSTER_ADDRS": "n1:7000", "REDIS_SENTINEL_ADDRS": "s:1", "REDIS_SENTINEL_MASTER": "m"}, "both set"},
		{map[string]string{"REDIS_CLUSTER_ADDRS": "n1:7000", "REDIS_URL": "redis://h:1/2"}, "database 2"},
		{map[string]string{"WORKER_HTTP_ADDR": "8081"}, "WORKER_HTTP_ADDR"},
		{map[string]string{"RAW_RETENTION": "1h"}, "RAW_RETENTION"},
		{map[string]string{"RAW_RETENTION": "-48h"}, "RAW_RETENTION"},
		{map[string]string{"RAW_RETENTION": "180d"}, "RAW_RETENTION"},
		{map[string]string{"WORKER_STRICT_PRIORITY": "maybe"}, "WORKER_STRICT_PRIORITY"},
		{map[string]string{"WORKER_CONCURRENCY": "0"}, "WORKER_CONCURRENCY"},
	}
	for _, tc := range cases {
		_, err := LoadFrom(tc.vars)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadFrom(%v) = %v; want an error mentioning %q", tc.vars, err, tc.want)
		}
	}
}

// logged renders c as the binaries log it at start-up.
func logged(t *testing.T, c *Config) string {
	t.Helper()
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("config", "config", c)
	return b.String()
}
