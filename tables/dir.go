package tables

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Ext is the extension of table files.
const Ext = ".tbl"

// Info is one table file found in a directory: its header, or why it
// cannot be read.
type Info struct {
	Path string
	Meta Meta
	Size int64 // file size
	Err  error
}

// Scan lists the table files of dir, sorted by name. A missing directory
// is an empty list; unreadable files are listed with their error.
func Scan(dir string) ([]Info, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tables directory: %w", err)
	}
	var out []Info
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), Ext) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		in := Info{Path: filepath.Join(dir, e.Name())}
		if fi, err := e.Info(); err == nil {
			in.Size = fi.Size()
		}
		in.Meta, in.Err = ReadMeta(in.Path)
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Mean is the mean entry value of the table (a quick measure of how much a
// heuristic table prunes). It reads the whole payload.
func (t *Table) Mean() float64 {
	if t.Meta.Entries == 0 {
		return 0
	}
	if c := t.Meta.Counts; len(c) > 0 { // a full table's histogram is in its header
		var sum, n int64
		for d, k := range c {
			sum += int64(d) * k
			n += k
		}
		return float64(sum) / float64(n)
	}
	var sum uint64
	n := t.Meta.Entries
	switch t.Meta.Encoding {
	case "u8":
		// 0xff marks an index no pattern takes (the 5×5 phase-2 walking
		// distance has many): not a distance, so not in the mean.
		for _, b := range t.Data {
			if b == 0xff {
				n--
				continue
			}
			sum += uint64(b)
		}
	case "u4":
		for i, b := range t.Data {
			sum += uint64(b & 0x0f)
			if uint64(2*i+1) < t.Meta.Entries {
				sum += uint64(b >> 4)
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}
