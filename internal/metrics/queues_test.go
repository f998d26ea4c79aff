package metrics

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/rebound-hq/rebound/internal/dbtest"
)

// TestWatchQueuesOnRedis enqueues a task on a queue of its own in the test
// Redis and reads its size back from /metrics.
func TestWatchQueuesOnRedis(t *testing.T) {
	raw := dbtest.RedisURL(t)
	opt, err := asynq.ParseRedisURI(raw)
	if err != nil {
		t.Fatal(err)
	}
	client := asynq.NewClient(opt)
	defer client.Close()
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	queue := fmt.Sprintf("metrics-test-%d", time.Now().UnixNano())
	t.Cleanup(func() { _ = insp.DeleteQueue(queue, true) })
	if _, err := client.Enqueue(asynq.NewTask("metrics:test", nil), asynq.Queue(queue), asynq.ProcessIn(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Enqueue(asynq.NewTask("metrics:test", nil), asynq.Queue(queue)); err != nil {
		t.Fatal(err)
	}
	if err := WatchQueues(insp); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = WatchQueues(nil) }()

	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		fmt.Sprintf(`rebound_queue_tasks{queue=%q,state="pending"} 1`, queue),
		fmt.Sprintf(`rebound_queue_tasks{queue=%q,state="scheduled"} 1`, queue),
		"rebound_queue_inspector_up 1",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	// A second call re-points the collector instead of failing.
	if err := WatchQueues(insp); err != nil {
		t.Fatalf("second WatchQueues: %v", err)
	}
}
