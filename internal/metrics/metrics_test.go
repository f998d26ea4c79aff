package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRecordersShowInHandler(t *testing.T) {
	ObserveRequest("/v1/bounces/{bounce_id}", "GET", 404, 3*time.Millisecond)
	SyncFinished(SyncAuthError)
	EventRecorded("bounce", "hard")

	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`rebound_http_requests_total{method="GET",route="/v1/bounces/{bounce_id}",status="404"} 1`,
		`rebound_http_request_duration_seconds_bucket{method="GET",route="/v1/bounces/{bounce_id}",status="404",le="0.005"} 1`,
		`rebound_mailbox_syncs_total{outcome="auth_error"} 1`,
		`rebound_tracking_events_recorded_total{class="hard",kind="bounce"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
