// Package instances reads benchmark corpora with published optimal
// lengths (Korf's 100, Korf and Felner's 50): one reader for the tests,
// the benchmarks and `solverd tables bench`.
package instances

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Instance is a benchmark state with its published optimal length.
type Instance struct {
	ID, Opt int
	Cells   []uint8
}

// Read reads id<TAB>optimal<TAB>state lines (# comments).
func Read(path string) ([]Instance, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("benchmark instances: %w", err)
	}
	defer f.Close()
	var out []Instance
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 3 {
			return nil, fmt.Errorf("%s:%d: want id, length and state separated by tabs", path, ln)
		}
		id, err1 := strconv.Atoi(p[0])
		opt, err2 := strconv.Atoi(p[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: bad id or length", path, ln)
		}
		var cells []uint8
		for _, tok := range strings.Fields(strings.ReplaceAll(p[2], "/", " ")) {
			v, err := strconv.Atoi(tok)
			if err != nil || v < 0 || v > 255 {
				return nil, fmt.Errorf("%s:%d: bad tile %q", path, ln, tok)
			}
			cells = append(cells, uint8(v))
		}
		out = append(out, Instance{id, opt, cells})
	}
	return out, sc.Err()
}
