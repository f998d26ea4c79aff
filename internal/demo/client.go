package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// apiClient makes real HTTP calls to the API process the demo started.
type apiClient struct {
	base string // http://127.0.0.1:PORT
	http *http.Client
}

func newAPIClient(base string) *apiClient {
	return &apiClient{base: base, http: &http.Client{Timeout: 60 * time.Second}}
}

// APIError is a response with an unexpected status. Detail is the
// problem+json detail (or the start of the body).
type APIError struct {
	Method, Path string
	Status       int
	Detail       string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("demo: %s %s: %d %s: %s", e.Method, e.Path, e.Status, http.StatusText(e.Status), e.Detail)
}

// call sends body (JSON-encoded unless nil) with the bearer token and
// returns the response body when the status is want; any other status is an
// *APIError.
func (c *apiClient) call(ctx context.Context, method, path, token string, body any, want int) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("demo: %s %s: encode body: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, fmt.Errorf("demo: %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("demo: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("demo: %s %s: read response: %w", method, path, err)
	}
	if resp.StatusCode != want {
		return nil, &APIError{Method: method, Path: path, Status: resp.StatusCode, Detail: problemDetail(out)}
	}
	return out, nil
}

// callJSON is call followed by decoding the response into out.
func (c *apiClient) callJSON(ctx context.Context, method, path, token string, body any, want int, out any) ([]byte, error) {
	raw, err := c.call(ctx, method, path, token, body, want)
	if err != nil {
		return nil, err
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, fmt.Errorf("demo: %s %s: decode response: %w", method, path, err)
		}
	}
	return raw, nil
}

// problemDetail extracts an RFC 9457 problem's title and detail, or returns
// the start of the body.
func problemDetail(body []byte) string {
	var p struct {
		Title  string `json:"title"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &p) == nil && (p.Title != "" || p.Detail != "") {
		return strings.TrimSpace(p.Title + ": " + p.Detail)
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
