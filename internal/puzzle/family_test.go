package puzzle

import (
	"strings"
	"testing"
)

// The table of families is indexed by Kind: a family filed under the wrong
// kind would answer another family's rules.
func TestFamiliesAreIndexedByTheirKind(t *testing.T) {
	names := map[string]bool{}
	for k := Kind(0); int(k) < len(families)+2; k++ {
		f := k.Family()
		if k == 0 || int(k) >= len(families) {
			if f != nil {
				t.Errorf("Kind(%d).Family() = %s, want none", k, f.Name())
			}
			continue
		}
		if f == nil {
			t.Fatalf("Kind(%d) has no family", k)
		}
		if f.Kind() != k {
			t.Errorf("families[%d] is the family of %v", k, f.Kind())
		}
		if names[f.Name()] {
			t.Errorf("two families named %q", f.Name())
		}
		names[f.Name()] = true
		sp, err := ParseSpec(f.Name() + ":3x3")
		if err != nil || sp.Kind != k || sp.String() != f.Name()+":3x3" {
			t.Errorf("ParseSpec(%s:3x3) = %v, %v; want kind %v", f.Name(), sp, err, k)
		}
	}
}

// The unknown-kind error lists the families, in the words users saw before
// the list was built from the table.
func TestUnknownKindNamesEveryFamily(t *testing.T) {
	_, err := ParseSpec("cube:3x3")
	if err == nil || !strings.Contains(err.Error(), `unknown kind "cube" (want sliding, loopover or swap)`) {
		t.Errorf("ParseSpec(cube:3x3) = %v", err)
	}
}
