// Package metrics holds Rebound's Prometheus collectors: HTTP requests by
// route and status, mailbox syncs by outcome, bounce events recorded by kind
// and class, and asynq queue sizes. The API and the worker each serve the
// registry at /metrics with Handler.
//
// Other packages only call the small recording functions (SyncFinished,
// EventRecorded, ObserveRequest); they never touch the collectors directly,
// so label sets stay bounded and consistent.
package metrics

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Registry is the registry every Rebound collector is registered with. It
// also carries the Go runtime and process collectors.
var Registry = prometheus.NewRegistry()

var (
	httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "rebound",
		Subsystem: "http",
		Name:      "requests_total",
		Help:      "HTTP requests served, by route template, method and status code.",
	}, []string{"route", "method", "status"})

	httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "rebound",
		Subsystem: "http",
		Name:      "request_duration_seconds",
		Help:      "HTTP request latency in seconds, by route template, method and status code.",
		Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route", "method", "status"})

	syncs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "rebound",
		Subsystem: "mailbox",
		Name:      "syncs_total",
		Help:      "Mailbox sync runs finished, by outcome (see the Sync* constants).",
	}, []string{"outcome"})

	events = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "rebound",
		Subsystem: "tracking",
		Name:      "events_recorded_total",
		Help:      "Bounce events recorded (not counting duplicates), by kind and class (\"\" when the kind has no class).",
	}, []string{"kind", "class"})
)

// Outcomes of a mailbox sync, the values of the outcome label of
// rebound_mailbox_syncs_total.
const (
	SyncOK        = "ok"         // the sync ran to completion
	SyncAuthError = "auth_error" // the server refused the credentials
	SyncError     = "error"      // any other failure (network, protocol, storage)
	SyncSkipped   = "skipped"    // another sync of the same mailbox held the lock
)

func init() {
	Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		httpRequests, httpDuration, syncs, events,
	)
}

// Handler serves the registry in the Prometheus exposition format.
func Handler() http.Handler {
	return promhttp.HandlerFor(Registry, promhttp.HandlerOpts{Registry: Registry})
}

// ObserveRequest counts one HTTP request and records its latency. route is
// the route template ("/v1/bounces/{bounce_id}"), never the raw path, so the
// label set stays bounded; unmatched requests should pass "unmatched".
func ObserveRequest(route, method string, status int, elapsed time.Duration) {
	s := strconv.Itoa(status)
	httpRequests.WithLabelValues(route, method, s).Inc()
	httpDuration.WithLabelValues(route, method, s).Observe(elapsed.Seconds())
}

// SyncFinished counts one finished mailbox sync with the given outcome (one
// of the Sync* constants).
func SyncFinished(outcome string) {
	syncs.WithLabelValues(outcome).Inc()
}

// EventRecorded counts one newly recorded bounce event. kind is a dsn.Kind
// value ("bounce", "delayed", ...), class is "soft", "hard" or "".
func EventRecorded(kind, class string) {
	events.WithLabelValues(kind, class).Inc()
}

// QueueInspector is the part of *asynq.Inspector that QueueCollector uses.
type QueueInspector interface {
	Queues() ([]string, error)
	GetQueueInfo(queue string) (*asynq.QueueInfo, error)
}

// QueueCollector reports the size of every asynq queue, by state, each time
// Prometheus scrapes. Register it with WatchQueues.
type QueueCollector struct {
	mu        sync.Mutex
	inspector QueueInspector
	size      *prometheus.Desc
	up        *prometheus.Desc
}

// NewQueueCollector returns a collector that asks inspector at scrape time.
func NewQueueCollector(inspector QueueInspector) *QueueCollector {
	return &QueueCollector{
		inspector: inspector,
		size: prometheus.NewDesc("rebound_queue_tasks",
			"Tasks in an asynq queue, by queue and state (pending, active, scheduled, retry, archived, completed, aggregating).",
			[]string{"queue", "state"}, nil),
		up: prometheus.NewDesc("rebound_queue_inspector_up",
			"1 when the last scrape could read the queues from Redis, 0 otherwise.", nil, nil),
	}
}

func (c *QueueCollector) set(inspector QueueInspector) {
	c.mu.Lock()
	c.inspector = inspector
	c.mu.Unlock()
}

// Describe implements prometheus.Collector.
func (c *QueueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.size
	ch <- c.up
}

// Collect implements prometheus.Collector. A Redis failure reports
// rebound_queue_inspector_up 0 instead of failing the whole scrape.
func (c *QueueCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	inspector := c.inspector
	c.mu.Unlock()
	if inspector == nil {
		return
	}
	queues, err := inspector.Queues()
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	up := 1.0
	for _, q := range queues {
		info, err := inspector.GetQueueInfo(q)
		if err != nil {
			up = 0
			continue
		}
		for _, s := range []struct {
			state string
			n     int
		}{
			{"pending", info.Pending}, {"active", info.Active}, {"scheduled", info.Scheduled},
			{"retry", info.Retry}, {"archived", info.Archived}, {"completed", info.Completed},
			{"aggregating", info.Aggregating},
		} {
			ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(s.n), q, s.state)
		}
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, up)
}

var (
	queuesMu        sync.Mutex
	queuesCollector *QueueCollector
)

// WatchQueues makes Registry report the queues inspector sees. The first
// call registers a QueueCollector; later calls (a process that restarts its
// server, tests) point it at the new inspector. A nil inspector stops
// reporting queue sizes.
func WatchQueues(inspector QueueInspector) error {
	queuesMu.Lock()
	defer queuesMu.Unlock()
	if queuesCollector == nil {
		c := NewQueueCollector(inspector)
		if err := Registry.Register(c); err != nil {
			return fmt.Errorf("metrics: register queue collector: %w", err)
		}
		queuesCollector = c
		return nil
	}
	queuesCollector.set(inspector)
	return nil
}
