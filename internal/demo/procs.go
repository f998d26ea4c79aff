package demo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// goTool returns the go command: the one on PATH, else the one of the
// toolchain that built this binary.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// build compiles the main packages pkgs (such as ./cmd/api) of the module
// at root into the directory outDir, one binary each, named after the
// package's directory.
func build(ctx context.Context, root, outDir string, pkgs ...string) error {
	args := append([]string{"build", "-o", outDir + string(filepath.Separator)}, pkgs...)
	cmd := exec.CommandContext(ctx, goTool(), args...)
	cmd.Dir = root
	cmd.Env = os.Environ()
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("demo: go build %s: %w\n%s", strings.Join(pkgs, " "), err, strings.TrimSpace(string(b)))
	}
	return nil
}

// freeLoopbackPort returns a TCP port nothing listens on at 127.0.0.1 at
// the time of the call.
func freeLoopbackPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("demo: find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// process is a child process (the API or the worker) whose output goes to
// a log file.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	err     error         // its exit status, set before done closes
}

// start runs bin with the environment env (added to this process's) and
// its standard output and error appended to logPath. The child runs in its
// own process group, so a Ctrl-C in the terminal reaches the demo only and
// the demo stops its children in order.
func start(name, bin, logPath string, env []string) (*process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("demo: %s log: %w", name, err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("demo: start %s: %w", name, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// deadErr describes a process that ended on its own, with the end of its log.
func (p *process) deadErr() error {
	return fmt.Errorf("demo: %s exited (%v); last lines of %s:\n%s", p.name, p.err, p.logPath, tail(p.logPath, 15))
}

// stop sends SIGTERM (the binaries shut down gracefully on it), waits up to
// grace, then kills the process.
func (p *process) stop(grace time.Duration) error {
	if p.exited() {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("demo: %s did not stop within %s after SIGTERM; killed", p.name, grace)
	}
}

// waitReady polls url until it answers 200, the process exits or timeout
// passes.
func (p *process) waitReady(ctx context.Context, url string, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	return p.poll(ctx, timeout, fmt.Sprintf("not ready at %s", url), func() (bool, error) {
		if p.exited() {
			return false, p.deadErr()
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// waitLog waits until a line of the process's log contains substr, the
// process exits or timeout passes.
func (p *process) waitLog(ctx context.Context, substr string, timeout time.Duration) error {
	return p.poll(ctx, timeout, fmt.Sprintf("did not log %q", substr), func() (bool, error) {
		if b, err := os.ReadFile(p.logPath); err == nil && strings.Contains(string(b), substr) {
			return true, nil
		}
		if p.exited() {
			return false, p.deadErr()
		}
		return false, nil
	})
}

// poll calls try every 200ms until it reports done or an error, ctx ends
// or timeout passes; the timeout error says the process's name, what it
// failed to do (failed) and the end of its log.
func (p *process) poll(ctx context.Context, timeout time.Duration, failed string, try func() (done bool, err error)) error {
	deadline := time.Now().Add(timeout)
	for {
		if done, err := try(); done || err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: %s %s within %s; last lines of %s:\n%s", p.name, failed, timeout, p.logPath, tail(p.logPath, 15))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		lines = append(lines, "("+err.Error()+")")
	}
	return "  " + strings.Join(lines, "\n  ")
}
