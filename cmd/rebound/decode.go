package main

import (
	"context"
	"fmt"
	"io"
)

// runDecode is a placeholder replaced by the package that owns "decode".
func runDecode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "rebound decode: not built yet")
	return 1
}
