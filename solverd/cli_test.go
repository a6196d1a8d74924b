package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/testenv"
)

func solverd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(stdin), &o, &e)
	return code, o.String(), e.String()
}

func results(t *testing.T, stdout string) []result.Result {
	t.Helper()
	var out []result.Result
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 16<<20) // answers echo their state, which may be megabytes
	for sc.Scan() {
		var r result.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

// `solverd bfs` must print exactly the published distributions (OEIS
// A089473, A090034, A090035, A090036; copied into the bfs package's
// testdata, which its own test checks against the shared data file).
func TestBFSPublished(t *testing.T) {
	for _, tc := range []struct{ puzzle, file string }{
		{"8", "sliding-3x3.txt"},
		{"sliding:2x3", "sliding-2x3.txt"},
		{"sliding:2x4", "sliding-2x4.txt"},
		{"sliding:2x5", "sliding-2x5.txt"},
		{"sliding:5x2", "sliding-2x5.txt"}, // a transposed board has the same counts
	} {
		want, err := os.ReadFile(filepath.Join("..", "internal", "fulltable", "testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := solverd(t, "", "bfs", "--puzzle", tc.puzzle)
		if code != exitOK {
			t.Fatalf("bfs %s: exit %d: %s", tc.puzzle, code, stderr)
		}
		if stdout != string(want) {
			t.Errorf("bfs %s:\n%s\nwant\n%s", tc.puzzle, stdout, want)
		}
	}
}

func TestSolveArgsAndExitCodes(t *testing.T) {
	code, stdout, stderr := solverd(t, "", "solve", "-p", "8",
		"8 7 6/5 4 3/2 1 0", // 30 moves
		"1 2 3/4 5 6/8 7 0", // odd permutation
		"1 2 3/4 5 6/7 8",   // too few cells
		"1 2 3/4 5 6/7 0 8", // one move
	)
	if code != exitRejected {
		t.Fatalf("exit %d, want %d (some rejected): %s", code, exitRejected, stderr)
	}
	rs := results(t, stdout)
	if len(rs) != 4 {
		t.Fatalf("%d results, want one per state:\n%s", len(rs), stdout)
	}
	want := []struct {
		status result.Status
		length int
	}{{result.StatusSolved, 30}, {result.StatusUnsolvable, 0}, {result.StatusInvalid, 0}, {result.StatusSolved, 1}}
	for i, w := range want {
		r := rs[i]
		if r.Status != w.status || r.Length != w.length {
			t.Errorf("state %d: %s length %d, want %s %d (%s)", i+1, r.Status, r.Length, w.status, w.length, r.Error)
		}
		if r.Status == result.StatusSolved {
			st, err := puzzle.Parse(puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}, r.State)
			if err != nil {
				t.Fatal(err)
			}
			if err := puzzle.Verify(st, r.Moves); err != nil || !r.Optimal || r.LowerBound != r.Length {
				t.Errorf("state %d: %+v: %v", i+1, r, err)
			}
		}
	}
	// Each rejection names its line and its reason, once.
	for _, s := range []string{"line 2: unsolvable: 3x3 sliding (odd width) needs an even number of inversions", "line 3: "} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	if strings.Contains(stderr, "unsolvable: unsolvable") || strings.Contains(stderr, "line 1:") {
		t.Errorf("stderr:\n%s", stderr)
	}

	code, _, stderr = solverd(t, "", "solve", "-p", "8", "1 2 3/4 5 6/7 0 8")
	if code != exitOK {
		t.Errorf("all solved: exit %d: %s", code, stderr)
	}
}

// Lines come from stdin when there are no arguments; blank lines and
// comments are skipped but still count for line numbers, and output keeps
// input order even though states are solved in parallel.
func TestSolveStdinOrder(t *testing.T) {
	in := "# corpus\n1 2 3/4 5 6/7 8 0\n\n8 6 7/2 5 4/3 0 1\njunk\n1 2 3/4 5 6/7 0 8\n"
	code, stdout, stderr := solverd(t, in, "solve", "-p", "sliding:3x3", "--workers", "3")
	if code != exitRejected {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rs := results(t, stdout)
	lengths := []int{0, 31, 0, 1}
	if len(rs) != len(lengths) {
		t.Fatalf("%d results:\n%s", len(rs), stdout)
	}
	for i, l := range lengths {
		if rs[i].Length != l {
			t.Errorf("result %d length %d, want %d", i, rs[i].Length, l)
		}
	}
	if rs[2].Status != result.StatusInvalid || !strings.Contains(stderr, "line 5: ") {
		t.Errorf("junk on line 5: %+v, stderr %s", rs[2], stderr)
	}
}

func TestSolveBudgetAndFast(t *testing.T) {
	// Korf #1 is 57 moves; 1000 nodes prove only a lower bound.
	const korf1 = "13 6 8 12/15 14 0 10/11 7 4 5/9 1 3 2"
	code, stdout, _ := solverd(t, "", "solve", "-p", "15", "--budget-nodes", "1000", korf1)
	rs := results(t, stdout)
	if code != exitRejected || len(rs) != 1 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	r := rs[0]
	if r.Status != result.StatusBudgetExceeded || r.Moves != "" || r.LowerBound < 41 || r.LowerBound > 57 || r.Nodes < 1000 {
		t.Errorf("budget: %+v", r)
	}
	code, stdout, stderr := solverd(t, "", "solve", "-p", "15", "--mode", "fast", korf1)
	rs = results(t, stdout)
	if code != exitOK || len(rs) != 1 || rs[0].Optimal || rs[0].Length < 57 {
		t.Fatalf("fast: exit %d %+v %s", code, rs, stderr)
	}
	st, _ := puzzle.Parse(puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}, korf1)
	if err := puzzle.Verify(st, rs[0].Moves); err != nil {
		t.Error(err)
	}
}

func TestSwap(t *testing.T) {
	// The seed's example: 8 swaps.
	code, stdout, stderr := solverd(t, "", "solve", "-p", "swap:4x4", "1101/0110/0100/1010")
	rs := results(t, stdout)
	if code != exitOK || len(rs) != 1 || rs[0].Length != 8 || !rs[0].Optimal {
		t.Fatalf("exit %d %+v %s", code, rs, stderr)
	}
	// An explicit goal, then the verify command on the answer.
	code, stdout, stderr = solverd(t, "", "solve", "-p", "swap:3x3", "--goal", "000/010/000", "100/000/000")
	rs = results(t, stdout)
	if code != exitOK || len(rs) != 1 || rs[0].Length != 2 {
		t.Fatalf("goal: exit %d %+v %s", code, rs, stderr)
	}
	if code, _, stderr := solverd(t, "", "verify", "-p", "swap:3x3", "--goal", "000/010/000", "100/000/000", rs[0].Moves); code != exitOK {
		t.Errorf("verify with goal: exit %d %s", code, stderr)
	}
	// A goal with another number of ones is an invalid state, not a crash.
	code, stdout, _ = solverd(t, "", "solve", "-p", "swap:3x3", "--goal", "000/011/000", "100/000/000")
	if rs = results(t, stdout); code != exitRejected || rs[0].Status != result.StatusInvalid || !strings.Contains(rs[0].Error, "ones") {
		t.Errorf("goal with 2 ones: exit %d %+v", code, rs)
	}
	if code, _, _ := solverd(t, "", "solve", "-p", "8", "--goal", "1 2 3/4 5 6/7 8 0", "1 2 3/4 5 6/7 8 0"); code != exitUsage {
		t.Errorf("--goal on a sliding puzzle: exit %d, want usage", code)
	}
}

func TestVerify(t *testing.T) {
	if code, stdout, stderr := solverd(t, "", "verify", "-p", "8", "1 2 3/4 5 6/0 7 8", "L L"); code != exitOK || !strings.Contains(stdout, "ok: 2 moves") {
		t.Errorf("exit %d %s %s", code, stdout, stderr)
	}
	if code, _, stderr := solverd(t, "", "verify", "-p", "8", "1 2 3/4 5 6/0 7 8", "L"); code != exitRejected || !strings.Contains(stderr, "not the goal") {
		t.Errorf("one move short: exit %d %s", code, stderr)
	}
	if code, _, stderr := solverd(t, "", "verify", "-p", "8", "1 2 3/4 5 6/0 7 8", "R"); code != exitRejected || stderr == "" {
		t.Errorf("illegal move: exit %d %s", code, stderr)
	}
	if code, _, _ := solverd(t, "", "verify", "-p", "8", "1 2 3/4 5 6/0 7 8"); code != exitUsage {
		t.Errorf("missing MOVES: exit %d", code)
	}
}

func TestScramble(t *testing.T) {
	code, a, _ := solverd(t, "", "scramble", "-p", "15", "--count", "5", "--seed", "7")
	_, b, _ := solverd(t, "", "scramble", "-p", "15", "--count", "5", "--seed", "7")
	if code != exitOK || a != b || strings.Count(a, "\n") != 5 {
		t.Fatalf("exit %d, not deterministic or wrong count:\n%s\n%s", code, a, b)
	}
	sp := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	for _, line := range strings.Split(strings.TrimSpace(a), "\n") {
		if _, err := puzzle.Parse(sp, line); err != nil {
			t.Errorf("scramble %q: %v", line, err)
		}
	}
	// Random walks of 3 moves are at most 3 from the goal.
	_, w, _ := solverd(t, "", "scramble", "-p", "8", "-n", "20", "--seed", "1", "--walk", "3")
	code, stdout, stderr := solverd(t, w, "solve", "-p", "8")
	if code != exitOK {
		t.Fatalf("solve walks: exit %d %s", code, stderr)
	}
	for _, r := range results(t, stdout) {
		if r.Length > 3 || r.Length%2 != 1 {
			t.Errorf("walk of 3 solved in %d moves", r.Length)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nosuch"},
		{"solve", "1 2 3/4 5 6/7 8 0"},         // no --puzzle
		{"solve", "-p", "sliding:9x9", "x"},    // too big
		{"solve", "-p", "8", "--mode", "slow"}, // bad mode
		{"solve", "-p", "8", "--budget-nodes", "x"}, // bad flag value
		{"solve", "-p", "8", "--threads", "-1", "1 2 3/4 5 6/7 0 8"},
		{"bfs", "-p", "sliding:4x4"},
		{"scramble", "-p", "8", "--count", "-1"},
	} {
		code, _, stderr := solverd(t, "", args...)
		want := exitUsage
		if len(args) == 0 {
			want = exitOK // help
		}
		if len(args) == 2 && args[0] == "bfs" || len(args) == 3 && args[0] == "bfs" {
			want = exitRejected // a valid request the command cannot do
		}
		if code != want {
			t.Errorf("%q: exit %d, want %d (%s)", args, code, want, stderr)
		}
	}
}

// A line over 64 KiB (bufio.Scanner's limit) does not stop `solve`: a
// long line is read (a big board written long-hand), one over the cap is answered invalid with the
// reason, and every line after it is still answered, in order.
func TestSolveStdinLongLines(t *testing.T) {
	in := "1 2 3/4 5 6/7 8 0\n" + strings.Repeat("x", 100<<10) + "\n" + strings.Repeat("y", 5<<20) + "\n1 2 3/4 5 6/7 0 8\n"
	code, stdout, stderr := solverd(t, in, "solve", "-p", "sliding:3x3", "--workers", "2")
	if code != exitRejected {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rs := results(t, stdout)
	if len(rs) != 4 {
		t.Fatalf("%d results, want 4; stderr %s", len(rs), stderr[:min(len(stderr), 500)])
	}
	want := []result.Status{result.StatusSolved, result.StatusInvalid, result.StatusInvalid, result.StatusSolved}
	for i, w := range want {
		if rs[i].Status != w {
			t.Errorf("result %d: %s, want %s", i, rs[i].Status, w)
		}
	}
	// The line number is said once, not "line 3: line 3: …".
	if !strings.Contains(rs[2].Error, "line longer than") || !strings.Contains(stderr, "line 3: line longer than") ||
		strings.Contains(stderr, "line 3: line 3") {
		t.Errorf("over-long line: %q; stderr %q", rs[2].Error, stderr[:min(len(stderr), 500)])
	}
}

// A byte-order mark before the first state is dropped, as the producer
// drops it.
func TestSolveStdinBOM(t *testing.T) {
	for _, in := range []string{"\uFEFF1 2 3/4 5 6/7 8 0\n8 6 7/2 5 4/3 0 1\n", "\uFEFF# header\r\n1 2 3/4 5 6/7 8 0\r\n"} {
		code, stdout, stderr := solverd(t, in, "solve", "-p", "8")
		if rs := results(t, stdout); code != exitOK || len(rs) == 0 || rs[0].State != "1 2 3/4 5 6/7 8 0" {
			t.Errorf("%q: exit %d, %+v, stderr %s", in, code, rs, stderr)
		}
	}
}

// solve's settings are keys too — TESSERA_SOLVER_MODE and
// TESSERA_SOLVER_MAX_NODES apply as --mode and --budget-nodes do (a flag
// still wins) — and each command lists only the keys it reads.
func TestSolveReadsKeysAndHelpListsOwn(t *testing.T) {
	const korf1 = "13 6 8 12/15 14 0 10/11 7 4 5/9 1 3 2"
	t.Setenv("TESSERA_SOLVER_MODE", "fast")
	code, stdout, stderr := solverd(t, "", "solve", "-p", "15", korf1)
	if rs := results(t, stdout); code != exitOK || len(rs) != 1 || rs[0].Optimal {
		t.Fatalf("TESSERA_SOLVER_MODE=fast ignored: exit %d %s %s", code, stdout, stderr)
	}
	t.Setenv("TESSERA_SOLVER_MODE", "optimal")
	t.Setenv("TESSERA_SOLVER_MAX_NODES", "1000")
	code, stdout, _ = solverd(t, "", "solve", "-p", "15", korf1)
	if rs := results(t, stdout); code != exitRejected || len(rs) != 1 || rs[0].Status != result.StatusBudgetExceeded {
		t.Fatalf("TESSERA_SOLVER_MAX_NODES ignored: exit %d %s", code, stdout)
	}
	t.Setenv("TESSERA_SOLVER_MODE", "bogus")
	if code, _, stderr := solverd(t, "", "solve", "-p", "8", "1 2 3/4 5 6/7 0 8"); code != exitUsage || !strings.Contains(stderr, "solver.mode") {
		t.Errorf("bad solver.mode: exit %d %s", code, stderr)
	}
	// ... which does not concern the commands that do not solve.
	if code, _, stderr := solverd(t, "", "tables", "list", "--tables-dir", t.TempDir()); code != exitOK {
		t.Errorf("tables list with a bad solver.mode: exit %d %s", code, stderr)
	}

	for _, tc := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"solve", "--help"}, []string{"--mode", "--budget-nodes", "--timeout", "--tables-dir", "--threads"},
			[]string{"--nats-url", "--database-url", "--fetch-batch", "--metrics-addr", "--chunk-size"}},
		{[]string{"run", "--help"}, []string{"--nats-url", "--workers", "--quick-workers", "--metrics-addr", "--metrics-token", "--tables-bucket"},
			[]string{"--database-url", "--fetch-batch", "--http-addr", "--chunk-size"}},
		{[]string{"queue", "apply", "--help"}, []string{"--nats-url", "--nats-max-deliver", "--nats-replicas", "--tables-bucket"}, []string{"--workers", "--database-url", "--tables-dir"}},
		{[]string{"queue", "status", "--help"}, []string{"--nats-url", "--json", "--tables-bucket"}, []string{"--workers", "--database-url", "--tables-dir"}},
		{[]string{"run", "--help"}, []string{"--nats-replicas"}, nil},
		{[]string{"tables", "build", "--help"}, []string{"--tables-dir"}, []string{"--nats-url", "--workers", "--database-url", "--mode"}},
		{[]string{"tables", "push", "--help"}, []string{"--tables-dir", "--tables-bucket", "--nats-url"}, []string{"--workers", "--database-url"}},
		{[]string{"bfs", "--help"}, nil, []string{"--nats-url", "--workers", "--tables-dir"}},
	} {
		code, out, e := solverd(t, "", tc.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, e)
		}
		testenv.HelpOffers(t, tc.args, out, tc.want, tc.not)
	}
}

