package migrations

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestEmbedded(t *testing.T) {
	ms, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Name != "001_init" || !strings.Contains(ms[0].Up, "CREATE TABLE solutions") || ms[0].Down == "" {
		t.Fatalf("unexpected first migration %+v", ms[0].Name)
	}
	// tern evaluates nothing here, but keep templates out anyway: the files
	// must read the same to psql and to the migrator.
	for _, m := range ms {
		if strings.Contains(m.Up+m.Down, "{{") {
			t.Errorf("%s contains a template action", m.Name)
		}
	}
}

func TestLoadLayout(t *testing.T) {
	f := func(names ...string) fstest.MapFS {
		m := fstest.MapFS{}
		for _, n := range names {
			m[n] = &fstest.MapFile{Data: []byte("select 1; -- " + n)}
		}
		return m
	}
	ms, err := Load(f("002_b.up.sql", "001_a.up.sql", "001_a.down.sql", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Name != "001_a" || ms[1].Name != "002_b" || ms[0].Down == "" || ms[1].Down != "" {
		t.Fatalf("got %+v", ms)
	}
	for _, bad := range []fstest.MapFS{
		f("001_a.up.sql", "003_c.up.sql"),     // gap
		f("001_a.down.sql"),                   // no up
		f("001_a.up.sql", "001_b.up.sql"),     // two names
		f("1_a.sql"),                          // tern's single-file form is not ours
		f("000_zero.up.sql"),                  // versions start at 1
		f(),                                   // nothing
		f("001_a.up.sql", "002_B-x.down.sql"), // bad name
	} {
		if _, err := Load(bad); !errors.Is(err, ErrLayout) {
			t.Errorf("%v: err = %v, want ErrLayout", keys(bad), err)
		}
	}
}

func keys(m fstest.MapFS) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
