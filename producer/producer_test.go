package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

func runProducer(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

// output splits stdout into the batch id and the histogram.
func output(t *testing.T, stdout string) (batch int64, hist map[int]int64) {
	t.Helper()
	hist = map[int]int64{}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			t.Fatalf("stdout line %q", sc.Text())
		}
		if f[0] == "batch" {
			id, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			batch = id
			continue
		}
		l, err1 := strconv.Atoi(f[0])
		n, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("histogram line %q", sc.Text())
		}
		hist[l] = n
	}
	if batch == 0 {
		t.Fatalf("no batch line in %q", stdout)
	}
	return batch, hist
}

func openStore(t *testing.T, url string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--random", "5"}, // no puzzle
		{"--puzzle", "8"}, // no source
		{"--puzzle", "8", "--random", "5", "--enumerate"}, // two sources
		{"--puzzle", "cube:3x3", "--random", "5"},
		{"--puzzle", "8", "--random", "-3"},
		{"--puzzle", "8", "--random", "5", "--mode", "quick"},
		{"--puzzle", "15", "--enumerate"},
		{"--nope"},
		{"extra-arg"},
	} {
		if code, _, stderr := runProducer(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitUsage, stderr)
		}
	}
}

// Random states through the whole in-process pipeline: every state gets a
// solved row, and the histogram printed covers them all.
func TestLocalRandom(t *testing.T) {
	url := storetest.SchemaURL(t)
	code, stdout, stderr := runProducer(t, "--local", "-q", "--puzzle", "8", "--random", "3000", "--seed", "1", "--database-url", url)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	batch, hist := output(t, stdout)
	var sum int64
	for _, n := range hist {
		sum += n
	}
	if sum != 3000 {
		t.Errorf("histogram counts %d states, want 3000", sum)
	}
	b, err := openStore(t, url).BatchProgress(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	if b.Total != 3000 || b.Solved != 3000 || !b.Finished() {
		t.Errorf("batch %+v", b)
	}
}

// Enumerating the 8-puzzle (all 181,440 states) and solving every state
// optimally must store one row per state, distance counts equal to the
// published 3×3 table (BFS), and move strings that all replay to the goal.
func TestLocalEnumerateMatchesBFS(t *testing.T) {
	url := storetest.SchemaURL(t)
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}
	code, stdout, stderr := runProducer(t, "--local", "-q", "--puzzle", spec.String(), "--enumerate", "--database-url", url)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	batch, hist := output(t, stdout)
	table, err := fulltable.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, n := range table.Counts {
		total += n
	}
	if total != 181440 {
		t.Fatalf("BFS table has %d states", total)
	}
	st := openStore(t, url)
	d, err := st.BatchDistribution(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	if d.Total != total || len(d.Counts) != len(table.Counts) || len(hist) != len(table.Counts) {
		t.Fatalf("stored %d states in %d lengths, printed %d lengths; BFS has %d in %d", d.Total, len(d.Counts), len(hist), total, len(table.Counts))
	}
	for _, c := range d.Counts {
		if want := table.Counts[c.Length]; c.Count != want || hist[c.Length] != want {
			t.Errorf("length %d: distance_counts %d, printed %d, BFS %d", c.Length, c.Count, hist[c.Length], want)
		}
	}
	// Every row replays to the goal in exactly its BFS distance.
	var buf bytes.Buffer
	if err := st.Export(context.Background(), batch, &buf, store.FormatJSONL); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&buf)
	rows := int64(0)
	for dec.More() {
		var s store.Solution
		if err := dec.Decode(&s); err != nil {
			t.Fatal(err)
		}
		rows++
		if s.Status != "solved" || s.Moves == nil || s.Length == nil || !s.Optimal {
			t.Fatalf("seq %d: %+v", s.Seq, s)
		}
		x, err := puzzle.Parse(spec, s.State)
		if err != nil {
			t.Fatalf("seq %d state %q: %v", s.Seq, s.State, err)
		}
		if err := puzzle.Verify(x, *s.Moves); err != nil {
			t.Fatalf("seq %d: stored moves do not replay: %v", s.Seq, err)
		}
		if want, _ := table.Distance(x.Cells); *s.Length != want {
			t.Fatalf("seq %d: length %d, BFS distance %d", s.Seq, *s.Length, want)
		}
	}
	if rows != total {
		t.Errorf("%d solution rows, want %d", rows, total)
	}
}

