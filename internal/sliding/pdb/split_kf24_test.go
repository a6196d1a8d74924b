package pdb

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/search"
)

// splitSubtreeNodes is the worker's subtree target (split.DefaultSubtreeNodes,
// repeated: a core test does not link the worker); $SPLIT_SUBTREE_NODES
// replaces it.
const splitSubtreeNodes = 1 << 21

// BenchmarkSplitKorfFelner24 is the split search's node overhead at equal bounds:
// the split search of Korf–Felner 24-puzzles ($PDB_KF24_IDS, default
// 29,36,1) as the pipeline lays it out (the worker's rule: after an
// iteration of last nodes, 5·last/target subtrees at most 65536, and an
// iteration after one smaller than a fifth of the target searched by the
// coordinator alone), against the unsplit IDA* at the same bounds, one
// thread each, 24-pdb-6666 ($PDB_KF24_SET=7764: 24-pdb-7764) from the
// tables directory. Every walk and
// every subtree (all of the last iteration's, those after the goal's
// included: a fleet starts them) is written with its nodes and CPU time
// to $TESSERA_SPLIT_RECORD when set, for the makespan model
// (internal/splitplan). Deterministic node counts; CPU times are the
// machine's.
//
//	TESSERA_SPLIT_RECORD=/tmp/kf24-split.tsv go test -run '^$' -bench SplitKorfFelner24 -benchtime 1x -timeout 0 -v ./internal/sliding/pdb
func BenchmarkSplitKorfFelner24(b *testing.B) {
	ids := "29,36,1"
	if v := os.Getenv("PDB_KF24_IDS"); v != "" {
		ids = v
	}
	target := int64(splitSubtreeNodes)
	if v := os.Getenv("SPLIT_SUBTREE_NODES"); v != "" {
		var err error
		if target, err = strconv.ParseInt(v, 10, 64); err != nil || target < 1 {
			b.Fatalf("SPLIT_SUBTREE_NODES=%q", v)
		}
	}
	// $PDB_SPLIT_ONLY=1 leaves out the unsplit search (another subtree
	// target's record, at half the time): the bounds are the split's.
	splitOnly := os.Getenv("PDB_SPLIT_ONLY") == "1"
	// $PDB_SPLIT_AFTER_GOAL=0 stops the last iteration at the goal's
	// subtree, as the unsplit search does (the record then lacks the
	// subtrees a fleet would have started after it).
	afterGoal := os.Getenv("PDB_SPLIT_AFTER_GOAL") != "0"
	var pick []instances.Instance
	for _, f := range strings.Split(ids, ",") {
		id, err := strconv.Atoi(f)
		if err != nil {
			b.Fatalf("PDB_KF24_IDS=%q", ids)
		}
		for _, k := range instances.KorfFelner24() {
			if k.ID == id {
				pick = append(pick, k)
			}
		}
	}
	sv, _ := storedSolver(b, storedDir(b), kf24Partition(b))
	var rec *bufio.Writer
	if p := os.Getenv("TESSERA_SPLIT_RECORD"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		rec = bufio.NewWriter(f)
		defer func() {
			if err := rec.Flush(); err != nil {
				b.Error(err)
			}
		}()
		fmt.Fprintf(rec, "# split search of Korf-Felner 24-puzzles, 24-pdb-6666, subtree target %d nodes; kind walk: the coordinator's walk that lays the iteration out, subtree: one job; local: a subtree the coordinator searches itself; goal 1: the subtree holding the solution (searched up to it)\n", target)
		fmt.Fprintln(rec, "instance\titeration\tbound\tkind\tdepth\tindex\tnodes\tcpu_ns\tgoal")
	}
	for i := 0; i < b.N; i++ {
		for _, inst := range pick {
			splitOne(b, sv, inst, target, rec, splitOnly, afterGoal)
		}
	}
}

