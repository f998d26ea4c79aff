package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func runExplainArgs(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runExplain(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestExplainText(t *testing.T) {
	code, out, errs := runExplainArgs(t, "", "451 4.3.0 Email server has temporarily rejected this message.")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{
		"451 4.3.0: Message temporarily rejected",
		"Provider:       Gmail and Google Workspace",
		"Outcome:        temporary",
		"Bounce class:   soft",
		"Who acts:       the sender",
		"Report label:   Temporary failure",
		"Keep address:   yes",
		"What it means",
		"Common causes",
		"How to fix it, in order",
		"  1. Let your server retry",
		"  2. ",
		"What the standards say",
		"  4.3.0      Other or undefined mail system status.",
		"  451        Requested action aborted: local error in processing.",
		"Related codes",
		"  451 4.3.0  Several recipient domains in one transaction",
		"  421 4.3.0  Temporary system problem",
		"Sources (reviewed ",
		"https://support.google.com/a/answer/3726730",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 78 && !strings.Contains(line, "http") {
			t.Errorf("line longer than 78 columns: %q", line)
		}
	}
}

func TestExplainDistinctEntries(t *testing.T) {
	_, multi, _ := runExplainArgs(t, "", "451-4.3.0", "Multiple destination domains per transaction is unsupported.", "Please try again.")
	if !strings.Contains(multi, "Several recipient domains in one transaction") || !strings.Contains(multi, "1. Send one SMTP transaction per recipient domain") {
		t.Errorf("multiple-domains explanation:\n%s", multi)
	}
	_, sys, _ := runExplainArgs(t, "", "--provider", "google", "421 4.3.0")
	if !strings.HasPrefix(sys, "421 4.3.0: Temporary system problem") || !strings.Contains(sys, "the receiving provider") {
		t.Errorf("421 4.3.0 for google:\n%s", sys)
	}
	_, bare, _ := runExplainArgs(t, "", "451 4.3.0")
	if !strings.HasPrefix(bare, "4.3.0: Receiving system problem, unspecified") || !strings.Contains(bare, "Any mail server") {
		t.Errorf("bare 451 4.3.0:\n%s", bare)
	}
	_, dead, _ := runExplainArgs(t, "550 5.1.1 The email account that you tried to reach does not exist. - gsmtp\n", "-")
	if !strings.Contains(dead, "Keep address:   no, suppress it") || !strings.Contains(dead, "Invalid recipient") ||
		!strings.Contains(dead, "(recognised from the reply)") {
		t.Errorf("550 5.1.1 from stdin:\n%s", dead)
	}
}

func TestExplainJSON(t *testing.T) {
	code, out, errs := runExplainArgs(t, "", "--json", "451 4.3.0 Multiple destination domains per transaction is unsupported. Please try again.")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var got struct {
		ReplyCode    string `json:"reply_code"`
		EnhancedCode string `json:"enhanced_code"`
		MatchedBy    string `json:"matched_by"`
		Entry        struct {
			ID          string   `json:"id"`
			Provider    string   `json:"provider"`
			Class       string   `json:"class"`
			Outcome     string   `json:"outcome"`
			Label       string   `json:"label"`
			KeepAddress bool     `json:"keep_address"`
			Fixes       []string `json:"fixes"`
			Sources     []struct{ Name, URL string }
		} `json:"entry"`
		Enhanced *struct{ ID string } `json:"enhanced"`
		Reply    *struct{ ID string } `json:"reply"`
		Related  []struct{ ID, Code, Title string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out)
	}
	if got.ReplyCode != "451" || got.EnhancedCode != "4.3.0" || got.MatchedBy != "text" ||
		got.Entry.ID != "google-451-4.3.0-multiple-domains" || got.Entry.Provider != "google" ||
		got.Entry.Class != "soft" || got.Entry.Outcome != "temporary" || got.Entry.Label != "Temporary failure" ||
		!got.Entry.KeepAddress || len(got.Entry.Fixes) == 0 || len(got.Entry.Sources) == 0 ||
		got.Enhanced == nil || got.Enhanced.ID != "rfc-4.3.0" || got.Reply == nil || got.Reply.ID != "rfc-451" || len(got.Related) == 0 {
		t.Errorf("unexpected JSON: %+v", got)
	}
}

func TestExplainErrors(t *testing.T) {
	if code, _, errs := runExplainArgs(t, ""); code != 2 || !strings.Contains(errs, "usage:") {
		t.Errorf("no argument: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runExplainArgs(t, "", "no code in here"); code != 1 || !strings.Contains(errs, "no reply code") {
		t.Errorf("unknown text: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runExplainArgs(t, "", "--bogus", "451"); code != 2 {
		t.Errorf("unknown flag: exit %d", code)
	}
	if code, _, _ := runExplainArgs(t, "", "451", "--provider"); code != 2 {
		t.Errorf("--provider without value: exit %d", code)
	}
	if code, out, _ := runExplainArgs(t, "", "--help"); code != 0 || !strings.Contains(out, "usage:") {
		t.Errorf("--help: exit %d", code)
	}
}

func TestExplainWrapsLongReplies(t *testing.T) {
	code, out, _ := runExplainArgs(t, "", "550 5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).")
	if code != 0 || !strings.Contains(out, "Provider:       Outlook.com and Hotmail") || !strings.Contains(out, "Report label:   Blocked") ||
		!strings.Contains(out, "Keep address:   yes") {
		t.Errorf("S3150 explanation:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 78 && !strings.Contains(line, "://") {
			t.Errorf("line longer than 78 columns: %q", line)
		}
	}
}

// "Server said" quotes the reply cut at a character boundary.
func TestExplainClipsAtRune(t *testing.T) {
	var out, errb bytes.Buffer
	in := "550 5.1.1 a" + strings.Repeat("ö", 150)
	if code := runExplain(context.Background(), []string{in}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d, want 0: %s", code, errb.String())
	}
	if !utf8.Valid(out.Bytes()) {
		t.Errorf("output is not valid UTF-8: %q", out.String())
	}
}
