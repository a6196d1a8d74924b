// Package instances reads benchmark corpora with published optimal
// lengths (Korf's 100, Korf and Felner's 50), embedded: one source for the
// tests, the benchmarks and the table datasheet.
package instances

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Instance is a benchmark state with its published optimal length.
type Instance struct {
	ID, Opt int
	Cells   []uint8
}

var (
	//go:embed korf100.tsv
	korf100 []byte
	//go:embed korf-felner-24.tsv
	korfFelner24 []byte
)

// Korf100 is Korf's 100 random 15-puzzles (1985) with their optimal lengths.
func Korf100() []Instance { return mustParse("korf100.tsv", korf100) }

// KorfFelner24 is Korf and Felner's 50 random 24-puzzles (2002) with their
// optimal lengths.
func KorfFelner24() []Instance { return mustParse("korf-felner-24.tsv", korfFelner24) }

// mustParse reads an embedded corpus; its tests make a failure impossible
// at run time.
func mustParse(name string, data []byte) []Instance {
	out, err := parse(name, bytes.NewReader(data))
	if err != nil {
		panic(err)
	}
	return out
}

// parse reads id<TAB>optimal<TAB>state lines (# comments).
func parse(name string, r io.Reader) ([]Instance, error) {
	var out []Instance
	sc := bufio.NewScanner(r)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 3 {
			return nil, fmt.Errorf("%s:%d: want id, length and state separated by tabs", name, ln)
		}
		id, err1 := strconv.Atoi(p[0])
		opt, err2 := strconv.Atoi(p[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: bad id or length", name, ln)
		}
		var cells []uint8
		for _, tok := range strings.Fields(strings.ReplaceAll(p[2], "/", " ")) {
			v, err := strconv.Atoi(tok)
			if err != nil || v < 0 || v > 255 {
				return nil, fmt.Errorf("%s:%d: bad tile %q", name, ln, tok)
			}
			cells = append(cells, uint8(v))
		}
		out = append(out, Instance{id, opt, cells})
	}
	return out, sc.Err()
}
