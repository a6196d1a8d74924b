package faults

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// Environment variables of the suite.
const (
	// envMode selects the whole suite ("full"); anything else runs the CI
	// subset.
	envMode = "TESSERA_FAULTS"
	// envNATS names a nats-server binary to run instead of the version
	// pinned in go.mod (e.g. Debian's /usr/sbin/nats-server);
	// natstest.EnvServer does the same for every real-process test.
	envNATS = "TESSERA_FAULTS_NATS_SERVER"
	// envReport names a file that receives the figures table.
	envReport = "TESSERA_FAULTS_REPORT"
)

func full() bool { return os.Getenv(envMode) == "full" }

// rootPrefix names the suite's temporary directories; owner.pid in each
// says which test process made it.
const rootPrefix = "tessera-faults-"

// exitHooks run when the test binary is interrupted: the servers and
// daemons it started must not outlive it (the daemons also get SIGKILL from
// the kernel when it dies, see proc; PostgreSQL is started by pg_ctl and
// does not).
var exitHooks struct {
	sync.Mutex
	next int
	m    map[int]func()
}

func onInterrupt(f func()) (remove func()) {
	exitHooks.Lock()
	defer exitHooks.Unlock()
	if exitHooks.m == nil {
		exitHooks.m = map[int]func(){}
	}
	id := exitHooks.next
	exitHooks.next++
	exitHooks.m[id] = f
	return func() {
		exitHooks.Lock()
		defer exitHooks.Unlock()
		delete(exitHooks.m, id)
	}
}

func TestMain(m *testing.M) {
	sweepStale()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "faults: %v: stopping the suite's servers\n", s)
		exitHooks.Lock()
		for _, f := range exitHooks.m {
			f()
		}
		exitHooks.Unlock()
		os.Exit(1)
	}()
	os.Exit(m.Run())
}

// sweepStale stops the PostgreSQL of an earlier run that died without
// cleaning up (a go test timeout exits without running cleanups) and
// removes its directory.
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), rootPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "owner.pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || syscall.Kill(pid, 0) == nil {
			continue // not ours to judge, or still running
		}
		_ = pgScript(filepath.Join(d, "pg"), 0, "stop").Run()
		fmt.Fprintf(os.Stderr, "faults: removed %s, left by process %d\n", d, pid)
		os.RemoveAll(d)
	}
}

// suite is one set of servers and binaries shared by the scenarios of a
// test run. Scenarios start and stop their own solverd and results
// processes.
type suite struct {
	root    string // owner.pid, logs, empty tables dir, pg/
	bin     string // producer, solverd, results
	repo    string
	natsBin string
	natsVer string
	natsURL string
	nats    *natstest.Process
	pgPort  int
	dbURL   string
	st      *store.Store
	nc      *nats.Conn
	js      jetstream.JetStream
	env     []string // for every tessera process
	// drain is how long the checker waits for the streams to empty.
	drain   time.Duration
	figures []figure
}

