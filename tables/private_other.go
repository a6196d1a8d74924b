//go:build !linux

package tables

// Private is a no-op outside Linux: the table stays mapped and shared
// (there is no transparent-huge-page advice to gain from a copy).
func (t *Table) Private() error { return nil }

// adviseHuge has no transparent-huge-page advice to give outside Linux.
func adviseHuge([]byte) {}
