// Package tables stores precomputed search tables (pattern databases,
// distance tables) as self-describing files and maps them read-only, so
// every solver process on a host shares one copy of the pages.
//
// File layout (all integers little-endian):
//
//	offset 0   magic "TESSTBL\x00"                 8 bytes
//	offset 8   format version (uint32)             4 bytes
//	offset 12  header length n (uint32)            4 bytes
//	offset 16  header: JSON of Meta                n bytes
//	           zero padding up to a multiple of PageAlign
//	payload    Meta.Bytes bytes, SHA-256 in Meta.SHA256
//
// The payload starts page-aligned so that a mapped table can be viewed as
// []uint8 or []uint32 without copying.
package tables

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tessera-solver/tessera/internal/atomicfile"
)

// FormatVersion is the version of the file layout above.
const FormatVersion = 1

// PageAlign aligns the payload: a page on every platform Go runs tessera on.
const PageAlign = 4096

var magic = [8]byte{'T', 'E', 'S', 'S', 'T', 'B', 'L', 0}

// ErrBadTable is wrapped by every refusal to load a file: wrong magic or
// version, a header that does not match what the caller expects, a
// truncated file or a payload whose checksum is wrong.
var ErrBadTable = errors.New("bad table file")

// Meta describes a table. Puzzle, Pattern, Encoding, Entries and Generator
// identify it; Bytes and SHA256 are filled in by Write.
type Meta struct {
	Name      string `json:"name"`      // e.g. "15-pdb-78": what `solverd tables build` takes
	Puzzle    string `json:"puzzle"`    // canonical spec, e.g. "sliding:4x4"
	Pattern   string `json:"pattern"`   // which pieces, e.g. "1-7" or "wd"
	Encoding  string `json:"encoding"`  // "u8" (one byte per entry) or "u4" (two entries per byte)
	Entries   uint64 `json:"entries"`   // number of entries
	Generator int    `json:"generator"` // version of the builder that made it
	Bytes     uint64 `json:"bytes"`     // payload length
	SHA256    string `json:"sha256"`    // hex SHA-256 of the payload
	BuildMS   int64  `json:"build_ms,omitempty"`
	// Counts is the depth histogram of a table over a whole state space
	// (entries per distance), which its reader needs and cannot cheaply
	// recount; pattern databases leave it out.
	Counts []int64 `json:"counts,omitempty"`
}

// FileName is the identity of a table on disk: a rebuild by another
// generator version gets another name instead of overwriting.
func (m Meta) FileName() string {
	return fmt.Sprintf("%s.g%d.tbl", m.Name, m.Generator)
}

// RebuildHint is the command an operator runs to (re)build the table.
func (m Meta) RebuildHint() string {
	return "solverd tables build " + m.Name
}

// payloadBytes is the payload size an encoding needs for n entries.
func payloadBytes(encoding string, n uint64) (uint64, error) {
	switch encoding {
	case "u8":
		return n, nil
	case "u4":
		return (n + 1) / 2, nil
	}
	return 0, fmt.Errorf("encoding %q: want u8 or u4", encoding)
}

func (m Meta) check() error {
	if m.Name == "" || strings.ContainsAny(m.Name, "/\\ ") {
		return fmt.Errorf("table name %q: want a non-empty name without slashes or spaces", m.Name)
	}
	if m.Generator < 1 {
		return fmt.Errorf("table %s: generator version must be positive", m.Name)
	}
	_, err := payloadBytes(m.Encoding, m.Entries)
	return err
}

// Write stores payload as the table m in dir atomically: a temporary file
// in the same directory is written, synced and renamed over the final
// name, and the directory is synced, so a crash leaves either the old file
// or the new one, never a torn one. It returns the path and the completed
// Meta.
func Write(dir string, m Meta, payload []byte) (string, Meta, error) {
	if err := m.check(); err != nil {
		return "", m, err
	}
	want, _ := payloadBytes(m.Encoding, m.Entries)
	if uint64(len(payload)) != want {
		return "", m, fmt.Errorf("table %s: payload has %d bytes, %d entries of %s need %d", m.Name, len(payload), m.Entries, m.Encoding, want)
	}
	sum := sha256.Sum256(payload)
	m.Bytes, m.SHA256 = uint64(len(payload)), hex.EncodeToString(sum[:])
	head, err := header(m)
	if err != nil {
		return "", m, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", m, fmt.Errorf("table %s: %w", m.Name, err)
	}
	path := filepath.Join(dir, m.FileName())
	err = atomicfile.Write(path, 0o444, func(f *os.File) error {
		if _, err := f.Write(head); err != nil {
			return err
		}
		_, err := f.Write(payload)
		return err
	})
	if err != nil {
		return "", m, fmt.Errorf("write table %s: %w", m.Name, err)
	}
	return path, m, nil
}

// header encodes everything before the payload, padded to PageAlign.
func header(m Meta) ([]byte, error) {
	js, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(magic[:])
	binary.Write(&b, binary.LittleEndian, uint32(FormatVersion))
	binary.Write(&b, binary.LittleEndian, uint32(len(js)))
	b.Write(js)
	pad := (PageAlign - b.Len()%PageAlign) % PageAlign
	b.Write(make([]byte, pad))
	return b.Bytes(), nil
}

// parseHeader reads the header at the start of data and returns the Meta
// and the payload offset.
func parseHeader(data []byte) (Meta, int, error) {
	var m Meta
	if len(data) < 16 || !bytes.Equal(data[:8], magic[:]) {
		return m, 0, fmt.Errorf("not a tessera table (bad magic): %w", ErrBadTable)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != FormatVersion {
		return m, 0, fmt.Errorf("format version %d, this build reads %d: %w", v, FormatVersion, ErrBadTable)
	}
	n := int(binary.LittleEndian.Uint32(data[12:]))
	if n > len(data)-16 || n > 1<<20 {
		return m, 0, fmt.Errorf("header of %d bytes in a %d-byte file: %w", n, len(data), ErrBadTable)
	}
	dec := json.NewDecoder(bytes.NewReader(data[16 : 16+n]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, 0, fmt.Errorf("header: %v: %w", err, ErrBadTable)
	}
	off := (16 + n + PageAlign - 1) / PageAlign * PageAlign
	if err := m.check(); err != nil {
		return m, 0, fmt.Errorf("header: %v: %w", err, ErrBadTable)
	}
	if want, _ := payloadBytes(m.Encoding, m.Entries); m.Bytes != want {
		return m, 0, fmt.Errorf("header says %d payload bytes for %d %s entries: %w", m.Bytes, m.Entries, m.Encoding, ErrBadTable)
	}
	if uint64(len(data)-off) != m.Bytes {
		return m, 0, fmt.Errorf("payload is %d bytes, header says %d (truncated or padded file): %w", len(data)-off, m.Bytes, ErrBadTable)
	}
	return m, off, nil
}
