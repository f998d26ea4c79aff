package tasks

import (
	"fmt"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/rebound-hq/rebound/internal/config"
)

// RedisConnOpt returns the asynq connection the settings select (see
// config.Config.RedisMode):
//
//   - single: REDIS_URL (redis:// or rediss://);
//   - sentinel: asynq.RedisFailoverClientOpt over REDIS_SENTINEL_ADDRS and
//     REDIS_SENTINEL_MASTER, with REDIS_SENTINEL_PASSWORD for the Sentinels
//     and REDIS_URL's user, password, database and TLS for the master;
//   - cluster: asynq.RedisClusterClientOpt over REDIS_CLUSTER_ADDRS, with
//     REDIS_URL's user, password and TLS. asynq keeps each queue's keys in
//     one hash slot ({queue} hash tags), so queues spread over the shards.
//
// The API and the worker must use the same connection, so both call it.
func RedisConnOpt(cfg *config.Config) (asynq.RedisConnOpt, error) {
	mode := cfg.RedisMode()
	if mode == config.RedisSingle {
		opt, err := asynq.ParseRedisURI(cfg.RedisURL)
		if err != nil {
			return nil, fmt.Errorf("tasks: REDIS_URL: %w", err)
		}
		return opt, nil
	}
	u, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("tasks: REDIS_URL: %w", err)
	}
	if mode == config.RedisSentinel {
		return asynq.RedisFailoverClientOpt{
			MasterName:       cfg.RedisSentinelMaster,
			SentinelAddrs:    cfg.RedisSentinelAddrs,
			SentinelPassword: cfg.RedisSentinelPassword,
			Username:         u.Username,
			Password:         u.Password,
			DB:               u.DB,
			TLSConfig:        u.TLSConfig,
		}, nil
	}
	return asynq.RedisClusterClientOpt{
		Addrs:     cfg.RedisClusterAddrs,
		Username:  u.Username,
		Password:  u.Password,
		TLSConfig: u.TLSConfig,
	}, nil
}

// RedisClient returns a go-redis client on the Redis of opt (single server,
// the Sentinels' current master, or the cluster), for checks outside asynq
// such as the readiness probe. The caller closes it.
func RedisClient(opt asynq.RedisConnOpt) (redis.UniversalClient, error) {
	c, ok := opt.MakeRedisClient().(redis.UniversalClient)
	if !ok {
		return nil, fmt.Errorf("tasks: unexpected Redis client type %T", c)
	}
	return c, nil
}
