package api_test

import (
	"strconv"

	"github.com/rebound-hq/rebound/internal/api"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func apiRateLimit(perSecond float64, burst int) api.RateLimit {
	return api.RateLimit{PerSecond: perSecond, Burst: burst}
}
