package main

import (
	"context"
	"fmt"
	"io"
)

// runMigrate is a placeholder replaced by the package that owns "migrate".
func runMigrate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "rebound migrate: not built yet")
	return 1
}
