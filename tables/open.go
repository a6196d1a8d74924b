package tables

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Table is a loaded table file. Data is the payload; with mmap it is
// backed by the page cache, read-only and shared by every process that
// maps the same file. Writing to Data faults.
type Table struct {
	Meta Meta
	Data []byte
	mem  []byte // the whole mapping, for Close
	path string
	// private is set once Private has replaced the file mapping by an
	// anonymous one (mem is then that mapping).
	private bool
}

// Open maps the table file at path and checks it against want: the name,
// puzzle, pattern, encoding, entry count and generator must all match, the
// layout must be intact and, when verify is set, the payload's SHA-256 too
// (a full read of the file). Every refusal wraps ErrBadTable (or
// os.ErrNotExist for a missing file) and names the command that rebuilds it.
func Open(path string, want Meta, verify bool) (*Table, error) {
	t, err := open(path, want, verify)
	if err != nil {
		return nil, fmt.Errorf("table %s (%s): %w; rebuild it with: %s", want.Name, path, err, want.RebuildHint())
	}
	return t, nil
}

func open(path string, want Meta, verify bool) (*Table, error) {
	mem, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	t, err := fromBytes(mem, want, verify)
	if err != nil {
		_ = unmapFile(mem)
		return nil, err
	}
	t.mem, t.path = mem, path
	return t, nil
}

func fromBytes(mem []byte, want Meta, verify bool) (*Table, error) {
	m, off, err := parseHeader(mem)
	if err != nil {
		return nil, err
	}
	if err := sameIdentity(m, want); err != nil {
		return nil, err
	}
	data := mem[off : off+int(m.Bytes)]
	if verify {
		if err := checkPayload(data, m); err != nil {
			return nil, err
		}
	}
	return &Table{Meta: m, Data: data}, nil
}

// checkPayload compares data's SHA-256 with the header's: a full read.
func checkPayload(data []byte, m Meta) error {
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != m.SHA256 {
		return fmt.Errorf("payload checksum does not match the header (corrupt file): %w", ErrBadTable)
	}
	return nil
}

func sameIdentity(got, want Meta) error {
	type id struct {
		name, puzzle, pattern, encoding string
		entries                         uint64
		generator                       int
	}
	g := id{got.Name, got.Puzzle, got.Pattern, got.Encoding, got.Entries, got.Generator}
	w := id{want.Name, want.Puzzle, want.Pattern, want.Encoding, want.Entries, want.Generator}
	if g != w {
		return fmt.Errorf("file holds %s %s pattern %s (%d %s entries, generator %d), want %s %s pattern %s (%d %s entries, generator %d): %w",
			got.Name, got.Puzzle, got.Pattern, got.Entries, got.Encoding, got.Generator,
			want.Name, want.Puzzle, want.Pattern, want.Entries, want.Encoding, want.Generator, ErrBadTable)
	}
	return nil
}

// Close unmaps the table; Data must not be used afterwards.
func (t *Table) Close() error {
	if t.mem == nil {
		return nil
	}
	err := unmapFile(t.mem)
	t.mem, t.Data = nil, nil
	return err
}

// ReadMeta returns the header of a table file and checks its layout, but
// not its identity or checksum (`solverd tables list`). The file is mapped,
// so only the header's pages are read.
func ReadMeta(path string) (Meta, error) {
	mem, err := mapFile(path)
	if err != nil {
		return Meta{}, fmt.Errorf("%s: %w", path, err)
	}
	defer unmapFile(mem)
	m, _, err := parseHeader(mem)
	if err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Check reads the header of the table file at path and checks it against
// want as Open does, without mapping the payload: a start-up check for
// tables that are mapped later, on first use.
func Check(path string, want Meta) error {
	m, err := ReadMeta(path)
	if err == nil {
		err = sameIdentity(m, want)
	}
	if err != nil {
		return fmt.Errorf("table %s (%s): %w; rebuild it with: %s", want.Name, path, err, want.RebuildHint())
	}
	return nil
}

// OpenAll maps the table files at paths, each checked against its want as
// Open does, and with private copies each into the process's own
// huge-page memory (Table.Private). On any error the ones already mapped
// are closed. The returned closer unmaps them all.
func OpenAll(paths []string, want []Meta, verify, private bool) ([]*Table, func() error, error) {
	var out []*Table
	closeAll := func() error {
		var errs []error
		for _, t := range out {
			errs = append(errs, t.Close())
		}
		return errors.Join(errs...)
	}
	for i, path := range paths {
		t, err := Open(path, want[i], verify)
		if err == nil && private {
			if err = t.Private(); err != nil {
				t.Close()
			}
		}
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		out = append(out, t)
	}
	return out, closeAll, nil
}
