package tasks

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/rebound-hq/rebound/internal/config"
)

func TestRedisConnOptModes(t *testing.T) {
	load := func(vars map[string]string) *config.Config {
		t.Helper()
		c, err := config.LoadFrom(vars)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	opt, err := RedisConnOpt(load(map[string]string{"REDIS_URL": "redis://:pw@h:6380/4"}))
	if o, ok := opt.(asynq.RedisClientOpt); err != nil || !ok || o.Addr != "h:6380" || o.Password != "pw" || o.DB != 4 {
		t.Errorf("single: %#v, %v", opt, err)
	}
	opt, err = RedisConnOpt(load(map[string]string{
		"REDIS_URL": "rediss://u:pw@ignored:6380/2", "REDIS_SENTINEL_ADDRS": "s1:26379,s2:26379",
		"REDIS_SENTINEL_MASTER": "m", "REDIS_SENTINEL_PASSWORD": "sp",
	}))
	if o, ok := opt.(asynq.RedisFailoverClientOpt); err != nil || !ok || o.MasterName != "m" || len(o.SentinelAddrs) != 2 ||
		o.SentinelPassword != "sp" || o.Username != "u" || o.Password != "pw" || o.DB != 2 || o.TLSConfig == nil {
		t.Errorf("sentinel: %#v, %v", opt, err)
	}
	opt, err = RedisConnOpt(load(map[string]string{"REDIS_URL": "redis://:pw@ignored:6379/0", "REDIS_CLUSTER_ADDRS": "n1:7000,n2:7001"}))
	if o, ok := opt.(asynq.RedisClusterClientOpt); err != nil || !ok || len(o.Addrs) != 2 || o.Password != "pw" || o.TLSConfig != nil {
		t.Errorf("cluster: %#v, %v", opt, err)
	}
}

// startRedis runs a private redis-server with args until the test ends and
// returns its address.
func startRedis(t *testing.T, conf string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed (scripts/services.sh up installs it)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	dir := t.TempDir()
	path := filepath.Join(dir, "redis.conf")
	conf = fmt.Sprintf("port %s\nbind 127.0.0.1\ndir %s\nsave \"\"\nappendonly no\n%s", port, dir, conf)
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{path}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s did not start", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return addr
}

// roundTrip enqueues a task through opt and reads it back with an
// inspector on the same connection; check (if not nil) runs while the task
// is queued.
func roundTrip(t *testing.T, opt asynq.RedisConnOpt, check func()) {
	t.Helper()
	c := asynq.NewClient(opt)
	defer c.Close()
	info, err := c.Enqueue(asynq.NewTask("test:ping", []byte("x")), asynq.Queue("redis-mode-test"))
	if err != nil {
		t.Fatal(err)
	}
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	got, err := insp.GetTaskInfo("redis-mode-test", info.ID)
	if err != nil || string(got.Payload) != "x" {
		t.Fatalf("task read back: %+v, %v", got, err)
	}
	if check != nil {
		check()
	}
	_ = insp.DeleteQueue("redis-mode-test", true)
	rc, err := RedisClient(opt)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if err := rc.Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestRedisSentinelReal finds a private Redis through a private Sentinel.
func TestRedisSentinelReal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server processes")
	}
	master := startRedis(t, "")
	host, port, _ := net.SplitHostPort(master)
	sentinel := startRedis(t, fmt.Sprintf("sentinel monitor rebound-test %s %s 1\n", host, port), "--sentinel")
	cfg, err := config.LoadFrom(map[string]string{
		"REDIS_URL": "redis://ignored:1/3", "REDIS_SENTINEL_ADDRS": sentinel, "REDIS_SENTINEL_MASTER": "rebound-test",
	})
	if err != nil {
		t.Fatal(err)
	}
	opt, err := RedisConnOpt(cfg)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, opt, func() {
		// The task landed on the master, in database 3.
		c := redis.NewClient(&redis.Options{Addr: master, DB: 3})
		defer c.Close()
		if keys, _ := c.Keys(context.Background(), "asynq:{redis-mode-test}:*").Result(); len(keys) == 0 {
			t.Error("no asynq keys of the queue on the master's database 3")
		}
	})
}

// TestRedisClusterReal runs asynq over a one-node Redis Cluster.
func TestRedisClusterReal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server process")
	}
	node := startRedis(t, "cluster-enabled yes\ncluster-config-file nodes.conf\n")
	c := redis.NewClient(&redis.Options{Addr: node})
	defer c.Close()
	ctx := context.Background()
	if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", 0, 16383).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		info, _ := c.ClusterInfo(ctx).Result()
		if strings.Contains(info, "cluster_state:ok") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster not ok: %s", info)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cfg, err := config.LoadFrom(map[string]string{"REDIS_CLUSTER_ADDRS": node})
	if err != nil {
		t.Fatal(err)
	}
	opt, err := RedisConnOpt(cfg)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, opt, nil)
}
