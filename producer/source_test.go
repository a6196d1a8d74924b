package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

var eight = puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}

func TestReadLines(t *testing.T) {
	in := "# a corpus\n" +
		"1 2 3/4 5 6/7 8 0\r\n" + // 2: goal, CRLF
		"\n" + // 3: blank
		"   \t\n" + // 4: blank
		"8 6 7/2 5 4/3 0 1  # Korf-hard   \n" + // 5: comment after a state
		"hello world\n" + // 6: junk
		"1 2 3/4 5 6/8 7 0\n" + // 7: unsolvable
		"1 2 3/4 5 6/7 8\n" + // 8: missing tile
		"#1 2 3/4 5 6/7 8 0\n" + // 9: commented out
		"1,2,3/4,5,6/7,0,8" // 10: commas, no final newline
	lines, err := readLines(strings.NewReader(in), eight)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		no   int
		text string
		err  error
	}
	wants := []want{
		{2, "1 2 3/4 5 6/7 8 0", nil},
		{5, "8 6 7/2 5 4/3 0 1", nil},
		{6, "hello world", puzzle.ErrMalformed},
		{7, "1 2 3/4 5 6/8 7 0", puzzle.ErrUnsolvable},
		{8, "1 2 3/4 5 6/7 8", puzzle.ErrMalformed},
		{10, "1,2,3/4,5,6/7,0,8", nil},
	}
	if len(lines) != len(wants) {
		t.Fatalf("got %d lines %+v, want %d", len(lines), lines, len(wants))
	}
	for i, w := range wants {
		l := lines[i]
		if l.no != w.no || l.text != w.text || (w.err == nil) != (l.err == nil) || (w.err != nil && !errors.Is(l.err, w.err)) {
			t.Errorf("line %d: got %+v, want %+v", i, l, w)
		}
	}
}

func TestReadLinesTooLong(t *testing.T) {
	long := strings.Repeat("1", maxLine+10)
	lines, err := readLines(strings.NewReader("1 2 3/4 5 6/7 8 0\n"+long+"\n1 2 3/4 5 6/7 0 8\n"), eight)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || lines[1].no != 2 || !errors.Is(lines[1].err, errLineTooLong) || len(lines[1].text) > maxLine || lines[2].no != 3 || lines[2].err != nil {
		t.Fatalf("lines: %d, second %d %v", len(lines), lines[1].no, lines[1].err)
	}
}

// FuzzReadLines: any input reads without error; kept lines are in order,
// non-empty (or flagged), comment-free, and each bad one says why.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("1 2 3/4 5 6/7 8 0\n# c\n\njunk\r\n"))
	f.Add([]byte("\x00\xff#\n\n\n1 2"))
	f.Add([]byte("8 6 7/2 5 4/3 0 1 # x # y"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := readLines(bytes.NewReader(data), eight)
		if err != nil {
			t.Fatal(err)
		}
		prev := 0
		for _, l := range lines {
			if l.no <= prev || strings.ContainsAny(l.text, "#\n") || (l.text == "" && l.err == nil) {
				t.Fatalf("bad line %+v after %d", l, prev)
			}
			prev = l.no
			if _, perr := puzzle.Parse(eight, l.text); (perr == nil) != (l.err == nil) {
				t.Fatalf("line %+v: Parse says %v", l, perr)
			}
		}
		if n := bytes.Count(data, []byte("\n")) + 1; prev > n {
			t.Fatalf("line number %d past the %d lines", prev, n)
		}
	})
}

