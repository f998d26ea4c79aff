package main

import (
	"context"
	"fmt"
	"io"
)

// runExplain is a placeholder replaced by the package that owns "explain".
func runExplain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "rebound explain: not built yet")
	return 1
}
