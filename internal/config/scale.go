package config

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisMode says how the processes reach Redis.
type RedisMode string

// Redis connection modes (see RedisMode).
const (
	RedisSingle   RedisMode = "single"   // one server, REDIS_URL
	RedisSentinel RedisMode = "sentinel" // master found through REDIS_SENTINEL_ADDRS
	RedisCluster  RedisMode = "cluster"  // Redis Cluster seeded by REDIS_CLUSTER_ADDRS
)

// RedisMode reports which Redis connection mode the settings select.
func (c *Config) RedisMode() RedisMode {
	switch {
	case len(c.RedisSentinelAddrs) > 0:
		return RedisSentinel
	case len(c.RedisClusterAddrs) > 0:
		return RedisCluster
	default:
		return RedisSingle
	}
}

// validateScale checks the settings of running past one machine: Redis
// Sentinel or Cluster, the worker's HTTP address and raw retention.
func (c *Config) validateScale() []error {
	var errs []error
	want := func(name, value string) { errs = append(errs, badValue(name, value)) }
	c.RedisSentinelAddrs = trimAll(c.RedisSentinelAddrs)
	c.RedisClusterAddrs = trimAll(c.RedisClusterAddrs)
	for _, list := range []struct {
		name  string
		addrs []string
	}{{"REDIS_SENTINEL_ADDRS", c.RedisSentinelAddrs}, {"REDIS_CLUSTER_ADDRS", c.RedisClusterAddrs}} {
		for _, a := range list.addrs {
			if host, port, err := net.SplitHostPort(a); err != nil || host == "" || port == "" {
				want(list.name, a)
			}
		}
	}
	if len(c.RedisSentinelAddrs) > 0 && len(c.RedisClusterAddrs) > 0 {
		errs = append(errs, fmt.Errorf("REDIS_SENTINEL_ADDRS and REDIS_CLUSTER_ADDRS are both set: want one of them"))
	}
	if len(c.RedisSentinelAddrs) > 0 && c.RedisSentinelMaster == "" {
		errs = append(errs, fmt.Errorf("REDIS_SENTINEL_MASTER is empty: want the master name when REDIS_SENTINEL_ADDRS is set"))
	}
	if len(c.RedisSentinelAddrs) == 0 && c.RedisSentinelMaster != "" {
		errs = append(errs, fmt.Errorf("REDIS_SENTINEL_MASTER=%q without REDIS_SENTINEL_ADDRS: want both or neither", c.RedisSentinelMaster))
	}
	if len(c.RedisClusterAddrs) > 0 {
		if o, err := redis.ParseURL(c.RedisURL); err == nil && o.DB != 0 {
			errs = append(errs, fmt.Errorf("REDIS_URL selects database %d: Redis Cluster has database 0 only", o.DB))
		}
	}
	if _, port, err := net.SplitHostPort(c.WorkerHTTPAddr); err != nil || port == "" {
		want("WORKER_HTTP_ADDR", c.WorkerHTTPAddr)
	}
	if c.RawRetention != 0 && c.RawRetention < 24*time.Hour {
		want("RAW_RETENTION", c.RawRetention.String())
	}
	return errs
}

// trimAll drops blanks around and empty entries of a comma-separated list.
func trimAll(list []string) []string {
	var out []string
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
