package main

import (
	"strings"
	"testing"
)

// The summary of `make test` lists each skipped test with its reason, keeps failing tests' output, and drops the
// chatter of passing ones.
func TestSummarize(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"m/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"m/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"output","Package":"m/a","Test":"TestOK","Output":"    a_test.go:3: chatter\n"}`,
		`{"Action":"pass","Package":"m/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"m/a","Test":"TestPage","Output":"=== RUN   TestPage\n"}`,
		`{"Action":"output","Package":"m/a","Test":"TestPage","Output":"    page_test.go:9: no chromium: install it or set CHROME\n"}`,
		`{"Action":"output","Package":"m/a","Test":"TestPage","Output":"--- SKIP: TestPage (0.00s)\n"}`,
		`{"Action":"skip","Package":"m/a","Test":"TestPage"}`,
		`{"Action":"output","Package":"m/a","Test":"TestBad","Output":"    bad_test.go:5: got 2, want 3\n"}`,
		`{"Action":"output","Package":"m/a","Test":"TestBad","Output":"--- FAIL: TestBad (0.01s)\n"}`,
		`{"Action":"fail","Package":"m/a","Test":"TestBad"}`,
		`{"Action":"output","Package":"m/a","Output":"FAIL\n"}`,
		`{"Action":"output","Package":"m/a","Output":"FAIL\tm/a\t0.02s\n"}`,
		`{"Action":"output","Package":"m/b","Output":"PASS\n"}`,
		`{"Action":"output","Package":"m/b","Output":"ok  \tm/b\t0.01s\n"}`,
		`{"Action":"output","Package":"m/c","Output":"?   \tm/c\t[no test files]\n"}`,
		`{"Action":"skip","Package":"m/c","Elapsed":0}`,
	}, "\n")
	var out strings.Builder
	skips, err := summarize(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	report(&out, skips)
	got := out.String()
	for _, want := range []string{"bad_test.go:5: got 2, want 3", "--- FAIL: TestBad", "FAIL\tm/a", "ok  \tm/b",
		"1 tests skipped:", "m/a TestPage: page_test.go:9: no chromium: install it or set CHROME"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "m/c :") {
		t.Errorf("a package without test files is listed as a skipped test:\n%s", got)
	}
	if strings.Contains(got, "chatter") || strings.Contains(got, "=== RUN") {
		t.Errorf("summary shows passing tests' output:\n%s", got)
	}
}
