// Command testsummary reads `go test -json` on stdin and prints what `go
// test` prints without -json (each package's result, and the output of
// failing tests), then a list of the tests that skipped, with their
// reasons: `make test` would otherwise pass over a browser test that
// skipped for want of chromium without a word.
//
//	go test -json ./... | go run ./scripts/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type skip struct{ pkg, test, reason string }

func main() {
	skips, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	report(os.Stdout, skips)
}

// summarize copies the plain test output of the events on r to w and
// returns the skipped tests.
func summarize(r io.Reader, w io.Writer) ([]skip, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	held := map[string][]string{} // output of running tests, by package and test
	var skips []skip
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not an event (a build error printed as text): pass it on.
			fmt.Fprintln(w, sc.Text())
			continue
		}
		key := e.Package + " " + e.Test
		switch {
		case e.Test == "" && e.Action == "output":
			if !strings.HasPrefix(e.Output, "=== ") && e.Output != "PASS\n" {
				fmt.Fprint(w, e.Output)
			}
		case e.Action == "output":
			held[key] = append(held[key], e.Output)
		case e.Action == "fail":
			fmt.Fprint(w, strings.Join(held[key], ""))
			delete(held, key)
		case e.Action == "skip" && e.Test == "":
			// A package without test files: nothing was skipped.
		case e.Action == "skip":
			skips = append(skips, skip{e.Package, e.Test, reason(held[key])})
			delete(held, key)
		case e.Action == "pass":
			delete(held, key)
		}
	}
	return skips, sc.Err()
}

// reason is the last line a skipped test logged (t.Skip's message).
func reason(out []string) string {
	r := "no reason given"
	for _, l := range out {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- SKIP") {
			r = l
		}
	}
	return r
}

func report(w io.Writer, skips []skip) {
	if len(skips) == 0 {
		fmt.Fprintln(w, "\nno test skipped")
		return
	}
	fmt.Fprintf(w, "\n%d tests skipped:\n", len(skips))
	for _, s := range skips {
		fmt.Fprintf(w, "  %s %s: %s\n", strings.TrimPrefix(s.pkg, "github.com/tessera-solver/tessera/"), s.test, s.reason)
	}
}
