package pdb

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

type korf struct {
	id, opt int
	cells   []uint8
}

// readKorf reads Korf's 100 with their published optimal lengths.
func readKorf(t testing.TB) []korf {
	t.Helper()
	f, err := os.Open("../../internal/search/testdata/korf100.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []korf
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		p := strings.Split(line, "\t")
		id, _ := strconv.Atoi(p[0])
		opt, _ := strconv.Atoi(p[1])
		var cells []uint8
		for _, tok := range strings.Fields(strings.ReplaceAll(p[2], "/", " ")) {
			v, _ := strconv.Atoi(tok)
			cells = append(cells, uint8(v))
		}
		out = append(out, korf{id, opt, cells})
	}
	if len(out) != 100 {
		t.Fatalf("read %d Korf instances", len(out))
	}
	return out
}
