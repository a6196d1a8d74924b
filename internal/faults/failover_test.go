package faults

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// pgPair is a primary and its synchronous streaming standby on loopback,
// private to one scenario.
type pgPair struct {
	bin              string // initdb, pg_ctl, pg_basebackup, psql
	dir              string
	primary, standby int // ports
}

// standbyName is the standby's application_name, which the primary's
// synchronous_standby_names lists.
const standbyName = "tessera_standby"

// startPGPair initialises a primary with synchronous_standby_names naming
// the standby, takes the standby with pg_basebackup (which copies the
// primary's configuration, that setting too, as an operator's copy does)
// and starts both. Both are stopped when t ends (or the suite is
// interrupted).
func startPGPair(t *testing.T, s *suite) *pgPair {
	t.Helper()
	p := &pgPair{bin: pgPairBin(), dir: filepath.Join(s.root, "pgpair"), primary: testenv.FreePort(t), standby: testenv.FreePort(t)}
	if p.bin == "" {
		t.Skip("PostgreSQL binaries (initdb, pg_basebackup, psql) not found")
	}
	if err := os.Mkdir(p.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		if out, err := exec.Command("chown", "postgres:", p.dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v\n%s", err, out)
		}
	}
	pd, sd := filepath.Join(p.dir, "primary"), filepath.Join(p.dir, "standby")
	p.as(t, "initdb", "-D", pd, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C")
	conf := fmt.Sprintf("listen_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nwal_level = replica\nmax_wal_senders = 5\n"+
		"synchronous_standby_names = '%s'\nsynchronous_commit = on\n", p.dir, standbyName)
	p.appendConf(t, filepath.Join(pd, "postgresql.conf"), conf)
	remove := onInterrupt(p.stopAll)
	t.Cleanup(func() { remove(); p.stopAll() })
	p.as(t, "pg_ctl", "-D", pd, "-l", filepath.Join(p.dir, "primary.log"), "-o", "-p "+strconv.Itoa(p.primary), "-w", "-t", "60", "start")
	p.as(t, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(p.primary), "-U", "postgres", "-D", sd, "-R", "-X", "stream")
	p.appendConf(t, filepath.Join(sd, "postgresql.auto.conf"),
		fmt.Sprintf("primary_conninfo = 'host=127.0.0.1 port=%d user=postgres application_name=%s'\n", p.primary, standbyName))
	p.as(t, "pg_ctl", "-D", sd, "-l", filepath.Join(p.dir, "standby.log"), "-o", "-p "+strconv.Itoa(p.standby), "-w", "-t", "60", "start")
	deadline := time.Now().Add(time.Minute)
	for p.sql(t, p.primary, "SELECT sync_state FROM pg_stat_replication WHERE application_name = '"+standbyName+"'") != "sync" {
		if time.Now().After(deadline) {
			t.Fatal("the standby never became synchronous")
		}
		time.Sleep(200 * time.Millisecond)
	}
	p.sql(t, p.primary, "CREATE DATABASE tessera")
	return p
}

// pgPairBin is the directory of initdb that also holds pg_basebackup and
// psql (PATH may hold links to the server programs only), or "".
func pgPairBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for _, d := range append([]string{pgBinDir()}, dirs...) {
		if d == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(filepath.Join(d, "initdb")); err == nil {
			d = filepath.Dir(real)
		}
		if _, err := os.Stat(filepath.Join(d, "pg_basebackup")); err == nil {
			return d
		}
	}
	return ""
}

// url is database.url for the pair: both hosts, the writable one chosen.
func (p *pgPair) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/tessera?sslmode=disable&target_session_attrs=read-write&connect_timeout=5",
		p.primary, p.standby)
}

// as runs a PostgreSQL program as the data directories' owner.
func (p *pgPair) as(t *testing.T, prog string, args ...string) {
	t.Helper()
	if out, err := p.cmd(prog, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
}

func (p *pgPair) cmd(prog string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, prog)
	if os.Getuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (p *pgPair) appendConf(t *testing.T, file, text string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `cat >> "$0"`, file)
	if os.Getuid() == 0 {
		cmd = exec.Command("runuser", "-u", "postgres", "--", "/bin/sh", "-c", `cat >> "$0"`, file)
	}
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("append to %s: %v\n%s", file, err, out)
	}
}

