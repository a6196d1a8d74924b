package instances

import (
	"strings"
	"testing"
)

func TestEmbedded(t *testing.T) {
	k := Korf100()
	if len(k) != 100 || k[0].Opt != 57 || len(k[0].Cells) != 16 {
		t.Fatalf("korf100: %d instances, first %+v", len(k), k[0])
	}
	k24 := KorfFelner24()
	if len(k24) != 50 || len(k24[0].Cells) != 25 {
		t.Fatalf("korf-felner-24: %d instances, first %+v", len(k24), k24[0])
	}
}

func TestParseRefusals(t *testing.T) {
	for _, text := range []string{"1\t57\n", "x\t57\t1 2 3 0\n", "1\t57\t1 2 x 0\n"} {
		if _, err := parse("bad.tsv", strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), "bad.tsv:1") {
			t.Errorf("%q: %v", text, err)
		}
	}
}
