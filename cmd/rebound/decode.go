package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/rebound-hq/rebound/internal/classify"
	"github.com/rebound-hq/rebound/internal/dsn"
)

// decodeLine is one --json output line: exactly these fields, in this
// order; null where unknown.
type decodeLine struct {
	File              string  `json:"file"`
	Index             int     `json:"index"`
	Kind              string  `json:"kind"`
	Recipient         *string `json:"recipient"`
	Status            *string `json:"status"`
	ReplyCode         *string `json:"reply_code"`
	Class             *string `json:"class"`
	Reason            *string `json:"reason"`
	Label             *string `json:"label"`
	AddressInvalid    bool    `json:"address_invalid"`
	Diagnostic        *string `json:"diagnostic"`
	RemoteMTA         *string `json:"remote_mta"`
	Provider          *string `json:"provider"`
	OriginalMessageID *string `json:"original_message_id"`
}

const decodeUsage = "usage: rebound decode [--json] PATH... (a file, a folder of *.eml, or - for stdin)"

// runDecode implements `rebound decode [--json] PATH...`: PATH is a file, a
// folder (its *.eml files, sorted by name) or - for standard input. A
// message that fails to decode is reported on stderr; the others are still
// printed and the exit code is 1 at the end.
func runDecode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	asJSON := false
	var paths []string
	for _, a := range args {
		switch a {
		case "--json", "-json":
			asJSON = true
		case "-h", "--help":
			fmt.Fprintln(stderr, decodeUsage)
			return 0
		default:
			paths = append(paths, a)
		}
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, decodeUsage)
		return 2
	}
	files, err := expandPaths(paths)
	if err != nil {
		fmt.Fprintf(stderr, "rebound decode: %v\n", err)
		return 1
	}
	var lines []decodeLine
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	failed := false
	for _, f := range files {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "rebound decode: %v\n", ctx.Err())
			return 1
		}
		var raw []byte
		if f == "-" {
			raw, err = io.ReadAll(stdin)
		} else {
			raw, err = os.ReadFile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "rebound decode: %v\n", err)
			failed = true
			continue
		}
		res, err := dsn.Decode(raw)
		if err != nil {
			fmt.Fprintf(stderr, "rebound decode: %s: %v\n", f, err)
			failed = true
			continue
		}
		for i, r := range res {
			l := toDecodeLine(f, i+1, r, classify.Classify(r))
			if asJSON {
				if err := enc.Encode(l); err != nil {
					fmt.Fprintf(stderr, "rebound decode: %v\n", err)
					return 1
				}
			} else {
				lines = append(lines, l)
			}
		}
	}
	if !asJSON {
		printTable(stdout, lines)
	}
	if failed {
		return 1
	}
	return 0
}

// expandPaths turns PATH arguments into the list of files to decode.
func expandPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p == "-" {
			out = append(out, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(strings.ToLower(e.Name()), ".eml") {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, filepath.Join(p, n))
		}
	}
	return out, nil
}

// toDecodeLine converts a result and its verdict; a not_bounce result has
// index 0.
func toDecodeLine(file string, index int, r dsn.Result, v classify.Verdict) decodeLine {
	if r.Kind == dsn.KindNotBounce {
		index = 0
	}
	return decodeLine{
		File:              file,
		Index:             index,
		Kind:              string(r.Kind),
		Recipient:         nullable(r.Recipient),
		Status:            nullable(r.Status),
		ReplyCode:         nullable(r.ReplyCode),
		Class:             nullable(v.Class),
		Reason:            nullable(v.Reason),
		Label:             nullable(v.Label),
		AddressInvalid:    v.AddressInvalid,
		Diagnostic:        nullable(r.Diagnostic),
		RemoteMTA:         nullable(r.RemoteMTA),
		Provider:          nullable(string(r.Provider)),
		OriginalMessageID: nullable(r.Original.MessageID),
	}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func str(p *string) string {
	if p == nil {
		return "-"
	}
	return *p
}

// printTable writes the results as an aligned table for a person to read.
func printTable(w io.Writer, lines []decodeLine) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\t#\tKIND\tRECIPIENT\tSTATUS\tREPLY\tCLASS\tREASON\tLABEL\tINVALID\tPROVIDER\tDIAGNOSTIC")
	for _, l := range lines {
		diag := str(l.Diagnostic)
		if len(diag) > 70 {
			diag = cutUTF8(diag, 70) + "…"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%t\t%s\t%s\n",
			filepath.Base(l.File), l.Index, l.Kind, str(l.Recipient), str(l.Status), str(l.ReplyCode),
			str(l.Class), str(l.Reason), str(l.Label), l.AddressInvalid, str(l.Provider), diag)
	}
	tw.Flush()
}

// cutUTF8 returns s cut to at most n bytes at a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