// A corpus with junk: every kept line ends as exactly one row, bad ones
// reported with their line numbers and recorded with a status that says
// why; the pipeline keeps going.
func TestLocalFileWithJunk(t *testing.T) {
	url := storetest.SchemaURL(t)
	corpus := strings.Join([]string{
		"# test corpus",                // 1
		"1 2 3/4 5 6/7 8 0",            // 2 seq 0: goal
		"",                             // 3
		"8 6 7/2 5 4/3 0 1",            // 4 seq 1: 31 moves
		"hello",                        // 5 seq 2: junk
		"1 2 3/4 5 6/8 7 0",            // 6 seq 3: unsolvable
		"1 2 3/4 5 6/7 8 8",            // 7 seq 4: duplicate tile
		"\xff\xfe 1 2",                 // 8 seq 5: not UTF-8
		"1 2 3/4 5 6/7 0 8 # one move", // 9 seq 6
	}, "\n")
	path := corpusFile(t, corpus)
	stdout, stderr := runLocal(t, url, path)
	for _, no := range []int{5, 6, 7, 8} {
		if !strings.Contains(stderr, fmt.Sprintf("%s:%d: ", path, no)) {
			t.Errorf("line %d not reported: %s", no, stderr)
		}
	}
	batch, hist := output(t, stdout)
	if hist[0] != 1 || hist[31] != 1 || hist[1] != 1 {
		t.Errorf("histogram %v", hist)
	}
	var buf bytes.Buffer
	if err := openStore(t, url).Export(context.Background(), batch, &buf, store.FormatJSONL); err != nil {
		t.Fatal(err)
	}
	want := []string{"solved", "solved", "invalid", "unsolvable", "invalid", "invalid", "solved"}
	var got []string
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var s store.Solution
		if err := dec.Decode(&s); err != nil {
			t.Fatal(err)
		}
		if s.Seq != int64(len(got)) {
			t.Fatalf("row seq %d, want %d", s.Seq, len(got))
		}
		got = append(got, s.Status)
		if s.Status != "solved" && (s.Error == nil || *s.Error == "") {
			t.Errorf("seq %d %s without a reason", s.Seq, s.Status)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}

// corpusFile writes corpus to a file of t's and returns its path.
func corpusFile(t *testing.T, corpus string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "corpus.txt")
	if err := os.WriteFile(path, []byte(corpus), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runLocal enqueues the 8-puzzle states of file path with --local into
// the database at url, and fails t unless the producer exits 0.
func runLocal(t *testing.T, url, path string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := runProducer(t, "--local", "-q", "--puzzle", "8", "--file", path, "--database-url", url)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return stdout, stderr
}

func TestStrictEnqueuesNothing(t *testing.T) {
	url := storetest.SchemaURL(t)
	path := corpusFile(t, "1 2 3/4 5 6/7 8 0\njunk\n")
	code, stdout, stderr := runProducer(t, "--strict", "--puzzle", "8", "--file", path, "--database-url", url,
		"--nats-url", "nats://127.0.0.1:1") // never reached
	if code != exitError || stdout != "" || !strings.Contains(stderr, path+":2: ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := openStore(t, url)
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if bs, err := st.Batches(ctx, 10); err != nil || len(bs) != 0 {
		t.Errorf("batches after --strict: %v, %v", bs, err)
	}
}

// Swap boards flow through the pipeline like the others, towards an
// explicit goal when one is given; every stored answer replays to it.
func TestLocalSwapWithGoal(t *testing.T) {
	url := storetest.SchemaURL(t)
	spec := puzzle.Spec{Kind: puzzle.Swap, Rows: 6, Cols: 6}
	const goal = "101010/010101/101010/010101/101010/010101" // 18 ones, as random half-ones boards
	code, stdout, stderr := runProducer(t, "--local", "-q", "--puzzle", "swap:6x6", "--random", "200", "--seed", "3",
		"--goal", goal, "--database-url", url)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	batch, _ := output(t, stdout)
	var buf bytes.Buffer
	if err := openStore(t, url).Export(context.Background(), batch, &buf, store.FormatJSONL); err != nil {
		t.Fatal(err)
	}
	g, err := puzzle.Parse(spec, goal)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for dec := json.NewDecoder(&buf); dec.More(); rows++ {
		var s store.Solution
		if err := dec.Decode(&s); err != nil {
			t.Fatal(err)
		}
		x, err := puzzle.Parse(spec, s.State)
		if err != nil || s.Status != "solved" || s.Moves == nil || !s.Optimal {
			t.Fatalf("seq %d: %+v %v", s.Seq, s, err)
		}
		if err := puzzle.VerifyTo(x, *s.Moves, g); err != nil {
			t.Fatalf("seq %d: %v", s.Seq, err)
		}
	}
	if rows != 200 {
		t.Errorf("%d rows", rows)
	}
	if code, _, _ := runProducer(t, "--local", "-q", "--puzzle", "8", "--random", "1", "--goal", "1 2 3/4 5 6/7 8 0", "--database-url", url); code != exitUsage {
		t.Errorf("--goal on a sliding puzzle: exit %d, want usage", code)
	}
}

// Loopover jobs flow through the pipeline like sliding ones: 4×4 states
// are solved optimally and counted, 6×6 states (constructive answers, not
// proved optimal) are stored and replay but stay out of the distribution.
func TestLocalLoopover(t *testing.T) {
	url := storetest.SchemaURL(t)
	for _, tc := range []struct {
		spec    string
		n       int
		optimal bool
	}{{"loopover:4x4", 12, true}, {"loopover:6x6", 200, false}} {
		code, stdout, stderr := runProducer(t, "--local", "-q", "--puzzle", tc.spec, "--random", strconv.Itoa(tc.n), "--seed", "7", "--database-url", url)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.spec, code, stderr)
		}
		batch, hist := output(t, stdout)
		var counted int64
		for _, n := range hist {
			counted += n
		}
		if tc.optimal && counted != int64(tc.n) || !tc.optimal && counted != 0 {
			t.Errorf("%s: the distribution counts %d states", tc.spec, counted)
		}
		st := openStore(t, url)
		var buf bytes.Buffer
		if err := st.Export(context.Background(), batch, &buf, store.FormatJSONL); err != nil {
			t.Fatal(err)
		}
		spec, _ := puzzle.ParseSpec(tc.spec)
		rows := 0
		for dec := json.NewDecoder(&buf); dec.More(); rows++ {
			var s store.Solution
			if err := dec.Decode(&s); err != nil {
				t.Fatal(err)
			}
			if s.Status != "solved" || s.Moves == nil || s.Optimal != tc.optimal {
				t.Fatalf("%s seq %d: %+v", tc.spec, s.Seq, s)
			}
			x, err := puzzle.Parse(spec, s.State)
			if err != nil {
				t.Fatal(err)
			}
			if err := puzzle.Verify(x, *s.Moves); err != nil {
				t.Fatalf("%s seq %d: stored moves do not replay: %v", tc.spec, s.Seq, err)
			}
		}
		if rows != tc.n {
			t.Errorf("%s: %d rows, want %d", tc.spec, rows, tc.n)
		}
	}
}

// Lines too long for a job message do not fail the whole enqueue: a
// valid board written long-hand is enqueued compact, junk of megabytes is
// an invalid row naming its line, and the rest of the corpus is solved.
func TestLocalOversizedLines(t *testing.T) {
	url := storetest.SchemaURL(t)
	// swap:512x512 with spaces between cells: 512 KB compact, 1 MB long-hand.
	row := strings.TrimSpace(strings.Repeat("1 0 ", 256))
	rows := make([]string, 512)
	for i := range rows {
		rows[i] = row
	}
	corpus := strings.Join([]string{
		"1 2 3/4 5 6/7 8 0", // seq 0
		strings.Repeat("7", 3<<20),
		"1 2 3/4 5 6/7 0 8", // seq 2
	}, "\n")
	path := corpusFile(t, corpus)
	stdout, stderr := runLocal(t, url, path)
	if !strings.Contains(stderr, path+":2: ") || !strings.Contains(stderr, "not enqueued") {
		t.Errorf("line 2 not reported: %s", stderr)
	}
	batch, hist := output(t, stdout)
	if hist[0] != 1 || hist[1] != 1 {
		t.Errorf("histogram %v", hist)
	}
	p, err := openStore(t, url).BatchProgress(context.Background(), batch)
	if err != nil || p.Done != 3 || p.Invalid != 1 || !p.Finished() {
		t.Errorf("progress %+v %v", p, err)
	}

	big := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(big, []byte(strings.Join(rows, "/")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runProducer(t, "--local", "-q", "--puzzle", "swap:512x512", "--file", big, "--database-url", url)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	batch, _ = output(t, stdout)
	if p, err := openStore(t, url).BatchProgress(context.Background(), batch); err != nil || p.Done != 1 || p.Invalid != 0 || !p.Finished() {
		t.Errorf("long-hand board: progress %+v %v", p, err)
	}
}