// newSuite builds the binaries, starts nats-server and PostgreSQL and
// registers their teardown on t (and on an interrupt).
func newSuite(t *testing.T) *suite {
	t.Helper()
	if testing.Short() {
		t.Skip("fault suite: starts nats-server and PostgreSQL processes (skipped with -short)")
	}
	pgBin := pgBinDir()
	if pgBin == "" && !(full() && os.Getuid() == 0) {
		t.Skip("fault suite: PostgreSQL binaries (initdb, pg_ctl) not found under PATH or /usr/lib/postgresql/*/bin; " +
			"install PostgreSQL or run `make test-faults` as root, which installs it")
	}
	if os.Getuid() == 0 {
		// pg-local.sh creates the user when missing; the check keeps the
		// CI subset from doing so behind the operator's back.
		if _, err := exec.LookPath("runuser"); err != nil {
			t.Skip("fault suite: running as root without runuser to start PostgreSQL as the postgres user")
		}
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("", rootPrefix)
	if err != nil {
		t.Fatal(err)
	}
	// PostgreSQL runs as postgres and must reach root/pg.
	if err := os.Chmod(root, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &suite{root: root, bin: filepath.Join(root, "bin"), repo: repo, drain: 30 * time.Second}
	removeHook := onInterrupt(s.teardown)
	t.Cleanup(func() {
		removeHook()
		s.teardown()
		if !t.Failed() {
			os.RemoveAll(root)
		} else {
			t.Logf("logs kept in %s", root)
		}
	})

	start := time.Now()
	s.build(t)
	t.Logf("built producer, solverd, results and %s in %v", s.natsVer, time.Since(start).Round(time.Millisecond))
	// Its store lives in t's temporary directory; natstest kills it when t
	// ends (and the kernel does if the test binary dies).
	s.nats = natstest.StartProcessWith(t, s.natsBin)
	s.natsURL = s.nats.URL()
	s.startPG(t)

	s.nc, err = nats.Connect(s.natsURL, nats.Name("tessera-faults"), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatalf("connect to %s: %v", s.natsURL, err)
	}
	if s.js, err = queue.New(s.nc); err != nil {
		t.Fatal(err)
	}
	s.st, err = store.Open(context.Background(), s.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.st.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	tables := filepath.Join(root, "tables")
	if err := os.Mkdir(tables, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "TESSERA_") && k != "DATABASE_URL" {
			s.env = append(s.env, kv)
		}
	}
	s.env = append(s.env,
		"TESSERA_NATS_URL="+s.natsURL,
		"TESSERA_DATABASE_URL="+s.dbURL,
		// Every host alike: no pattern databases, in-memory tables only.
		"TESSERA_SOLVER_TABLES_DIR="+tables,
		// A job whose solver was killed comes back after 2 s instead of
		// the production 30 s (and 4, 8, 16 s after later deliveries).
		"TESSERA_NATS_ACK_WAIT=2s",
		"TESSERA_RESULTS_FETCH_WAIT=200ms",
	)
	return s
}

// teardown stops everything newSuite started; it may run twice.
func (s *suite) teardown() {
	if s.nc != nil {
		s.nc.Close()
	}
	if s.st != nil {
		s.st.Close()
	}
	if s.nats != nil {
		s.nats.Kill()
	}
	if s.pgPort != 0 {
		_ = pgScript(filepath.Join(s.root, "pg"), s.pgPort, "stop").Run()
	}
}

// build compiles the three binaries and finds nats-server: envNATS, else
// natstest.Binary (the version go.mod pins, built once per machine).
func (s *suite) build(t *testing.T) {
	t.Helper()
	args := []string{"build", "-o", s.bin + string(filepath.Separator), "./producer", "./solverd", "./results"}
	s.natsBin = os.Getenv(envNATS)
	if s.natsBin == "" {
		s.natsBin = natstest.Binary(t)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = s.repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	out, err := exec.Command(s.natsBin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", s.natsBin, err, out)
	}
	s.natsVer = strings.TrimSpace(string(out))
}

// restartNATS starts the suite's nats-server again on its port and store
// (killing it first if it still runs) and waits until JetStream answers.
func (s *suite) restartNATS(t *testing.T) {
	t.Helper()
	s.nats.RestartJetStream()
}

// startPG starts the private PostgreSQL through scripts/pg-local.sh (which
// initialises it on first use as the postgres user, installing the Debian
// package first if needed and allowed) and records its URL.
func (s *suite) startPG(t *testing.T) {
	t.Helper()
	if s.pgPort == 0 {
		s.pgPort = testenv.FreePort(t)
	}
	cmd := pgScript(filepath.Join(s.root, "pg"), s.pgPort, "url")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("scripts/pg-local.sh: %v\n%s", err, errb.String())
	}
	s.dbURL = strings.TrimSpace(out.String())
	if s.dbURL == "" {
		t.Fatalf("scripts/pg-local.sh printed no URL\n%s", errb.String())
	}
}

// stopPG stops the private PostgreSQL (pg_ctl -m fast: sessions are cut).
func (s *suite) stopPG(t *testing.T) {
	t.Helper()
	if out, err := pgScript(filepath.Join(s.root, "pg"), s.pgPort, "stop").CombinedOutput(); err != nil {
		t.Fatalf("pg-local.sh stop: %v\n%s", err, out)
	}
}

// pgScript runs scripts/pg-local.sh for the server in dir: never the shared
// server on 5432, never a URL from the caller's environment.
func pgScript(dir string, port int, arg string) *exec.Cmd {
	here, _ := filepath.Abs(filepath.Join("..", "..", "scripts", "pg-local.sh"))
	cmd := exec.Command(here, arg)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "TESSERA_DATABASE_URL" && k != "DATABASE_URL" && !strings.HasPrefix(k, "TESSERA_PG_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TESSERA_PG_DIR="+dir, "TESSERA_PG_SYSTEM_PORT=none", "TESSERA_PG_DB=tessera")
	if port != 0 {
		cmd.Env = append(cmd.Env, "TESSERA_PG_PORT="+strconv.Itoa(port))
	}
	return cmd
}

// pgBinDir finds initdb and pg_ctl as scripts/pg-local.sh does, or "".
func pgBinDir() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(dirs) == 0 {
		return ""
	}
	return filepath.Dir(dirs[len(dirs)-1])
}

// proc is one process of the suite, its output in a log file.
type proc struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// startProc starts path with args; env nil inherits the test's. The
// kernel kills it if the test binary dies (Pdeathsig), so no daemon
// survives a crashed or timed-out run.
func startProc(t *testing.T, dir, name string, env []string, path string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, log: filepath.Join(dir, name+".log"), done: make(chan struct{})}
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(path, args...)
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p
}

