package main

import (
	"context"
	"fmt"
	"io"
)

// runReprocess is a placeholder replaced by the package that owns "reprocess".
func runReprocess(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "rebound reprocess: not built yet")
	return 1
}
