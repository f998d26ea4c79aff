package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/logging"
	"github.com/rebound-hq/rebound/migrations"
)

// readyTimeout bounds each dependency check of /readyz.
const readyTimeout = 2 * time.Second

// ReadyCheck is one dependency /readyz probes. Ping returns nil when the
// dependency can serve; its error is logged, never sent to the caller.
type ReadyCheck struct {
	Name string // shown to the caller: "PostgreSQL", "Redis"
	Ping func(context.Context) error
}

// errSchemaOutdated marks a reachable database whose schema is behind.
var errSchemaOutdated = errors.New("schema outdated")

// PostgresCheck reports PostgreSQL ready when it answers a ping and its
// schema is at least the newest embedded migration.
func PostgresCheck(db *gorm.DB) ReadyCheck {
	return ReadyCheck{Name: "PostgreSQL", Ping: func(ctx context.Context) error {
		sqlDB, err := db.DB()
		if err != nil {
			return err
		}
		if err := sqlDB.PingContext(ctx); err != nil {
			return err
		}
		if err := migrations.Check(ctx, sqlDB); err != nil {
			if errors.Is(err, migrations.ErrOutdated) {
				return fmt.Errorf("%w: %w", errSchemaOutdated, err)
			}
			return err
		}
		return nil
	}}
}

// RedisCheck reports Redis ready when it answers PING.
func RedisCheck(rdb redis.UniversalClient) ReadyCheck {
	return ReadyCheck{Name: "Redis", Ping: func(ctx context.Context) error {
		return rdb.Ping(ctx).Err()
	}}
}

// healthResponse is the body of /healthz and /readyz (schema Health of
// openapi.yaml). Checks maps each dependency to "ok", "unreachable" or
// "schema outdated".
type healthResponse struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks,omitempty"`
}

// healthz answers 200 while the process can serve HTTP at all (liveness).
func healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, healthResponse{Status: "alive"})
}

// readyz answers 200 when every check passes within readyTimeout, and
// otherwise 503 with a status naming each failing dependency (readiness: the
// orchestrator stops routing traffic here meanwhile). Checks run in parallel.
func readyz(checks []ReadyCheck) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		errs := make([]error, len(checks))
		var wg sync.WaitGroup
		for i, chk := range checks {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(ctx, readyTimeout)
				defer cancel()
				errs[i] = chk.Ping(ctx)
			})
		}
		wg.Wait()
		res := healthResponse{Status: "ready", Checks: map[string]string{}}
		var failed []string
		for i, chk := range checks {
			switch {
			case errs[i] == nil:
				res.Checks[chk.Name] = "ok"
				continue
			case errors.Is(errs[i], errSchemaOutdated):
				res.Checks[chk.Name] = "schema outdated"
			default:
				res.Checks[chk.Name] = "unreachable"
			}
			failed = append(failed, chk.Name+" "+res.Checks[chk.Name])
			logging.FromContext(ctx).Warn("api: not ready", "dependency", chk.Name, "err", errs[i])
		}
		if len(failed) > 0 {
			res.Status = "not ready: " + strings.Join(failed, "; ")
			return c.JSON(http.StatusServiceUnavailable, res)
		}
		return c.JSON(http.StatusOK, res)
	}
}