// kill9 sends SIGKILL and waits for the process to be gone.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop sends SIGTERM and waits up to grace for a clean exit, then kills.
// It returns the exit error of a process that did not stop cleanly.
func (p *proc) stop(grace time.Duration) error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.err
	case <-time.After(grace):
		p.kill()
		return fmt.Errorf("%s did not stop within %v of SIGTERM", p.name, grace)
	}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// tail is the end of the process's log, for failure messages.
func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log)
	const keep = 3000
	if len(b) > keep {
		b = b[len(b)-keep:]
	}
	return fmt.Sprintf("--- %s (%s) ---\n%s", p.name, p.log, string(b))
}

// daemon starts `solverd run` or `results run` with the suite's environment
// plus extra variables; it is stopped (SIGTERM) when t ends.
func (s *suite) daemon(t *testing.T, name string, extra []string, binary string, args ...string) *proc {
	t.Helper()
	p := startProc(t, s.root, name, append(append([]string{}, s.env...), extra...), filepath.Join(s.bin, binary), args...)
	remove := onInterrupt(p.kill)
	t.Cleanup(func() {
		remove()
		if !p.exited() {
			if err := p.stop(40 * time.Second); err != nil {
				t.Logf("%s: %v", p.name, err)
			}
		}
	})
	return p
}

// solverd starts a `solverd run` with the given workers and quick workers.
func (s *suite) solverd(t *testing.T, name string, workers, quick int, extra ...string) *proc {
	return s.daemon(t, name, append([]string{
		"TESSERA_SOLVER_WORKERS=" + strconv.Itoa(workers),
		"TESSERA_SOLVER_QUICK_WORKERS=" + strconv.Itoa(quick),
	}, extra...), "solverd", "run")
}

// meteredSolverd starts a solverd serving /metrics on a port of its own
// and returns it with that address, for killHolding.
func (s *suite) meteredSolverd(t *testing.T, name string, workers, quick int, extra ...string) (*proc, string) {
	addr := "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t))
	return s.solverd(t, name, workers, quick, append([]string{"TESSERA_SOLVER_METRICS_ADDR=" + addr}, extra...)...), addr
}

// killHolding kills p, a solverd serving /metrics on addr, with -9 once
// it holds a job (tessera_solver_jobs_in_flight above 0): a kill between
// two jobs redelivers nothing and proves nothing. It fails t when p
// holds none for a minute.
func killHolding(t *testing.T, p *proc, addr string) {
	t.Helper()
	testenv.WaitFor(t, p.name+" holding a job", time.Minute, func() bool {
		_, body := testenv.Probe(addr, "/metrics")
		return testenv.Sum(body, "tessera_solver_jobs_in_flight") > 0
	})
	p.kill()
}

// writer starts a `results run`.
func (s *suite) writer(t *testing.T, name string) *proc {
	return s.daemon(t, name, nil, "results", "run")
}

// run runs a tessera binary to completion and returns its stdout and
// stderr; a non-zero exit fails t.
func (s *suite) run(t *testing.T, stdin []byte, binary string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(s.bin, binary), args...)
	cmd.Env = s.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", binary, strings.Join(args, " "), err, o.String(), e.String())
	}
	return o.String(), e.String()
}

// produce runs the producer without --wait and returns the batch id.
func (s *suite) produce(t *testing.T, stdin []byte, args ...string) int64 {
	t.Helper()
	out, _ := s.run(t, stdin, "producer", append([]string{"--quiet"}, args...)...)
	return batchID(t, out)
}

func batchID(t *testing.T, out string) int64 {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "batch "); ok {
			if id, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64); err == nil {
				return id
			}
		}
	}
	t.Fatalf("no batch id in the producer's output:\n%s", out)
	return 0
}
