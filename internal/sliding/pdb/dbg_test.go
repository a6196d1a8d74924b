package pdb

import "testing"

func TestDbgCorr(t *testing.T) {
	dir := storedDir(t)
	var pdbs []*PDB
	for i := range Partition78.Patterns {
		pdbs = append(pdbs, stored(t, dir, Partition78, i, false))
	}
	s, _ := NewSet(pdbs...)
	c, _ := newDualTabs(s, nil)
	t.Log(c.corr[0][:16])
	t.Log(c.corr[1][:16])
}