// splitOne runs one instance split and unsplit, bound by bound, and
// reports both counts.
func splitOne(b *testing.B, sv *Solver, inst instances.Instance, target int64, rec *bufio.Writer, splitOnly, afterGoal bool) {
	k, h0, err := sv.start(inst.Cells, search.Budget{}, search.Unweighted)
	if err != nil {
		b.Fatal(err)
	}
	line := func(it, bound int, kind string, depth, index int, nodes int64, cpu time.Duration, goal bool) {
		if rec != nil {
			g := 0
			if goal {
				g = 1
			}
			fmt.Fprintf(rec, "%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\n", inst.ID, it, bound, kind, depth, index, nodes, cpu.Nanoseconds(), g)
			if kind == "walk" {
				_ = rec.Flush() // a long run killed midway keeps what it measured
			}
		}
	}
	// unsplit: Iterate per bound; split: what the record counts (walks,
	// subtrees up to the goal's); rewalk: the walks a new holder would make
	// to publish (not in the record); after: the last iteration's subtrees after the goal's.
	var unsplit, split, rewalk, after, subtrees int64
	var unsplitCPU, splitCPU time.Duration
	depth, last := 1, int64(0)
	var heavy []search.Heavy // the iteration before's, split deeper in this one (search.Refine)
	for it, bound := 1, h0; ; it++ {
		var p search.Pass
		var n int64
		if !splitOnly {
			c0 := coretest.CPUTime()
			var at int
			p, n = k.Iterate(search.Iteration{Bound: bound, Split: &at})
			unsplitCPU += coretest.CPUTime() - c0
			unsplit += n
		}

		c0 := coretest.CPUTime()
		want, kind := min(max(5*last/target, 1), 1<<16), "subtree" // split.maxSubtrees
		if 5*last < target {
			want, kind = 1, "local" // the coordinator searches them, no message
		}
		f, err := sv.Frontier(inst.Cells, bound, depth, want, search.Budget{})
		if err != nil {
			b.Fatal(err)
		}
		// As the worker lays it out: the heavy subtrees split deeper.
		expand := func(prefix []uint8, depth int) (search.Frontier, error) {
			return sv.Expand(inst.Cells, prefix, bound, depth, search.Budget{})
		}
		var refineWalked int64
		if !f.Done && kind == "subtree" {
			var next int
			if f.Subtrees, refineWalked, next, err = search.Refine(f.Subtrees, heavy, target, expand); err != nil {
				b.Fatal(err)
			}
			f.Next, f.Walked = min(f.Next, next), f.Walked+refineWalked
		}
		cpu := coretest.CPUTime() - c0
		line(it, bound, "walk", f.Depth, -1, f.Walked, cpu, f.Done && f.Pass.OK)
		splitCPU += cpu
		split += f.Walked
		depth = f.Depth
		found := f.Done && f.Pass.OK
		// The iteration's nodes and next as the split search finds them
		// (the unsplit ones, TestSplitMatchesUnsplit, when no goal).
		iterNodes, next := f.Above+refineWalked, f.Next
		laidHeavy := heavy
		heavy = nil
		if !f.Done {
			// The walk a new holder makes to publish (worker.frontier) must
			// meet the same layout; the coordinator that laid the iteration
			// out publishes what it walked, so this walk is not in the record.
			g, err := sv.Frontier(inst.Cells, bound, f.Depth, 0, search.Budget{})
			if err == nil && kind == "subtree" {
				var w int64
				g.Subtrees, w, _, err = search.Refine(g.Subtrees, laidHeavy, target, expand)
				g.Walked += w
			}
			if err != nil || len(g.Subtrees) != len(f.Subtrees) {
				b.Fatalf("#%d bound %d: publishing walk %d subtrees, %v; laid out %d", inst.ID, bound, len(g.Subtrees), err, len(f.Subtrees))
			}
			rewalk += g.Walked
			for i, pre := range f.Subtrees {
				c0 = coretest.CPUTime()
				st, err := sv.SearchSubtree(inst.Cells, pre, bound, search.Budget{})
				if err != nil {
					b.Fatal(err)
				}
				cpu = coretest.CPUTime() - c0
				line(it, bound, kind, len(pre), i, st.Nodes, cpu, st.OK && !found)
				if st.Nodes > search.HeavyFactor*target {
					heavy = append(heavy, search.Heavy{Prefix: pre, Nodes: st.Nodes})
				}
				subtrees++
				if found && !afterGoal {
					break
				}
				if found {
					after += st.Nodes
					continue
				}
				split += st.Nodes
				iterNodes += st.Nodes
				splitCPU += cpu
				next = min(next, st.Next)
				if st.OK {
					found = true
					if len(st.Path) != inst.Opt || !coretest.SlidingSolved(coretest.SlidePath(5, inst.Cells, st.Path)) {
						b.Fatalf("#%d: split answer %d moves, optimum %d", inst.ID, len(st.Path), inst.Opt)
					}
				}
			}
		}
		if splitOnly {
			p, n = search.Pass{OK: found, D: inst.Opt, Next: next}, iterNodes
		}
		if !found && (next != p.Next || iterNodes != n) {
			b.Fatalf("#%d bound %d: split %d nodes next %d, unsplit %d nodes next %d", inst.ID, bound, iterNodes, next, n, p.Next)
		}
		if found != p.OK {
			b.Fatalf("#%d bound %d: split found %v, unsplit %v", inst.ID, bound, found, p.OK)
		}
		if p.OK {
			if p.D != inst.Opt {
				b.Fatalf("#%d: unsplit %d moves, optimum %d", inst.ID, p.D, inst.Opt)
			}
			break
		}
		// The worker's record keeps the largest (split.MaxHeavy).
		slices.SortStableFunc(heavy, func(x, y search.Heavy) int { return cmp.Compare(y.Nodes, x.Nodes) })
		heavy = heavy[:min(len(heavy), 64)]
		bound, last = p.Next, n
	}
	b.Logf("#%d (%d moves): unsplit %d nodes %.1f s cpu; split %d nodes (%.4f×) %.1f s cpu, %d subtree jobs; a new holder's publishing walks %d nodes (%.4f×); last iteration's subtrees after the goal's %d nodes",
		inst.ID, inst.Opt, unsplit, unsplitCPU.Seconds(), split, float64(split)/float64(unsplit), splitCPU.Seconds(), subtrees,
		rewalk, float64(split+rewalk)/float64(unsplit), after)
}
