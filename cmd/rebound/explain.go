package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rebound-hq/rebound/internal/codes"
)

const explainUsage = `usage: rebound explain [--json] [--provider NAME] "REPLY"
       rebound explain [--json] [--provider NAME] -      (read the reply from stdin)

Explains an SMTP reply or status code: "451 4.3.0 Email server has temporarily
rejected this message.", "550-5.1.1 ...", "4.7.0" or "421". NAME is the
receiving provider (google, microsoft, yahoo, apple, ...); without it the
provider is inferred from the text.
`

// runExplain implements "rebound explain": it looks the reply up in the
// code knowledge base (internal/codes) and prints the explanation, or the
// match as JSON with --json. Exit status: 0 explained, 1 nothing known
// about the input, 2 usage error.
func runExplain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var (
		asJSON   bool
		provider string
		words    []string
		fromIn   bool
	)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			words = append(words, args[i+1:]...)
			i = len(args)
		case a == "-h" || a == "--help" || a == "-help":
			fmt.Fprint(stdout, explainUsage)
			return 0
		case a == "--json" || a == "-json":
			asJSON = true
		case a == "--provider" || a == "-provider":
			if i+1 >= len(args) {
				fmt.Fprintln(stderr, "rebound explain: --provider needs a value")
				fmt.Fprint(stderr, explainUsage)
				return 2
			}
			i++
			provider = args[i]
		case strings.HasPrefix(a, "--provider=") || strings.HasPrefix(a, "-provider="):
			provider = a[strings.IndexByte(a, '=')+1:]
		case a == "-":
			fromIn = true
		case strings.HasPrefix(a, "-") && len(a) > 1 && !isCodeStart(a[1]):
			fmt.Fprintf(stderr, "rebound explain: unknown flag %s\n", a)
			fmt.Fprint(stderr, explainUsage)
			return 2
		default:
			words = append(words, a)
		}
	}
	text := strings.Join(words, " ")
	if fromIn {
		b, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
		if err != nil {
			fmt.Fprintf(stderr, "rebound explain: read stdin: %v\n", err)
			return 1
		}
		text = strings.TrimSpace(text + "\n" + string(b))
	}
	if strings.TrimSpace(text) == "" {
		fmt.Fprint(stderr, explainUsage)
		return 2
	}
	if err := codes.Err(); err != nil {
		fmt.Fprintf(stderr, "rebound explain: %v\n", err)
		return 1
	}
	m, ok := codes.Explain(text, provider)
	if !ok {
		fmt.Fprintf(stderr, "rebound explain: no reply code, status code or known reply text found in %q\n", clip(text, 120))
		return 1
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(toExplainJSON(text, m)); err != nil {
			fmt.Fprintf(stderr, "rebound explain: write: %v\n", err)
			return 1
		}
		return 0
	}
	w := bufio.NewWriter(stdout)
	printExplanation(w, m)
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "rebound explain: write: %v\n", err)
		return 1
	}
	return 0
}

// isCodeStart reports whether a flag-looking argument is really text such
// as "-4.3.0" (it never is in practice, but digits are not flags).
func isCodeStart(b byte) bool { return b >= '0' && b <= '9' }

// explainJSON is the --json output.
type explainJSON struct {
	Input            string        `json:"input"`
	ReplyCode        string        `json:"reply_code,omitempty"`
	EnhancedCode     string        `json:"enhanced_code,omitempty"`
	Text             string        `json:"text,omitempty"`
	Provider         string        `json:"provider,omitempty"`
	ProviderInferred bool          `json:"provider_inferred"`
	MatchedBy        string        `json:"matched_by"` // "text", "code" or "approximate"
	Entry            *codes.Entry  `json:"entry"`
	Enhanced         *codes.Entry  `json:"enhanced,omitempty"`
	Reply            *codes.Entry  `json:"reply,omitempty"`
	Related          []relatedJSON `json:"related"`
}

type relatedJSON struct {
	ID       string `json:"id"`
	Code     string `json:"code"`
	Provider string `json:"provider"`
	Title    string `json:"title"`
}

func toExplainJSON(input string, m codes.Match) explainJSON {
	out := explainJSON{
		Input: input, ReplyCode: m.Parsed.ReplyCode, EnhancedCode: m.Parsed.EnhancedCode, Text: m.Parsed.Text,
		Provider: m.Provider, ProviderInferred: m.Inferred, MatchedBy: matchedBy(m),
		Entry: m.Entry, Enhanced: m.Enhanced, Reply: m.Reply, Related: []relatedJSON{},
	}
	for _, id := range m.Entry.Related {
		if r, ok := codes.Get(id); ok {
			out.Related = append(out.Related, relatedJSON{ID: r.ID, Code: r.Code(), Provider: r.Provider, Title: r.Title})
		}
	}
	return out
}