// `solverd solve` gives every state the pipeline's default budget (a 5×5
// Loopover would otherwise run until killed), which only limits when the user named no budget, and its
// --help shows the table.
func TestSolveDefaultBudget(t *testing.T) {
	l55 := puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
	for _, c := range []struct {
		name    string
		mode    result.Mode
		in      config.Solver
		timeout time.Duration
		ceiling bool
	}{
		{"none named", result.ModeOptimal, config.Solver{}, 30 * time.Minute, true},
		{"fast, none named", result.ModeFast, config.Solver{}, 10 * time.Second, true},
		{"timeout named", result.ModeOptimal, config.Solver{Timeout: 2 * time.Second}, 2 * time.Second, false},
		{"nodes named", result.ModeFast, config.Solver{MaxNodes: 1000}, 10 * time.Second, false},
	} {
		got := solveBudget(c.in, l55, c.mode)
		ceiling := got.Origin != search.OriginChosen
		if got.Timeout != c.timeout || ceiling != c.ceiling || got.MaxNodes != c.in.MaxNodes {
			t.Errorf("%s: timeout %v ceiling %v, want %v %v", c.name, got.Timeout, ceiling, c.timeout, c.ceiling)
		}
	}
	_, stdout, _ := solverd(t, "", "solve", "--help")
	if !regexp.MustCompile(`loopover 5x5\s+30m0s\s+10s`).MatchString(stdout) {
		t.Errorf("solve --help has no default-budget table:\n%s", stdout)
	}
}

