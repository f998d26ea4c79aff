package api

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/metrics"
	"github.com/rebound-hq/rebound/internal/store"
)

// dbCollector reports figures every API replica can read from PostgreSQL,
// whichever worker process produced them: recorded events by kind and
// class (from the report counters) and mailboxes by sync status. The
// worker's own counters (rebound_mailbox_syncs_total,
// rebound_tracking_events_recorded_total) are per process and only on the
// worker's /metrics.
type dbCollector struct {
	mu      sync.Mutex
	db      *gorm.DB
	timeout time.Duration
	events  *prometheus.Desc
	boxes   *prometheus.Desc
	up      *prometheus.Desc
}

var (
	dbMetricsOnce sync.Once
	dbMetrics     = newDBCollector()
)

// watchDatabase makes /metrics report db's figures. The collector is
// registered with metrics.Registry once per process; a later call (a
// server built again, tests) points it at the new handle.
func watchDatabase(db *gorm.DB) {
	dbMetricsOnce.Do(func() { metrics.Registry.MustRegister(dbMetrics) })
	dbMetrics.mu.Lock()
	dbMetrics.db = db
	dbMetrics.mu.Unlock()
}

func newDBCollector() *dbCollector {
	return &dbCollector{
		timeout: 2 * time.Second,
		events: prometheus.NewDesc("rebound_recorded_events",
			"Bounce events recorded in all workspaces, by kind and class (class \"\" for kinds other than bounce), from the report counters.",
			[]string{"kind", "class"}, nil),
		boxes: prometheus.NewDesc("rebound_mailboxes",
			"Connected mailboxes by sync status (active, paused, auth_error, error).", []string{"status"}, nil),
		up: prometheus.NewDesc("rebound_metrics_database_up",
			"1 when the last scrape could read the database figures, 0 otherwise.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.events
	ch <- c.boxes
	ch <- c.up
}

// Collect implements prometheus.Collector; a database failure reports
// rebound_metrics_database_up 0 instead of failing the scrape.
func (c *dbCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	db := c.db
	c.mu.Unlock()
	if db == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	t, err := store.SumEventTotals(ctx, db)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	boxes, err := store.MailboxStatusCounts(ctx, db)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	for _, e := range []struct {
		kind, class string
		n           int64
	}{
		{"bounce", "hard", t.Hard}, {"bounce", "soft", t.Soft}, {"delayed", "", t.Delayed},
		{"auto_reply", "", t.AutoReplies}, {"complaint", "", t.Complaints}, {"delivered", "", t.Delivered},
	} {
		ch <- prometheus.MustNewConstMetric(c.events, prometheus.GaugeValue, float64(e.n), e.kind, e.class)
	}
	for _, s := range []string{store.MailboxActive, store.MailboxPaused, store.MailboxAuthError, store.MailboxError} {
		ch <- prometheus.MustNewConstMetric(c.boxes, prometheus.GaugeValue, float64(boxes[s]), s)
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1)
}
