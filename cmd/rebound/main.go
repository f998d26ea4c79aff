// Command rebound is Rebound's command-line tool: it decodes bounce messages,
// explains status codes, runs migrations and re-processes stored messages.
//
// Each subcommand lives in its own file as a func(ctx, args, stdout, stderr) int.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command runs one subcommand and returns the process exit code.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands is the one table of subcommands.
var commands = map[string]command{
	"corpus":    {"score the decoder on a bounce corpus: rebound corpus [-q] [DIR] (default ../shared/corpus)", runCorpus},
	"enqueue":   {"queue work for the workers: rebound enqueue reprocess [--since DATE] [--batch N]", runEnqueue},
	"demo":      {"run the whole job end to end on real bounces: rebound demo [-once] [-sync scheduler|trigger] (make demo)", runDemo},
	"decode":    {"decode bounce messages: rebound decode [--json] PATH... (a file, a folder of *.eml, or - for stdin)", runDecode},
	"explain":   {"explain a status code or reply text: rebound explain \"451 4.3.0 ...\"", runExplain},
	"migrate":   {"database migrations: rebound migrate up|down|status", runMigrate},
	"reprocess": {"re-decode stored raw messages: rebound reprocess [--since DATE]", runReprocess},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rebound: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(ctx, args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: rebound COMMAND [ARGS]")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
}