func collect(t *testing.T, s states) []string {
	t.Helper()
	var out []string
	if err := s.each(func(x string) error { out = append(out, x); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// Enumeration yields every state of the puzzle exactly once: the counts
// are the sizes of the state spaces, every state parses and is solvable,
// and none repeats.
func TestEnumerate(t *testing.T) {
	for _, c := range []struct {
		spec string
		want int
	}{
		{"sliding:2x2", 12},
		{"sliding:2x3", 360},
		{"loopover:2x2", 24},
		{"loopover:3x3", 181440},
		{"swap:2x2", 6},
		{"swap:3x4", 924},
	} {
		spec, err := puzzle.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		src, err := enumerateStates(spec, 1e6)
		if err != nil {
			t.Fatal(err)
		}
		got := collect(t, src)
		if len(got) != c.want {
			t.Errorf("%s: %d states, want %d", c.spec, len(got), c.want)
		}
		seen := make(map[string]bool, len(got))
		for _, s := range got {
			if seen[s] {
				t.Fatalf("%s: %q twice", c.spec, s)
			}
			seen[s] = true
			if _, err := puzzle.Parse(spec, s); err != nil {
				t.Fatalf("%s: %q: %v", c.spec, s, err)
			}
		}
	}
	if _, err := enumerateStates(puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}, 1e9); err == nil {
		t.Error("enumerating the 15-puzzle accepted")
	}
}

func TestNextPermutationMultiset(t *testing.T) {
	c := []uint8{0, 0, 1, 1}
	n := 1
	for nextPermutation(c) {
		n++
	}
	if n != 6 || !slices.Equal(c, []uint8{1, 1, 0, 0}) {
		t.Errorf("%d permutations, last %v", n, c)
	}
}

func TestRandomStatesDeterministic(t *testing.T) {
	a := collect(t, randomStates(eight, 50, 7))
	b := collect(t, randomStates(eight, 50, 7))
	c := collect(t, randomStates(eight, 50, 8))
	if !slices.Equal(a, b) || slices.Equal(a, c) || len(a) != 50 {
		t.Errorf("seed 7 twice: equal %v; seed 8: equal %v", slices.Equal(a, b), slices.Equal(a, c))
	}
	for _, s := range a {
		if _, err := puzzle.Parse(eight, s); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
	}
}

// A byte-order mark at the start of a corpus is dropped, not read into
// its first line.
func TestReadLinesBOM(t *testing.T) {
	for _, in := range []string{"\uFEFF1 2 3/4 5 6/7 8 0\n8 6 7/2 5 4/3 0 1\n", "\uFEFF# header\r\n1 2 3/4 5 6/7 8 0\r\n"} {
		lines, err := readLines(strings.NewReader(in), eight)
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) == 0 || lines[0].err != nil || lines[0].text != "1 2 3/4 5 6/7 8 0" {
			t.Errorf("%q: first state %+v", in, lines)
		}
	}
}

// A --file corpus streams: while its states are enqueued, the producer
// holds no more than a line or so of it, not the whole corpus.
func TestFileStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 36 MB corpus")
	}
	path := filepath.Join(t.TempDir(), "big.txt")
	const n = 2_000_000
	var b strings.Builder
	for i := range n {
		if i%7 == 3 {
			b.WriteString("junk\n") // bad lines are reported, not kept
		} else {
			b.WriteString("1 2 3/4 5 6/7 8 0\n")
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b = strings.Builder{} // not counted as the producer's
	src, file, err := (sourceRecord{File: path}).open(eight, false, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if src.total != n {
		t.Fatalf("total %d, want %d", src.total, n)
	}
	var seen int64
	var peak uint64
	err = src.each(func(text string) error {
		seen++
		if seen%(n/8) == 0 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			if file.cur.no != int(seen) || (text == "junk") != ((seen-1)%7 == 3) {
				t.Fatalf("state %d: line %d %q", seen, file.cur.no, text)
			}
		}
		return nil
	})
	if err != nil || seen != n {
		t.Fatalf("yielded %d states, err %v", seen, err)
	}
	if peak > 16<<20 {
		t.Errorf("%d MB live while enqueuing a 36 MB corpus: not streamed", peak>>20)
	}
}

// Stdin is spooled, so it too is counted, checked and then streamed; a
// file that changes between the two passes is an error, not a batch whose
// rows do not match its lines.
func TestCorpusStdinAndChange(t *testing.T) {
	in := "\uFEFF1 2 3/4 5 6/7 8 0\njunk\n\n8 6 7/2 5 4/3 0 1\n"
	var stderr strings.Builder
	src, file, err := (sourceRecord{File: "-"}).open(eight, false, strings.NewReader(in), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if got := collect(t, src); src.total != 3 || !slices.Equal(got, []string{"1 2 3/4 5 6/7 8 0", "junk", "8 6 7/2 5 4/3 0 1"}) {
		t.Errorf("total %d, states %q", src.total, got)
	}
	if !strings.Contains(stderr.String(), "-:2: ") {
		t.Errorf("stderr %q does not name line 2", stderr.String())
	}
	if _, _, err := (sourceRecord{File: "-"}).open(eight, true, strings.NewReader(in), io.Discard); !errors.Is(err, errBadLines) {
		t.Errorf("--strict on stdin: %v", err)
	}

	path := filepath.Join(t.TempDir(), "c.txt")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	src, file2, err := (sourceRecord{File: path}).open(eight, false, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer file2.Close()
	if err := os.WriteFile(path, []byte(in+"1 2 3/4 5 6/7 0 8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := src.each(func(string) error { return nil }); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("a corpus that grew between passes: %v", err)
	}
}

// readLines reads a whole corpus into memory (the product streams
// through scanLines).
func readLines(r io.Reader, spec puzzle.Spec) ([]line, error) {
	var out []line
	err := scanLines(r, &spec, func(l line) error { out = append(out, l); return nil })
	return out, err
}
