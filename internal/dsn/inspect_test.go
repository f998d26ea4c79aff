package dsn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspect prints the results of the files named by DSN_INSPECT (a
// comma-separated list of paths or globs); it is a debugging aid and skips
// without that variable.
func TestInspect(t *testing.T) {
	spec := os.Getenv("DSN_INSPECT")
	if spec == "" {
		t.Skip("set DSN_INSPECT=path[,glob...] to print decoded results")
	}
	for _, g := range strings.Split(spec, ",") {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Decode(raw)
			t.Logf("== %s err=%v", filepath.Base(f), err)
			for i, r := range res {
				t.Logf("  #%d %s fmt=%s rcpt=%q st=%q rc=%q act=%q cmd=%q hint=%q mta=%q prov=%s\n      diag=%.300q\n      orig=%q", i+1, r.Kind, r.Format, r.Recipient, r.Status, r.ReplyCode, r.Action, r.Command, r.Hint, r.RemoteMTA, r.Provider, r.Diagnostic, r.Original.MessageID)
			}
		}
	}
}
