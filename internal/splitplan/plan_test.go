package splitplan

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPlan is the tool: the predicted makespan and speedup table of the
// record in $SPLIT_PLAN_RECORD (written by the pdb benchmark
// BenchmarkSplitKorfFelner24), with $SPLIT_PLAN_OVERHEAD per message
// (BenchmarkSubtreeRoundTrip in internal/queue; default 1ms). Skipped
// without a record.
//
//	SPLIT_PLAN_RECORD=/tmp/kf24-split.tsv SPLIT_PLAN_OVERHEAD=400us go test -run TestPlan -v ./internal/splitplan
func TestPlan(t *testing.T) {
	path := os.Getenv("SPLIT_PLAN_RECORD")
	if path == "" {
		t.Skip("SPLIT_PLAN_RECORD is not set: no record to plan from")
	}
	overhead := time.Millisecond
	if v := os.Getenv("SPLIT_PLAN_OVERHEAD"); v != "" {
		var err error
		if overhead, err = time.ParseDuration(v); err != nil {
			t.Fatalf("SPLIT_PLAN_OVERHEAD=%q: %v", v, err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	by, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(by))
	for id := range by {
		ids = append(ids, id)
	}
	// Korf–Felner numbers in numeric order, solverd's "batch.seq" keys after.
	slices.SortFunc(ids, func(a, b string) int {
		x, ea := strconv.Atoi(a)
		y, eb := strconv.Atoi(b)
		if ea == nil && eb == nil {
			return cmp.Compare(x, y)
		}
		return cmp.Or(cmp.Compare(b2i(eb == nil), b2i(ea == nil)), strings.Compare(a, b))
	})
	hosts := []int{2, 8, 32, 128}
	var b strings.Builder
	fmt.Fprintf(&b, "| instance | order | jobs | one host, no messages |")
	for _, h := range hosts {
		fmt.Fprintf(&b, " %d hosts |", h)
	}
	fmt.Fprintf(&b, " unbounded hosts | serial share |\n|---|---|---:|---:|%s---:|---:|\n", strings.Repeat("---:|", len(hosts)))
	for _, o := range []Order{InOrder, LongestFirst} {
		name := map[Order]string{InOrder: "as published", LongestFirst: "longest first"}[o]
		plan(&b, by, ids, hosts, overhead, o, name)
	}
	fmt.Fprintf(&b, "\nper iteration (unbounded hosts: the coordinator's serial work, then the longest job or the goal's):\n")
	for _, id := range ids {
		for i, it := range by[id] {
			var longest, sum time.Duration
			for _, j := range it.Jobs {
				longest = max(longest, j)
				sum += j
			}
			fmt.Fprintf(&b, "#%s iteration %d bound %d: serial %s, %d jobs, %d nodes, %s in all, longest %s, goal %d\n",
				id, i+1, it.Bound, secs(it.Serial), len(it.Jobs), it.Nodes, secs(sum), secs(longest), it.Goal)
		}
	}
	t.Logf("overhead %s per message\n%s", overhead, b.String())
}

// plan writes the table rows of order o.
func plan(b *strings.Builder, by map[string][]Iteration, ids []string, hosts []int, overhead time.Duration, o Order, name string) {
	for _, id := range ids {
		its := by[id]
		work := Work(its)
		var jobs int
		var serial time.Duration
		for _, it := range its {
			jobs += len(it.Jobs)
			serial += it.Serial
		}
		fmt.Fprintf(b, "| #%s | %s | %d | %s |", id, name, jobs, secs(work))
		for _, h := range hosts {
			m := Makespan(its, h, overhead, o)
			fmt.Fprintf(b, " %s (%.1f×) |", secs(m), work.Seconds()/m.Seconds())
		}
		inf := Makespan(its, 1<<30, overhead, o)
		fmt.Fprintf(b, " %s (%.1f×) | %.2f %% |\n", secs(inf), work.Seconds()/inf.Seconds(), 100*serial.Seconds()/work.Seconds())
	}
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