// sql runs one statement with psql on the server at port and returns its
// unaligned output.
func (p *pgPair) sql(t *testing.T, port int, q string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(p.bin, "psql"), "-X", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres",
		"-d", "postgres", "-v", "ON_ERROR_STOP=1", "-tAc", q)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("psql -p %d %q: %v\n%s", port, q, err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// stopAll stops both servers at once (-m immediate); either may be down.
func (p *pgPair) stopAll() {
	for _, d := range []string{"primary", "standby"} {
		dd := filepath.Join(p.dir, d)
		if _, err := os.Stat(filepath.Join(dd, "postmaster.pid")); err == nil {
			_ = p.cmd("pg_ctl", "-D", dd, "-m", "immediate", "-w", "stop").Run()
		}
	}
}

// waitLog waits until the process's log contains want and returns how
// long that took; it fails t after limit.
func waitLog(t *testing.T, p *proc, want string, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		b, _ := os.ReadFile(p.log)
		if bytes.Contains(b, []byte(want)) {
			return time.Since(start)
		}
		if time.Since(start) > limit {
			t.Fatalf("%s logged no %q within %v\n%s", p.name, want, limit, p.tail())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pgFailover: the writer's database.url lists a primary and its
// synchronous standby with target_session_attrs=read-write. The primary is
// stopped hard (pg_ctl -m immediate) partway through 100,000 8-puzzles and
// the standby promoted. The promoted standby still has the copied
// synchronous_standby_names, so its commits wait for a standby that does
// not exist: the writer must say so (within results.write_timeout, 5 s
// here) and hold the results, and once the operator clears the setting,
// store every state exactly once on the new primary, losing none.
func pgFailover(t *testing.T, s *suite) figure {
	p := startPGPair(t, s)
	url := p.url()
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	// The checker reads the pair (whichever host is writable).
	was := s.st
	s.st = st
	t.Cleanup(func() { s.st = was; st.Close() })
	env := []string{"TESSERA_DATABASE_URL=" + url, "TESSERA_RESULTS_WRITE_TIMEOUT=5s"}

	sd := s.solverd(t, "solverd", 2, 1)
	w := s.daemon(t, "results", env, "results", "run")
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	start := time.Now()
	const n = 100000
	cmd := exec.Command(filepath.Join(s.bin, "producer"), "--quiet", "--puzzle", "8", "--random", strconv.Itoa(n), "--seed", "71")
	cmd.Env = append(append([]string{}, s.env...), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("producer: %v\n%s", err, out)
	}
	id := batchID(t, string(out))
	s.waitDone(t, id, n/4, 3*time.Minute)

	killedAt := s.progress(t, id).Done
	p.as(t, "pg_ctl", "-D", filepath.Join(p.dir, "primary"), "-m", "immediate", "-w", "stop")
	killed := time.Now()
	time.Sleep(2 * time.Second) // the writer meets a dead primary and a read-only standby
	p.as(t, "pg_ctl", "-D", filepath.Join(p.dir, "standby"), "-w", "-t", "60", "promote")
	promoted := time.Now()
	named := waitLog(t, w, "synchronous_standby_names", 2*time.Minute)
	// What the recipe in docs/DEPLOY.md does at promotion.
	p.sql(t, p.standby, "ALTER SYSTEM SET synchronous_standby_names = ''")
	p.sql(t, p.standby, "SELECT pg_reload_conf()")
	cleared := time.Now()
	took := s.waitFinished(t, start, 5*time.Minute, id)
	after := time.Since(cleared)
	mustRun(t, sd, w)
	tl := s.check(t, id)
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: s.redelivered(t, jobDeliveries, jobs), resultsRe: s.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("8-puzzles; primary stopped (-m immediate) at %d rows, standby promoted %s later; the writer named the "+
			"inherited synchronous_standby_names %s after the promotion; finished %s after it was cleared; %s",
			killedAt, dur(promoted.Sub(killed)), dur(named), dur(after), statuses(tl))}
}