// solve --help says which inputs it takes (rows, or a flat line of all
// cells) and what its exit status means; the flat form of its example
// must really parse.
func TestSolveHelpFormatsAndExit(t *testing.T) {
	_, stdout, _ := solverd(t, "", "solve", "--help")
	for _, want := range []string{"row-major", "16 numbers", "byte-order mark", "Exit status: 0", "1 some state", "2 usage error", "Examples:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("solve --help lacks %q", want)
		}
	}
	code, out, stderr := solverd(t, "", "solve", "-p", "8", "8 6 7 2 5 4 3 0 1")
	if rs := results(t, out); code != exitOK || len(rs) != 1 || rs[0].Length != 31 {
		t.Errorf("flat 8-puzzle: exit %d %+v %s", code, rs, stderr)
	}
}

// --tables-bucket's help says that tables push and pull use
// tessera-tables when it is empty (not "never pull").
func TestTablesBucketHelpTellsDefault(t *testing.T) {
	_, stdout, _ := solverd(t, "", "tables", "push", "--help")
	if !strings.Contains(stdout, "tessera-tables when empty") || strings.Contains(stdout, "never pull") {
		t.Errorf("--tables-bucket help:\n%s", stdout)
	}
}

// Without its table a 5×5 Loopover in fast mode falls back to a
// four-piece phase 1 and says so, naming the table to build, as the
// 15-puzzle does.
func TestSolveNamesMissingOptionalTable(t *testing.T) {
	dir := t.TempDir()
	const state = "19 3 7 25 18/6 20 5 11 10/15 14 24 16 4/22 12 2 17 21/9 8 13 1 23"
	_, _, stderr := solverd(t, "", "solve", "-p", "loopover:5x5", "--mode", "fast", "--timeout", "100ms", "--tables-dir", dir, state)
	if strings.Count(stderr, "solverd tables build loopover-5x5-p7") != 1 {
		t.Errorf("no notice naming the table:\n%s", stderr)
	}
	_, _, stderr = solverd(t, "", "solve", "-p", "loopover:5x5", "--mode", "fast", "--timeout", "100ms", "--tables-dir", dir, "--tables", "none", state)
	if strings.Contains(stderr, "tables build") {
		t.Errorf("--tables none, yet:\n%s", stderr)
	}
	_, _, stderr = solverd(t, "", "solve", "-p", "8", "--tables-dir", dir, "1 2 3/4 5 6/7 0 8")
	if strings.Contains(stderr, "tables build") {
		t.Errorf("an 8-puzzle, yet:\n%s", stderr)
	}
}

// config show names the file it read and each key's source, the file's,
// a variable's and a flag's over the default's.
func TestConfigShow(t *testing.T) {
	testenv.ClearConfigEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "tessera.yaml")
	if err := os.WriteFile(file, []byte("solver:\n  mode: fast\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TESSERA_CONFIG", file)
	t.Setenv("TESSERA_SOLVER_THREADS", "2")
	code, out, stderr := solverd(t, "", "config", "show", "--workers", "3")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"# config file " + file + " (from TESSERA_CONFIG)", "file " + file,
		"env TESSERA_SOLVER_THREADS", "flag --workers", "producer.priority"} {
		if !strings.Contains(out, want) {
			t.Errorf("config show lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case f[0] == "solver.mode" && (f[1] != "fast" || f[2] != "file"):
			t.Errorf("solver.mode: %q", line)
		case f[0] == "solver.threads" && f[1] != "2":
			t.Errorf("solver.threads: %q", line)
		case f[0] == "nats.url" && f[len(f)-1] != "default":
			t.Errorf("nats.url: %q", line)
		}
	}
}
