package fulltable

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/tessera-solver/tessera/internal/nibble"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// PayloadBytes is the size of a table's file payload: 4-bit entries, two
// to a byte, low nibble first.
func (t *Table) PayloadBytes() int { return int((t.sp.size + 1) / 2) }

// Payload is the table's entries in the file layout (entry i in byte i/2,
// low nibble first). On little-endian machines that is the memory of
// Packed itself, so it is a view, not a copy.
func (t *Table) Payload() []byte { return nibble.Payload(t.Packed, t.sp.size) }

// FromPayload wraps a payload in the layout of Payload (for example a
// read-only mapped table file) with its depth counts. On little-endian
// machines, when the payload fills whole words, the table reads data in
// place: it must stay mapped while the table is used.
func FromPayload(spec puzzle.Spec, data []byte, counts []int64) (*Table, error) {
	if err := supported(spec); err != nil {
		return nil, err
	}
	size := newSpace(spec).size
	if want := (size + 1) / 2; uint64(len(data)) != want {
		return nil, fmt.Errorf("bfs %s: payload has %d bytes, want %d", spec, len(data), want)
	}
	words := int((size + 15) / 16)
	var packed []uint64
	if nibble.LittleEndian() && len(data) == words*8 && uintptr(unsafe.Pointer(unsafe.SliceData(data)))%8 == 0 {
		packed = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(data))), words)
	} else {
		// A partial last word (padding entries read as unreached) or a
		// big-endian machine: copy.
		buf := make([]byte, words*8)
		copy(buf, data)
		for i := len(data) * 2; uint64(i) < uint64(words)*16; i++ {
			buf[i/2] |= 0xf << (4 * (i & 1))
		}
		packed = make([]uint64, words)
		for i := range packed {
			packed[i] = binary.LittleEndian.Uint64(buf[8*i:])
		}
	}
	return New(spec, packed, counts)
}

// States is the number of reachable states of spec, the entries of its
// table.
func States(spec puzzle.Spec) (uint64, error) {
	if err := supported(spec); err != nil {
		return 0, err
	}
	return newSpace(spec).size, nil
}