func matchedBy(m codes.Match) string {
	switch {
	case m.ByText:
		return "text"
	case m.Approximate:
		return "approximate"
	}
	return "code"
}

func printExplanation(w io.Writer, m codes.Match) {
	e := m.Entry
	fmt.Fprintf(w, "%s: %s\n\n", e.Code(), e.Title)
	row := func(k, v string) { wrapItem(w, fmt.Sprintf("  %-15s ", k+":"), strings.Repeat(" ", 18), v) }
	prov := e.ProviderName
	if m.Inferred && e.Provider == m.Provider {
		if m.ByText || codes.InferProvider(m.Parsed.Text) == m.Provider {
			prov += " (recognised from the reply)"
		} else {
			prov += " (only this provider uses the code)"
		}
	}
	row("Provider", prov)
	if m.Parsed.Text != "" {
		row("Server said", clip(m.Parsed.Text, 200))
	} else if e.ReplyText != "" {
		row("Reply text", e.ReplyText)
	}
	switch e.Outcome {
	case codes.OutcomeTemporary:
		row("Outcome", "temporary: the sending server keeps the message and retries")
		row("Bounce class", "soft")
	case codes.OutcomePermanent:
		row("Outcome", "permanent: this message will not be delivered as sent")
		row("Bounce class", "hard")
	case codes.OutcomeSuccess:
		row("Outcome", "success: not a failure")
	case codes.OutcomeIntermediate:
		row("Outcome", "intermediate: the server expects more input")
	}
	row("Who acts", codes.WhoActsText(e.WhoActs))
	if e.Label != "" {
		row("Report label", fmt.Sprintf("%s (reason %s)", e.Label, e.Reason))
	}
	keep := "yes"
	if !e.KeepAddress {
		keep = "no, suppress it"
	}
	row("Keep address", keep)
	wrap(w, "    ", e.KeepAddressWhy)
	if m.Approximate {
		fmt.Fprintf(w, "\n  %s is not a code Rebound knows; this is the general meaning of its group.\n", m.Parsed.EnhancedCode)
	}

	fmt.Fprintln(w, "\nWhat it means")
	wrap(w, "  ", e.Meaning)
	fmt.Fprintln(w, "\nCommon causes")
	for _, c := range e.Causes {
		wrapItem(w, "  - ", "    ", c)
	}
	fmt.Fprintln(w, "\nHow to fix it, in order")
	for i, f := range e.Fixes {
		wrapItem(w, fmt.Sprintf("  %d. ", i+1), "     ", f)
	}
	if m.Enhanced != nil || m.Reply != nil {
		fmt.Fprintln(w, "\nWhat the standards say")
		for _, g := range []*codes.Entry{m.Enhanced, m.Reply} {
			if g != nil {
				wrapItem(w, fmt.Sprintf("  %-10s ", g.Code()), "             ", g.ReplyText+". "+firstSentence(g.Meaning))
			}
		}
	}
	if len(e.Related) > 0 {
		fmt.Fprintln(w, "\nRelated codes")
		for _, id := range e.Related {
			if r, ok := codes.Get(id); ok {
				line := r.Title
				if r.Provider != codes.ProviderGeneric {
					line += " (" + r.ProviderName + ")"
				}
				wrapItem(w, fmt.Sprintf("  %-10s ", r.Code()), "             ", line)
			}
		}
	}
	fmt.Fprintf(w, "\nSources (reviewed %s)\n", e.Reviewed)
	for _, s := range e.Sources {
		fmt.Fprintf(w, "  - %s\n    %s\n", s.Name, s.URL)
	}
}

// wrap writes text wrapped at 78 columns, each line starting with indent.
func wrap(w io.Writer, indent, text string) { wrapItem(w, indent, indent, text) }

// wrapItem writes text wrapped at 78 columns; the first line starts with
// first, the others with rest.
func wrapItem(w io.Writer, first, rest, text string) {
	const width = 78
	line := first
	n := len(first)
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && n+1+len(word) > width {
			fmt.Fprintln(w, line)
			line, n, empty = rest, len(rest), true
		}
		if !empty {
			line += " "
			n++
		}
		line += word
		n += len(word)
		empty = false
	}
	fmt.Fprintln(w, line)
}

// firstSentence returns s up to and including its first full stop.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return cutUTF8(s, n) + "..."
}
