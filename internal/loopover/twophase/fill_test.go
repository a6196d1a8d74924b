package twophase

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// The small in-memory bounds (phase-1 and phase-2 walking distance, the
// phase-2 arm table) are pinned byte for byte, so that a change of their
// filler that changes an entry shows.
func TestSmallTablesDigests(t *testing.T) {
	for _, c := range []struct {
		name string
		dist func() []uint8
		want string
	}{
		{"wd1", func() []uint8 { return newWD1().dist }, "ab52d3dbe932a4354a84577c1721f5392d1d8be7c389e2ada29b183a0692b2aa"},
		{"wd2", func() []uint8 { return newWD2().dist }, "a7d60332c8cc837f6c7cbe0681dfdd3e4a523840fecfae96fe8c64c6557809a1"},
		{"pdb2", func() []uint8 { return newPDB2().dist }, "52ef3113bb4f57f44c3f76f1b117af73e3af4c79b276cde4e57416f895172ef4"},
	} {
		sum := sha256.Sum256(c.dist())
		if got := hex.EncodeToString(sum[:]); got != c.want {
			t.Errorf("%s: digest %s, want %s", c.name, got, c.want)
		}
	}
}

// BenchmarkSmallTables times the fillers of the in-memory bounds that a
// solver without table files builds at its first request:
//
//	go test -run '^$' -bench SmallTables -benchtime 5x ./internal/loopover/twophase
func BenchmarkSmallTables(b *testing.B) {
	for _, c := range []struct {
		name string
		fill func()
	}{{"wd1", func() { newWD1() }}, {"wd2", func() { newWD2() }}, {"pdb2", func() { newPDB2() }}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.fill()
			}
		})
	}
}
