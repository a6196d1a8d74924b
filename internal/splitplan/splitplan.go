// Package splitplan predicts the wall time of a split search
// (docs/ARCHITECTURE.md, "Split search") on a fleet of any size from the
// subtree jobs of one recorded run: the way to show the fleet scales
// without owning one (docs/BENCHMARKS.md, "Planning past two cores").
//
// The model: iterations run in sequence. Each begins with the
// coordinator's work, which nothing overlaps (its walks, and the
// subtrees of an iteration too small to publish); then its subtree jobs
// go to the hosts by greedy list scheduling, longest first, each costing
// its recorded CPU time plus a per-message overhead (publish, fetch, the
// record's compare-and-set, ack). An iteration ends when its last job
// ends, or, in the iteration that finds the goal, when the goal's job
// ends (the record ends then; the rest are cancelled). Jobs go out
// longest first (LongestFirst, the classic list-scheduling bound) or in
// the order the coordinator publishes them (InOrder, the pipeline's: a
// job after the goal's then never delays it, so a record that stops at
// the goal is exact).
package splitplan

import (
	"bufio"
	"cmp"
	"container/heap"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Iteration is one IDA* iteration of a split search, as recorded.
type Iteration struct {
	Bound int
	// Serial is the coordinator's work before the jobs: its walks and
	// the subtrees it searches itself.
	Serial time.Duration
	Jobs   []time.Duration // each subtree job's search time
	Goal   int             // the index in Jobs of the goal's subtree; -1: none
	Nodes  int64           // the subtree jobs' nodes (all of them)
}

// Order is the order in which an iteration's jobs go to the hosts.
type Order int

const (
	LongestFirst Order = iota // longest job first
	InOrder                   // as published: the unsplit search's order
)

// Makespan is the predicted wall time of its on hosts workers, each job
// costing overhead more than its search, the jobs going out in order o.
func Makespan(its []Iteration, hosts int, overhead time.Duration, o Order) time.Duration {
	var t time.Duration
	for _, it := range its {
		t += it.Serial + schedule(it.Jobs, it.Goal, max(hosts, 1), overhead, o)
	}
	return t
}

// schedule is one iteration's list scheduling of jobs in order o on
// hosts: when its last job ends, or its goal's when goal >= 0.
func schedule(jobs []time.Duration, goal, hosts int, overhead time.Duration, o Order) time.Duration {
	if len(jobs) == 0 {
		return 0
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	if o == LongestFirst {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(jobs[b], jobs[a]) })
	}
	free := make(freeAt, min(hosts, len(jobs))) // every host free at 0
	var end time.Duration
	for _, i := range order {
		start := free[0]
		done := start + jobs[i] + overhead
		free[0] = done
		heap.Fix(&free, 0)
		if i == goal {
			return done
		}
		end = max(end, done)
	}
	return end
}

// freeAt is a min-heap of the times the hosts become free.
type freeAt []time.Duration

func (h freeAt) Len() int           { return len(h) }
func (h freeAt) Less(i, j int) bool { return h[i] < h[j] }
func (h freeAt) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *freeAt) Push(x any)        { *h = append(*h, x.(time.Duration)) }
func (h *freeAt) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Work is the search time of its on one host without messages, in the
// unsplit order: the goal's iteration up to the goal's job.
func Work(its []Iteration) time.Duration {
	var t time.Duration
	for _, it := range its {
		t += it.Serial
		for i, j := range it.Jobs {
			t += j
			if i == it.Goal {
				break
			}
		}
	}
	return t
}

// Read parses a split record: tab-separated instance, iteration, bound,
// kind (walk, local, subtree), depth, index, nodes, cpu_ns, goal, with #
// comments and header lines, as the pdb benchmark
// BenchmarkSplitKorfFelner24 ($TESSERA_SPLIT_RECORD) and solverd
// (solver.split_record, instance "batch.seq") write it. Lines may come in
// any order (solverd processes append as they finish): each iteration's
// walks count first, then its subtree jobs in index order, the order the
// coordinator publishes them. It returns each instance's iterations.
func Read(r io.Reader) (map[string][]Iteration, error) {
	type row struct {
		line, iter, index int
		bound             int
		kind              string
		nodes             int64
		cpu               time.Duration
		goal              bool
	}
	rows := make(map[string][]row)
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "instance\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 9 {
			return nil, fmt.Errorf("line %d: %d fields, want 9", n, len(f))
		}
		var v [9]int64
		for i, x := range f {
			if i == 0 || i == 3 {
				continue
			}
			var err error
			if v[i], err = strconv.ParseInt(x, 10, 64); err != nil {
				return nil, fmt.Errorf("line %d field %d: %w", n, i+1, err)
			}
		}
		switch f[3] {
		case "walk", "local", "subtree":
		default:
			return nil, fmt.Errorf("line %d: kind %q", n, f[3])
		}
		rows[f[0]] = append(rows[f[0]], row{line: n, iter: int(v[1]), index: int(v[5]), bound: int(v[2]), kind: f[3],
			nodes: v[6], cpu: time.Duration(v[7]), goal: v[8] == 1})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := make(map[string][]Iteration, len(rows))
	for inst, rs := range rows {
		slices.SortStableFunc(rs, func(a, b row) int {
			return cmp.Or(cmp.Compare(a.iter, b.iter), cmp.Compare(b2i(a.kind == "subtree"), b2i(b.kind == "subtree")), cmp.Compare(a.index, b.index))
		})
		var its []Iteration
		for _, x := range rs {
			switch {
			case x.iter == len(its)+1:
				its = append(its, Iteration{Bound: x.bound, Goal: -1})
			case x.iter != len(its) || x.iter < 1:
				return nil, fmt.Errorf("line %d: instance %s iteration %d after %d", x.line, inst, x.iter, len(its))
			}
			it := &its[x.iter-1]
			if x.kind != "subtree" {
				it.Serial += x.cpu
				continue
			}
			if x.goal {
				it.Goal = len(it.Jobs)
			}
			it.Jobs = append(it.Jobs, x.cpu)
			it.Nodes += x.nodes
		}
		out[inst] = its
	}
	return out, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
