package tables

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func testMeta() Meta {
	return Meta{Name: "test-pdb", Puzzle: "sliding:4x4", Pattern: "1-5", Encoding: "u4", Entries: 10001, Generator: 1}
}

func payload(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := testMeta()
	data := payload(5001, 1) // u4: (10001+1)/2 bytes
	path, full, err := Write(dir, m, data)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "test-pdb.g1.tbl" || full.Bytes != 5001 || len(full.SHA256) != 64 {
		t.Fatalf("path %s meta %+v", path, full)
	}
	tb, err := Open(path, m, true)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if string(tb.Data) != string(data) || !reflect.DeepEqual(tb.Meta, full) {
		t.Fatalf("read back %d bytes, meta %+v", len(tb.Data), tb.Meta)
	}
	if err := checkPayload(tb.Data, tb.Meta); err != nil {
		t.Fatal(err)
	}
	// The payload is page-aligned, so it can be viewed as wider words.
	if off := len(tb.mem) - len(tb.Data); off%PageAlign != 0 {
		t.Errorf("payload at offset %d", off)
	}
	got, err := ReadMeta(path)
	if err != nil || !reflect.DeepEqual(got, full) {
		t.Errorf("ReadMeta %+v %v", got, err)
	}
	// Atomic write: nothing but the table is left in the directory, and
	// the file is read-only.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries", len(ents))
	}
	if st, _ := os.Stat(path); st.Mode().Perm()&0o222 != 0 {
		t.Errorf("table file is writable: %v", st.Mode())
	}
}

// A second Write replaces the file atomically, even though the old one is
// read-only and still mapped by a reader.
func TestRewriteWhileMapped(t *testing.T) {
	dir := t.TempDir()
	m := testMeta()
	path, _, err := Write(dir, m, payload(5001, 1))
	if err != nil {
		t.Fatal(err)
	}
	old, err := Open(path, m, true)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	before := string(old.Data)
	if _, _, err := Write(dir, m, payload(5001, 2)); err != nil {
		t.Fatal(err)
	}
	if string(old.Data) != before {
		t.Error("a mapped table changed under its reader")
	}
	nu, err := Open(path, m, true)
	if err != nil {
		t.Fatal(err)
	}
	defer nu.Close()
	if string(nu.Data) != string(payload(5001, 2)) {
		t.Error("new contents not visible")
	}
}

// writeOpen writes data as a u4 table of testMeta's identity to a fresh
// directory and maps it, returning the table and its path.
func writeOpen(t *testing.T, data []byte) (*Table, string) {
	t.Helper()
	m := testMeta()
	m.Entries = uint64(2 * len(data)) // u4: two per byte
	path, _, err := Write(t.TempDir(), m, data)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Open(path, m, false)
	if err != nil {
		t.Fatal(err)
	}
	return tb, path
}

