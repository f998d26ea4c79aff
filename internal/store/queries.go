package store

import (
	"bufio"
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"gorm.io/gorm"
)

// queryFS holds the named SQL of queries/*.sql. Each query starts with a
// line "-- name: NAME" and runs to the next such line; it uses PostgreSQL's
// $1, $2 ... placeholders and runs as written (GORM does not rewrite it).
//
//go:embed queries/*.sql
var queryFS embed.FS

// queries maps query names to SQL, loaded once at package initialisation so
// a malformed or duplicated file stops every binary at start-up.
var queries = mustLoadQueries(queryFS)

// Query returns the SQL of the named query. It panics on an unknown name:
// names are constants of this package, so a miss is a programming error that
// TestQueries catches.
func Query(name string) string {
	q, ok := queries[name]
	if !ok {
		panic("store: unknown query " + name)
	}
	return q
}

// QueryNames returns the names of every embedded query, sorted.
func QueryNames() []string {
	names := make([]string, 0, len(queries))
	for n := range queries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func mustLoadQueries(fsys fs.FS) map[string]string {
	m, err := loadQueries(fsys)
	if err != nil {
		panic(err)
	}
	return m
}

// loadQueries parses every queries/*.sql file of fsys.
func loadQueries(fsys fs.FS) (map[string]string, error) {
	files, err := fs.Glob(fsys, "queries/*.sql")
	if err != nil {
		return nil, fmt.Errorf("store: list queries: %w", err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("store: read %s: %w", f, err)
		}
		var name string
		var body strings.Builder
		flush := func() error {
			if name == "" {
				return nil
			}
			q := strings.TrimSpace(body.String())
			if q == "" {
				return fmt.Errorf("store: %s: query %q is empty", f, name)
			}
			if _, dup := out[name]; dup {
				return fmt.Errorf("store: %s: query %q defined twice", f, name)
			}
			out[name] = q
			return nil
		}
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			if n, ok := strings.CutPrefix(strings.TrimSpace(line), "-- name:"); ok {
				if err := flush(); err != nil {
					return nil, err
				}
				name = strings.TrimSpace(n)
				body.Reset()
				continue
			}
			if name != "" {
				body.WriteString(line)
				body.WriteByte('\n')
			}
		}
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// conn returns the connection or transaction behind db, so named queries run
// with their own $n placeholders.
func conn(db *gorm.DB) gorm.ConnPool { return db.Statement.ConnPool }

// execNamed runs the named statement and returns the number of rows it
// affected.
func execNamed(ctx context.Context, db *gorm.DB, name string, args ...any) (int64, error) {
	res, err := conn(db).ExecContext(ctx, Query(name), args...)
	if err != nil {
		return 0, Translate(name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, Translate(name, err)
	}
	return n, nil
}

// queryNamed runs the named query and calls scan for every row.
func queryNamed(ctx context.Context, db *gorm.DB, name string, scan func(*sql.Rows) error, args ...any) error {
	rows, err := conn(db).QueryContext(ctx, Query(name), args...)
	if err != nil {
		return Translate(name, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return Translate(name+": scan", err)
		}
	}
	if err := rows.Err(); err != nil {
		return Translate(name, err)
	}
	return nil
}
