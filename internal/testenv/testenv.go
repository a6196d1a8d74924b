// Package testenv holds set-up shared by the test binaries of the
// commands.
package testenv

import (
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// MainWithoutTables runs m with the tables directory pointed at an empty
// one, then exits: the tests must behave alike on a fresh machine and on a
// host whose operator has built tables in the default directory (which
// would change which solver answers). Tests that want tables pass
// --tables-dir.
func MainWithoutTables(m *testing.M) {
	dir, err := os.MkdirTemp("", "tessera-test-tables-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TESSERA_SOLVER_TABLES_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Known secrets that the commands' leak tests feed them through flags,
// variables and files. Distinct and unusual, so that finding one in an
// output can only mean it leaked.
const (
	NATSPassword = "natsPW-q7x1v9"
	NATSToken    = "natsTOK-k2m9w4"
	DBPassword   = "dbPW-z4r8j6"
	HTTPToken    = "httpTOK-p3v6s2"
)

// NoSecrets fails t if out (what a command printed, named what) holds any
// of the known secrets.
func NoSecrets(t testing.TB, what, out string) {
	t.Helper()
	for _, s := range []string{NATSPassword, NATSToken, DBPassword, HTTPToken} {
		if strings.Contains(out, s) {
			t.Errorf("%s: output shows secret %q:\n%s", what, s, out)
		}
	}
}

// ClearConfigEnv hides every TESSERA_* variable and DATABASE_URL of the
// caller's environment from t, and moves it to an empty directory (no
// ./tessera.yaml). TESSERA_SOLVER_TABLES_DIR is kept: MainWithoutTables
// sets it.
func ClearConfigEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if (strings.HasPrefix(k, "TESSERA_") && k != "TESSERA_SOLVER_TABLES_DIR") || k == "DATABASE_URL" {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Chdir(t.TempDir())
}

// HelpOffers fails t unless help (a command's --help output, for args)
// lists every flag of want and none of not: each command offers only the
// keys it reads.
func HelpOffers(t testing.TB, args []string, help string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(help, w+" ") {
			t.Errorf("%v lacks %s", args, w)
		}
	}
	for _, n := range not {
		if strings.Contains(help, n+" ") {
			t.Errorf("%v offers %s, a key it does not use", args, n)
		}
	}
}

// FreePort is a TCP port of 127.0.0.1 that was free a moment ago, for a
// server process a test starts.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// EveryCommandHasExamples walks a binary's commands from the root, by
// the "Available Commands:" of each --help, and fails t on any whose help
// has no Examples: section. help runs the binary with args and
// returns its standard output.
func EveryCommandHasExamples(t testing.TB, help func(args ...string) string) {
	t.Helper()
	var walk func(args []string)
	seen := 0
	walk = func(args []string) {
		out := help(args...)
		seen++
		if !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help has no Examples:", strings.Join(args[:len(args)-1], " "))
		}
		_, rest, ok := strings.Cut(out, "Available Commands:\n")
		if !ok {
			return
		}
		for _, line := range strings.Split(rest, "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				break
			}
			if f[0] != "help" && f[0] != "completion" {
				walk(append(append([]string{}, args[:len(args)-1]...), f[0], "--help"))
			}
		}
	}
	walk([]string{"--help"})
	if seen < 2 {
		t.Errorf("walked %d commands", seen)
	}
}

// VersionNames fails t unless out, what binary's --version printed, names
// the binary, the revision, the Go release and the table format.
func VersionNames(t testing.TB, binary, out string) {
	t.Helper()
	for _, want := range []string{binary + " ", "revision", "go1.", "tables     format "} {
		if !strings.Contains(out, want) {
			t.Errorf("--version lacks %q:\n%s", want, out)
		}
	}
}

// SyncBuffer is a writer that a test may read while a command's goroutines
// write it (its log, its standard output).
type SyncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Probe gets http://addr+path and returns the status and body; 0 and the
// error's text when nothing answered.
func Probe(addr, path string) (int, string) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + path)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// WaitProbe probes path on addr every 20 ms until it answers want, and
// returns how long that took; it fails t, with the last answer, after
// within.
func WaitProbe(t testing.TB, addr, path string, want int, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		code, body := Probe(addr, path)
		if code == want {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("%s answered %d %q for %v, want %d", path, code, body, within, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Gauge is the value of the sample named name (with its labels, if any)
// in a Prometheus text exposition, or NaN when absent.
func Gauge(exposition, name string) float64 {
	for _, l := range strings.Split(exposition, "\n") {
		if rest, ok := strings.CutPrefix(l, name+" "); ok {
			if v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64); err == nil {
				return v
			}
		}
	}
	return math.NaN()
}

// Sum is the sum of every sample of the metric name, whatever its labels
// (a counter by lane is the lanes' total), in a Prometheus text
// exposition, or NaN when there is none.
func Sum(exposition, name string) float64 {
	sum, seen := 0.0, false
	for _, l := range strings.Split(exposition, "\n") {
		rest, ok := strings.CutPrefix(l, name)
		if !ok || rest == "" || rest[0] != ' ' && rest[0] != '{' {
			continue // another metric whose name starts so
		}
		if rest[0] == '{' {
			_, rest, ok = strings.Cut(rest, "} ")
			if !ok {
				continue
			}
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64); err == nil {
			sum, seen = sum+v, true
		}
	}
	if !seen {
		return math.NaN()
	}
	return sum
}

// WaitFor polls ok every 10 ms until it holds, failing t when d passes
// first.
func WaitFor(t testing.TB, what string, d time.Duration, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
