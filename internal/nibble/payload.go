package nibble

import (
	"encoding/binary"
	"unsafe"
)

// Payload is the first n entries of packed in the table-file layout: entry
// i in byte i/2, low nibble first. On little-endian machines that is the
// memory of packed itself, so it is a view, not a copy: a 1.2 GB table is
// not held twice while it is written.
func Payload(packed []uint64, n uint64) []byte {
	nb := (n + 1) / 2
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(packed))), len(packed)*8)[:nb]
	}
	b := make([]byte, len(packed)*8)
	for i, w := range packed {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b[:nb]
}

// At is entry i of a table-file payload (entry i in byte i/2, low nibble
// first): the one way every 4-bit table is read.
func At(p []byte, i uint64) uint8 { return p[i>>1] >> (4 * (i & 1)) & 15 }

// LittleEndian reports whether this machine stores a word's low byte
// first, so that packed words and file payloads share their layout.
func LittleEndian() bool { return littleEndian }

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()
