package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/migrations"
)

func TestMigrateCommand(t *testing.T) {
	t.Setenv("DATABASE_URL", dbtest.NewEmptyURL(t))
	latest, err := migrations.Latest()
	if err != nil {
		t.Fatal(err)
	}
	migrate := func(args ...string) (string, int) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"migrate"}, args...), nil, &out, &errOut)
		return out.String() + errOut.String(), code
	}
	steps := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"status"}, 0, "pending"},
		{[]string{"up"}, 0, "schema version " + strconv.FormatInt(latest, 10)},
		{[]string{"up"}, 0, "nothing to do"},
		{[]string{"status"}, 0, "applied"},
		{[]string{"down"}, 0, "down "},
		{[]string{"reset"}, 0, "schema version 0"},
		{[]string{"down"}, 0, "nothing to roll back"},
		{[]string{"version"}, 0, "0\n"},
		{[]string{"up"}, 0, "up "},
		{[]string{"down-to", "x"}, 2, "down-to wants a version"},
		{[]string{"sideways"}, 2, "usage: rebound migrate"},
		{nil, 2, "usage: rebound migrate"},
	}
	for _, s := range steps {
		out, code := migrate(s.args...)
		if code != s.code || !strings.Contains(out, s.want) {
			t.Fatalf("migrate %v = %d, %q; want %d and %q", s.args, code, out, s.code, s.want)
		}
	}
}

func TestMigrateReportsBadConfig(t *testing.T) {
	t.Setenv("DATABASE_URL", "mysql://nope")
	var out bytes.Buffer
	if code := run(context.Background(), []string{"migrate", "up"}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), "DATABASE_URL") {
		t.Errorf("migrate up with a bad DATABASE_URL = %d, %q", code, out.String())
	}
}
