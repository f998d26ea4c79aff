// Package logging builds Rebound's structured loggers (log/slog) and carries a
// request- or task-scoped logger in a context.Context.
//
// The API's request middleware stores a logger that carries the request ID;
// code below it (handlers, store) logs through FromContext, so every line of
// one request can be found by that ID.
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
)

// New returns a logger writing to w at the given minimum level, as JSON lines
// (format "json") or slog's key=value text (format "text").
func New(w io.Writer, level slog.Level, format string) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	default:
		return nil, fmt.Errorf("logging: unknown format %q, want json or text", format)
	}
}

type ctxKey struct{}

// WithContext returns a copy of ctx that carries l.
func WithContext(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// FromContext returns the logger stored by WithContext, or slog.Default()
// when ctx carries none.
func FromContext(ctx context.Context) *slog.Logger {
	return FromContextOr(ctx, slog.Default())
}

// FromContextOr returns the logger stored by WithContext, or fallback when
// ctx carries none.
func FromContextOr(ctx context.Context, fallback *slog.Logger) *slog.Logger {
	if ctx != nil {
		if l, ok := ctx.Value(ctxKey{}).(*slog.Logger); ok && l != nil {
			return l
		}
	}
	return fallback
}
