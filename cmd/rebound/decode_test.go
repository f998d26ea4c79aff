package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodeFields is the exact --json field set of issue 3.
var decodeFields = []string{"address_invalid", "class", "diagnostic", "file", "index", "kind", "label",
	"original_message_id", "provider", "reason", "recipient", "remote_mta", "reply_code", "status"}

func TestDecodeJSON(t *testing.T) {
	dir := filepath.Join("..", "..", "internal", "dsn", "testdata")
	var out, errb bytes.Buffer
	code := runDecode(context.Background(), []string{"--json",
		filepath.Join(dir, "rfc3464_failed.eml"), filepath.Join(dir, "not_bounce.eml")}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines:\n%s", len(lines), out.String())
	}
	var rows []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !reflect.DeepEqual(keys, decodeFields) {
			t.Errorf("fields %v, want %v", keys, decodeFields)
		}
		rows = append(rows, m)
	}
	b := rows[0]
	if b["index"] != 1.0 || b["kind"] != "bounce" || b["recipient"] != "alice@gmail.com" || b["status"] != "5.1.1" ||
		b["class"] != "hard" || b["reason"] != "userunknown" || b["address_invalid"] != true ||
		b["provider"] != "google" || b["original_message_id"] != "abc123@sender.test" {
		t.Errorf("bounce line %v", b)
	}
	n := rows[1]
	if n["index"] != 0.0 || n["kind"] != "not_bounce" {
		t.Errorf("not-bounce line %v", n)
	}
	for _, k := range []string{"recipient", "status", "reply_code", "class", "reason", "label", "diagnostic", "remote_mta", "original_message_id"} {
		if n[k] != nil {
			t.Errorf("not-bounce %s = %v, want null", k, n[k])
		}
	}
}

func TestDecodeFolderStdinAndErrors(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "internal", "dsn", "testdata", "rfc3464_failed.eml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b.eml", "a.eml"} {
		if err := os.WriteFile(filepath.Join(dir, n), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "c.eml"), nil, 0o644); err != nil { // undecodable
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "skip.txt"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := runDecode(context.Background(), []string{"--json", dir, "-"}, bytes.NewReader(src), &out, &errb)
	if code == 0 {
		t.Errorf("exit 0 despite an undecodable file")
	}
	if !strings.Contains(errb.String(), "c.eml") {
		t.Errorf("stderr %q does not name the failing file", errb.String())
	}
	var files []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.Base(m["file"].(string)))
	}
	if want := []string{"a.eml", "b.eml", "-"}; !reflect.DeepEqual(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	out.Reset()
	errb.Reset()
	if code := runDecode(context.Background(), []string{filepath.Join(dir, "a.eml")}, nil, &out, &errb); code != 0 {
		t.Fatalf("table: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "RECIPIENT") || !strings.Contains(out.String(), "alice@gmail.com") {
		t.Errorf("table output:\n%s", out.String())
	}
}

// The table cuts a long diagnostic at a character boundary: a Japanese or
// Russian notice must not print half a character.
func TestDecodeTableCutsAtRune(t *testing.T) {
	diag := strings.Repeat("a", 69) + "日本語のエラー"
	var out bytes.Buffer
	printTable(&out, []decodeLine{{File: "x.eml", Kind: "bounce", Diagnostic: &diag}})
	if !utf8.Valid(out.Bytes()) {
		t.Errorf("table output is not valid UTF-8: %q", out.String())
	}
	if !strings.Contains(out.String(), strings.Repeat("a", 69)+"…") {
		t.Errorf("diagnostic not cut before the 70th byte's character:\n%s", out.String())
	}
}
