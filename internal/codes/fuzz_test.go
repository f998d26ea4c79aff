package codes

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzExplain checks that no input panics, that a match always has an
// entry, and that parsed codes are well formed.
func FuzzExplain(f *testing.F) {
	for _, s := range []string{
		"451 4.3.0 Email server has temporarily rejected this message.",
		"550-5.1.1 a\n550-5.1.1 b\n550 5.1.1 c",
		"4.7.500-699", "5.", "451-", "  ", "550 5.7.999", "\n\n421", "1.2.3.4.5",
	} {
		f.Add(s, "")
		f.Add(s, "google")
	}
	f.Fuzz(func(t *testing.T, text, provider string) {
		m, ok := Explain(text, provider)
		if ok && m.Entry == nil {
			t.Fatal("ok without entry")
		}
		if c := m.Parsed.EnhancedCode; c != "" {
			if _, _, _, ok := splitStatus(c); !ok {
				t.Fatalf("parsed enhanced code %q malformed", c)
			}
		}
		if e, ok := ForResult(m.Parsed.EnhancedCode, m.Parsed.ReplyCode, text, provider); ok && e == nil {
			t.Fatal("ForResult ok without entry")
		}
	})
}

// TestPureCore checks that the package imports only the standard library
// (design.md: internal/codes is part of the pure core).
func TestPureCore(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if first := strings.SplitN(p, "/", 2)[0]; strings.Contains(first, ".") {
				t.Errorf("%s imports %s; the pure core may import only the standard library", name, p)
			}
		}
	}
}
