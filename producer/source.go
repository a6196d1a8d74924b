package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// states is an input corpus: its size when known up front, and an
// iterator over the state texts in batch order (seq 0, 1, …).
type states struct {
	total int64 // -1 when unknown until the end
	each  func(yield func(text string) error) error
}

// line is one non-blank, non-comment line of a --file corpus.
type line struct {
	no   int    // 1-based line number in the file
	text string // trimmed, comment removed
	err  error  // why the line is not a solvable state of the puzzle; nil if it is
}

// maxLine bounds one line of a corpus. A 1000×1000 swap board is about
// 1 MiB of text; anything much longer is junk, recorded truncated.
const maxLine = 4 << 20

// errLineTooLong marks a line cut at maxLine.
var errLineTooLong = errors.New("line too long")

// scanLines reads a corpus: one state per line, blank lines skipped, '#'
// starts a comment (it cannot occur in a state). Every other line is
// passed to fn, in order, one at a time, with the reason it is not a
// solvable state of *spec, if any (spec nil: only a line too long is
// flagged, the caller parses).
func scanLines(r io.Reader, spec *puzzle.Spec, fn func(line) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for no := 1; ; no++ {
		text, tooLong, err := readLine(br)
		if err != nil && err != io.EOF {
			return fmt.Errorf("line %d: %w", no, err)
		}
		if err == io.EOF && text == "" && !tooLong {
			return nil
		}
		if no == 1 {
			// A byte-order mark (Windows editors write one) is not part of
			// the first state.
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text != "" || tooLong {
			l := line{no: no, text: text}
			if tooLong {
				l.err = fmt.Errorf("%w: longer than %d bytes: %w", errLineTooLong, maxLine, puzzle.ErrMalformed)
			} else if spec != nil {
				if _, perr := puzzle.Parse(*spec, text); perr != nil {
					l.err = perr
				}
			}
			if ferr := fn(l); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// readLine returns the next line without its line ending; a line longer
// than maxLine is truncated (the rest is skipped) and flagged.
func readLine(br *bufio.Reader) (string, bool, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) <= maxLine {
			buf = append(buf, chunk...)
		} else {
			tooLong = true
			buf = append(buf, chunk[:max(0, maxLine-len(buf))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		s := strings.TrimRight(string(buf), "\r\n")
		if err == io.EOF && len(buf) == 0 {
			return "", false, io.EOF
		}
		return s, tooLong, err
	}
}

// corpus is a --file read in two passes over one open file, so that
// memory does not grow with it (a 400 MB corpus once took 817 MB): the
// first pass counts the lines and reports the bad ones, the second yields
// them as the jobs are published. Stdin is spooled to an unlinked
// temporary file first, as it cannot be read twice.
type corpus struct {
	name  string // for messages: the path, or "stdin"
	f     *os.File
	lines int64 // kept lines, from the first pass
	cur   line  // the line being yielded by the second pass (its err only if too long)
}

// openCorpus opens path ("-": stdin, spooled).
func openCorpus(path string, stdin io.Reader) (*corpus, error) {
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("read corpus: %w", err)
		}
		return &corpus{name: path, f: f}, nil
	}
	f, err := os.CreateTemp("", "tessera-stdin-*")
	if err != nil {
		return nil, fmt.Errorf("spool stdin: %w", err)
	}
	// Unlinked at once: the open file lives until it is closed, and
	// nothing is left behind by a crash.
	_ = os.Remove(f.Name())
	if _, err := io.Copy(f, stdin); err != nil {
		f.Close()
		return nil, fmt.Errorf("spool stdin: %w", err)
	}
	return &corpus{name: "stdin", f: f}, nil
}

func (c *corpus) Close() error { return c.f.Close() }

// scan reads the corpus from its start, passing each kept line to fn.
func (c *corpus) scan(spec *puzzle.Spec, fn func(line) error) error {
	if _, err := c.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", c.name, err)
	}
	if err := scanLines(c.f, spec, fn); err != nil {
		return fmt.Errorf("read %s: %w", c.name, err)
	}
	return nil
}

// states enqueues every kept line, bad ones included: the solver records
// them as invalid or unsolvable rows, so every line of the corpus ends as
// exactly one row. c.cur is the line of the state being yielded.
func (c *corpus) states() states {
	return states{
		total: c.lines,
		each: func(yield func(string) error) error {
			var n int64
			err := c.scan(nil, func(l line) error {
				n++
				c.cur = l
				return yield(l.text)
			})
			if err == nil && n != c.lines {
				err = fmt.Errorf("read %s: %d lines, %d a moment ago: the file changed while it was read", c.name, n, c.lines)
			}
			return err
		},
	}
}

// textStates yields texts, an in-memory list (generation's candidates).
func textStates(texts []string) states {
	return states{
		total: int64(len(texts)),
		each: func(yield func(string) error) error {
			for _, t := range texts {
				if err := yield(t); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// randomStates draws n uniform solvable states; the same seed gives the
// same states.
func randomStates(spec puzzle.Spec, n int64, seed uint64) states {
	return states{
		total: n,
		each: func(yield func(string) error) error {
			rng := rand.New(rand.NewPCG(seed, 0x7e55e7a))
			for range n {
				if err := yield(puzzle.Random(spec, rng).String()); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// arrangements is the number of distinct boards --enumerate walks through
// (solvable or not): N! for sliding and Loopover, C(N, N/2) for swap.
func arrangements(spec puzzle.Spec) *big.Int {
	return spec.Family().Arrangements(spec)
}

// enumerateStates walks every arrangement of the goal's cells in
// lexicographic order and yields the solvable ones: every state of the
// puzzle exactly once. The total is counted as it goes.
func enumerateStates(spec puzzle.Spec, limit int64) (states, error) {
	if a := arrangements(spec); !a.IsInt64() || a.Int64() > limit {
		return states{}, fmt.Errorf("--enumerate: %s has %s arrangements, more than --max-states %d", spec, a, limit)
	}
	return states{
		total: -1,
		each: func(yield func(string) error) error {
			cells := slices.Clone(puzzle.Goal(spec).Cells)
			slices.Sort(cells)
			for {
				s := puzzle.State{Spec: spec, Cells: cells}
				if puzzle.Solvable(s) == nil {
					if err := yield(s.String()); err != nil {
						return err
					}
				}
				if !nextPermutation(cells) {
					return nil
				}
			}
		},
	}, nil
}

// nextPermutation rearranges c into the next lexicographic permutation
// (distinct multiset permutations when values repeat) and reports false
// after the last one.
func nextPermutation(c []uint8) bool {
	i := len(c) - 2
	for i >= 0 && c[i] >= c[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(c) - 1
	for c[j] <= c[i] {
		j--
	}
	c[i], c[j] = c[j], c[i]
	slices.Reverse(c[i+1:])
	return true
}
