package dsn

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPureCore checks that the pure core (dsn, classify, codes) imports no
// database, network, HTTP or queue package (design.md; style.md §1).
func TestPureCore(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not in PATH")
	}
	pkgs := []string{
		"github.com/rebound-hq/rebound/internal/dsn",
		"github.com/rebound-hq/rebound/internal/classify",
		"github.com/rebound-hq/rebound/internal/codes",
	}
	forbidden := []string{"gorm.io/", "github.com/labstack/echo", "github.com/hibiken/asynq",
		"github.com/emersion/go-imap", "net/http", "database/sql", "github.com/redis/", "github.com/jackc/pgx"}
	for _, p := range pkgs {
		out, err := exec.Command("go", "list", "-deps", p).CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "cannot find package") || strings.Contains(string(out), "no Go files") || strings.Contains(string(out), "is not in std") {
				t.Logf("%s not built yet: %s", p, out)
				continue
			}
			t.Fatalf("go list -deps %s: %v\n%s", p, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if dep == strings.TrimSuffix(f, "/") || strings.HasPrefix(dep, f) {
					t.Errorf("%s depends on %s", p, dep)
				}
			}
		}
	}
}