// A private copy holds the same payload, still checks out, survives a
// second call, and is released by Close.
func TestPrivate(t *testing.T) {
	want := payload(3<<20+5, 3) // past one huge page, not a multiple of one
	tb, _ := writeOpen(t, want)
	for range 2 {
		if err := tb.Private(); err != nil {
			t.Fatal(err)
		}
	}
	if string(tb.Data) != string(want) {
		t.Fatal("private copy differs from the file")
	}
	if err := checkPayload(tb.Data, tb.Meta); err != nil {
		t.Fatal(err)
	}
	if err := tb.Close(); err != nil || tb.Data != nil {
		t.Fatalf("close: %v, data %d bytes", err, len(tb.Data))
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	m := testMeta()
	path, _, err := Write(dir, m, payload(5001, 1))
	if err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)-1] ^= 1
	badMagic := append([]byte(nil), good...)
	badMagic[0] = 'X'
	badVersion := append([]byte(nil), good...)
	badVersion[8] = 9
	other := m
	other.Generator = 2

	cases := []struct {
		name   string
		path   string
		want   Meta
		verify bool
		reason string
	}{
		{"corrupt payload", write("c.tbl", flipped), m, true, "checksum"},
		{"truncated", write("t.tbl", good[:len(good)-10]), m, false, "truncated"},
		{"bad magic", write("m.tbl", badMagic), m, false, "magic"},
		{"newer format", write("v.tbl", badVersion), m, false, "format version 9"},
		{"other generator", path, other, false, "generator 2"},
		{"empty", write("e.tbl", nil), m, false, "empty"},
		{"junk", write("j.tbl", []byte("hello world, not a table at all")), m, false, "magic"},
	}
	for _, c := range cases {
		_, err := Open(c.path, c.want, c.verify)
		if !errors.Is(err, ErrBadTable) || !strings.Contains(err.Error(), c.reason) ||
			!strings.Contains(err.Error(), "solverd tables build "+c.want.Name) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Without verify a flipped payload bit loads; the checksum then catches it.
	tb, err := Open(filepath.Join(dir, "c.tbl"), m, false)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if err := checkPayload(tb.Data, tb.Meta); !errors.Is(err, ErrBadTable) {
		t.Errorf("checksum of a corrupt payload: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.tbl"), m, false); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "solverd tables build") {
		t.Errorf("missing file: %v", err)
	}
}

func TestWriteRejects(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		m    Meta
		size int
	}{
		"payload size": {testMeta(), 5000},
		"encoding":     {Meta{Name: "x", Encoding: "u3", Entries: 1, Generator: 1}, 1},
		"name":         {Meta{Name: "a/b", Encoding: "u8", Entries: 1, Generator: 1}, 1},
		"no generator": {Meta{Name: "x", Encoding: "u8", Entries: 1}, 1},
	} {
		if _, _, err := Write(dir, tc.m, make([]byte, tc.size)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("rejected writes left %d files", len(ents))
	}
}

func FuzzParseHeader(f *testing.F) {
	h, _ := header(Meta{Name: "x", Encoding: "u8", Entries: 3, Generator: 1, Bytes: 3})
	f.Add(append(h, 1, 2, 3))
	f.Add([]byte("TESSTBL\x00\x01\x00\x00\x00\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, off, err := parseHeader(b)
		if err == nil && (off > len(b) || uint64(len(b)-off) != m.Bytes) {
			t.Fatalf("accepted a header whose payload does not fit: off %d len %d meta %+v", off, len(b), m)
		}
	})
}

func TestScanAndMean(t *testing.T) {
	dir := t.TempDir()
	// u8: 0xff marks an index no pattern takes, left out of the mean.
	m8 := Meta{Name: "a", Puzzle: "sliding:3x3", Pattern: "1-4", Encoding: "u8", Entries: 5, Generator: 1}
	if _, _, err := Write(dir, m8, []byte{0, 1, 0xff, 2, 5}); err != nil {
		t.Fatal(err)
	}
	// u4: low nibble first; the odd last entry's high nibble is padding.
	m4 := Meta{Name: "b", Puzzle: "sliding:3x3", Pattern: "5-8", Encoding: "u4", Entries: 3, Generator: 1}
	if _, _, err := Write(dir, m4, []byte{0x21, 0xf3}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junk.tbl"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	infos, err := Scan(dir)
	if err != nil || len(infos) != 3 {
		t.Fatalf("%d infos, %v", len(infos), err)
	}
	if infos[0].Meta.Name != "a" || infos[1].Meta.Name != "b" || infos[2].Err == nil {
		t.Fatalf("%+v", infos)
	}
	want := []float64{2, 2} // (0+1+2+5)/4, (1+2+3)/3
	for i, m := range []Meta{m8, m4} {
		tb, err := Open(infos[i].Path, m, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := tb.Mean(); got != want[i] {
			t.Errorf("%s mean %v, want %v", m.Name, got, want[i])
		}
		tb.Close()
	}
	if infos, err := Scan(filepath.Join(dir, "missing")); err != nil || len(infos) != 0 {
		t.Errorf("missing dir: %v %v", infos, err)
	}
}
