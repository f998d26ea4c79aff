package demo

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis databases the demo may claim. asynq has no key prefix, so two demo
// runs (or a demo and a test) sharing a database would take each other's
// tasks; each run claims a database of its own from this range.
const (
	firstDemoRedisDB = 8
	lastDemoRedisDB  = 15
	redisLockKey     = "rebound:demo:lock"
	redisLockTTL     = time.Minute
)

// redisClaim is a Redis database held by this demo run.
type redisClaim struct {
	URL   string // the REDIS_URL with the claimed database
	DB    int
	rdb   *redis.Client
	token string
	stop  chan struct{}
	done  chan struct{}
}

// claimRedisDB takes the first database of firstDemoRedisDB..lastDemoRedisDB
// on the server of baseURL that no other demo holds (a lock key with a TTL,
// renewed while the demo runs), and deletes the asynq keys a previous run
// left there, so no stale task or uniqueness lock survives.
func claimRedisDB(ctx context.Context, baseURL string) (*redisClaim, error) {
	opts, err := redis.ParseURL(baseURL)
	if err != nil {
		return nil, fmt.Errorf("demo: REDIS_URL: %w", err)
	}
	host, _ := os.Hostname()
	token := fmt.Sprintf("%s:%d:%d", host, os.Getpid(), time.Now().UnixNano())
	for db := firstDemoRedisDB; db <= lastDemoRedisDB; db++ {
		o := *opts
		o.DB = db
		rdb := redis.NewClient(&o)
		ok, err := rdb.SetNX(ctx, redisLockKey, token, redisLockTTL).Result()
		if err != nil {
			rdb.Close()
			return nil, fmt.Errorf("demo: redis at %s: %w", opts.Addr, err)
		}
		if !ok {
			rdb.Close()
			continue
		}
		c := &redisClaim{URL: withRedisDB(baseURL, db), DB: db, rdb: rdb, token: token,
			stop: make(chan struct{}), done: make(chan struct{})}
		go c.renew()
		if err := c.clearAsynq(ctx); err != nil {
			c.Release()
			return nil, err
		}
		return c, nil
	}
	return nil, fmt.Errorf("demo: every Redis database from %d to %d is held by another demo run (key %s)",
		firstDemoRedisDB, lastDemoRedisDB, redisLockKey)
}

func (c *redisClaim) clearAsynq(ctx context.Context) error {
	iter := c.rdb.Scan(ctx, 0, "asynq:*", 500).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return fmt.Errorf("demo: redis db %d: scan: %w", c.DB, err)
	}
	for len(keys) > 0 {
		n := min(len(keys), 500)
		if err := c.rdb.Del(ctx, keys[:n]...).Err(); err != nil {
			return fmt.Errorf("demo: redis db %d: clear asynq keys: %w", c.DB, err)
		}
		keys = keys[n:]
	}
	return nil
}

func (c *redisClaim) renew() {
	defer close(c.done)
	t := time.NewTicker(redisLockTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			c.rdb.Expire(ctx, redisLockKey, redisLockTTL)
			cancel()
		}
	}
}

// Release gives the database back (when this run still holds it).
func (c *redisClaim) Release() {
	select {
	case <-c.stop:
		return
	default:
	}
	close(c.stop)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// On an error the lock expires by itself within redisLockTTL.
	if v, err := c.rdb.Get(ctx, redisLockKey).Result(); err == nil && v == c.token {
		c.rdb.Del(ctx, redisLockKey)
	}
	c.rdb.Close()
}

// withRedisDB returns the redis:// URL u with its database set to db.
func withRedisDB(u string, db int) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	p.Path = "/" + strconv.Itoa(db)
	q := p.Query()
	q.Del("db")
	p.RawQuery = q.Encode()
	return p.String()
}
