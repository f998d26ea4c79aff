package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rebound-hq/rebound/internal/dsn/dsntest"
)

// runCorpus scores the decoder and classifier on a bounce corpus
// (../shared/corpus/README.md): it prints the four shares, the status share
// over files with a delivery-status part, then the failing rows grouped by
// the MTA family of their file.
func runCorpus(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	dir := filepath.Join("..", "shared", "corpus")
	quiet := false
	for _, a := range args {
		switch a {
		case "-q", "--quiet":
			quiet = true
		default:
			dir = a
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "expected.jsonl")); err != nil {
		fmt.Fprintf(stderr, "rebound corpus: no corpus at %s: %v\n", dir, err)
		return 1
	}
	rep, err := dsntest.Run(dir)
	if err != nil {
		fmt.Fprintf(stderr, "rebound corpus: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "corpus %s: %d rows\n", dir, rep.Rows)
	fmt.Fprintf(stdout, "  status           %6.2f%%  (%d)\n", 100*rep.Share(rep.Status), rep.Status)
	fmt.Fprintf(stdout, "  reason           %6.2f%%  (%d)\n", 100*rep.Share(rep.Reason), rep.Reason)
	fmt.Fprintf(stdout, "  address_invalid  %6.2f%%  (%d)\n", 100*rep.Share(rep.AddressInvalid), rep.AddressInvalid)
	fmt.Fprintf(stdout, "  recipient        %6.2f%%  (%d)\n", 100*rep.Share(rep.Recipient), rep.Recipient)
	fmt.Fprintf(stdout, "  status (files with a delivery-status part) %6.2f%%  (%d of %d)\n", 100*rep.DSShare(), rep.DSStatus, rep.DSRows)
	if quiet {
		return 0
	}
	names, groups := rep.ByFamily()
	if len(names) > 0 {
		fmt.Fprintf(stdout, "\nfailures by MTA family (%d):\n", len(rep.Failures))
	}
	for _, fam := range names {
		fmt.Fprintf(stdout, "%s (%d)\n", fam, len(groups[fam]))
		for _, f := range groups[fam] {
			fmt.Fprintf(stdout, "  %-28s #%d %-15s want %-14s got %s\n", f.File, f.Index, f.Field, f.Want, f.Got)
		}
	}
	return 0
}
