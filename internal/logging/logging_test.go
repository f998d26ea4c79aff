package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestNewFormats(t *testing.T) {
	var b bytes.Buffer
	l, err := New(&b, slog.LevelInfo, "json")
	if err != nil {
		t.Fatal(err)
	}
	l.Debug("hidden")
	l.Info("shown", "k", 1)
	var line map[string]any
	if err := json.Unmarshal(b.Bytes(), &line); err != nil {
		t.Fatalf("not one JSON line: %q: %v", b.String(), err)
	}
	if line["msg"] != "shown" || line["k"] != float64(1) {
		t.Errorf("line = %v", line)
	}

	b.Reset()
	l, err = New(&b, slog.LevelDebug, "text")
	if err != nil {
		t.Fatal(err)
	}
	l.Debug("dbg")
	if !strings.Contains(b.String(), "msg=dbg") {
		t.Errorf("text output = %q", b.String())
	}
	if _, err := New(&b, slog.LevelInfo, "xml"); err == nil {
		t.Error("New accepted format xml")
	}
}

func TestContext(t *testing.T) {
	if FromContext(context.Background()) != slog.Default() {
		t.Error("empty context did not give slog.Default()")
	}
	var b bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&b, nil)).With("request_id", "r1")
	FromContext(WithContext(context.Background(), l)).Info("x")
	if !strings.Contains(b.String(), `"request_id":"r1"`) {
		t.Errorf("logger from context lost its attributes: %q", b.String())
	}
	fallback := slog.New(slog.NewJSONHandler(&b, nil))
	if FromContextOr(context.Background(), fallback) != fallback {
		t.Error("empty context did not give the fallback")
	}
	if FromContextOr(WithContext(context.Background(), l), fallback) != l {
		t.Error("FromContextOr ignored the context's logger")
	}
}
