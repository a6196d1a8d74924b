package httpapi_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// /api/scrambles against a brute force computed here from the rows
// written: each distinct state once, as its least (length, batch, seq)
// optimal row, those of the length asked (and of the node bounds) in
// (batch, seq) order. States recur within and across batches with other
// lengths; walked by cursor in pages of 3, and by a client key until it
// has seen them all.
func TestScramblesBruteForce(t *testing.T) {
	t.Parallel()
	st := storetest.NewStore(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(30, 5))
	type key struct {
		length     int
		batch, seq int64
		nodes      int64
	}
	best := map[string]key{}
	for range 3 {
		id, err := st.CreateBatch(ctx, "8", "optimal", 60)
		if err != nil {
			t.Fatal(err)
		}
		rs := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-0", id), BatchID: id, Puzzle: "sliding:3x3"}
		for i := range 60 {
			state, l, nodes := fmt.Sprint("s", rng.IntN(70)), 3+rng.IntN(6), rng.Int64N(40)
			r := result.Result{Puzzle: "sliding:3x3", State: state, Status: result.StatusSolved, Length: l, Moves: "U", Nodes: nodes}
			if r.Optimal = rng.IntN(8) > 0; r.Optimal {
				k := key{l, id, int64(i), nodes}
				if b, ok := best[state]; !ok || cmp.Or(cmp.Compare(k.length, b.length), cmp.Compare(k.batch, b.batch), cmp.Compare(k.seq, b.seq)) < 0 {
					best[state] = k
				}
			}
			rs.Results = append(rs.Results, r)
		}
		// Delivered twice: the second is a no-op.
		if _, err := st.InsertResults(ctx, []job.Results{rs, rs}); err != nil {
			t.Fatal(err)
		}
	}
	want := func(l int, lo, hi int64) []string {
		var ks []key
		for _, k := range best {
			if k.length == l && k.nodes >= lo && k.nodes <= hi {
				ks = append(ks, k)
			}
		}
		slices.SortFunc(ks, func(a, b key) int { return cmp.Or(cmp.Compare(a.batch, b.batch), cmp.Compare(a.seq, b.seq)) })
		var out []string
		for _, k := range ks {
			out = append(out, fmt.Sprint(k.batch, " ", k.seq))
		}
		return out
	}
	page := scramblesGetter(t, writerServer(t, st))
	keys := func(s httpapi.Scrambles) []string {
		var out []string
		for _, r := range s.Scrambles {
			out = append(out, fmt.Sprint(r.BatchID, " ", r.Seq))
		}
		return out
	}
	for l := 3; l <= 8; l++ {
		for _, nodes := range [][2]int64{{0, 1 << 40}, {10, 30}} {
			q := fmt.Sprintf("puzzle=8&length=%d&min_nodes=%d&max_nodes=%d", l, nodes[0], nodes[1])
			w := want(l, nodes[0], nodes[1])
			if len(w) == 0 {
				t.Fatalf("length %d nodes %v: the brute force has nothing to compare", l, nodes)
			}
			if got := keys(page(q + "&count=1000")); !slices.Equal(got, w) {
				t.Errorf("%s: %v, brute force %v", q, got, w)
			}
			var paged []string
			for s := page(q + "&count=3"); ; s = page(q + "&count=3&cursor=" + s.NextCursor) {
				paged = append(paged, keys(s)...)
				if s.NextCursor == "" {
					break
				}
			}
			if !slices.Equal(paged, w) {
				t.Errorf("%s in pages of 3: %v, brute force %v", q, paged, w)
			}
			var seen []string
			client := fmt.Sprintf("&count=3&client=c%d-%d", l, nodes[0])
			for s := page(q + client); s.Count > 0; s = page(q + client) {
				seen = append(seen, keys(s)...)
			}
			if !slices.Equal(seen, w) {
				t.Errorf("%s by a client key: %v, brute force %v", q, seen, w)
			}
		}
	}
}
