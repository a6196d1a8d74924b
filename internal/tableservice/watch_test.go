package tableservice

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/tablestore"
	"github.com/tessera-solver/tessera/internal/testenv"
	"github.com/tessera-solver/tessera/tables/catalog"
	"github.com/tessera-solver/tessera/tables/catalog/catalogtest"
)

var fifteen = puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}

// scramble15 is a 15-puzzle that walking distance solves in well under a
// second, so the fallback's answer comes quickly.
func scramble15(seed uint64) string {
	return puzzle.RandomWalk(fifteen, rand.New(rand.NewPCG(seed, 7)), 40).String()
}

// A tableWatch with a bucket pulls the tables put into it while it runs
// (told by the bucket's watch, not by a rescan) and serves the next
// solve with them. An object that fails the table check is refused once
// per upload, never written into the directory, and does not stop the
// good set from being pulled and taken; a local table that failed its
// check is replaced by the bucket's good copy.
func TestTableWatchPullsFromBucket(t *testing.T) {
	url, nc := natstest.Server(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := t.TempDir()
	catalogtest.BuildSet(t, src, "15-pdb-555")
	cfg := config.Default()
	cfg.NATS.URL = url
	push := func(bucket string) {
		t.Helper()
		st, err := tablestore.Open(ctx, nc, bucket, 1)
		if err != nil {
			t.Fatal(err)
		}
		set, _ := catalog.LookupSet("15-pdb-555")
		for _, tb := range set.Tables {
			if _, err := st.Push(ctx, tb.Path(src)); err != nil {
				t.Fatal(err)
			}
		}
	}
	watch := func(dir, bucket string, log *testenv.SyncBuffer) (*tableWatch, *solve.Live) {
		l, err := solve.Tables(dir, "auto", false)
		if err != nil {
			t.Fatal(err)
		}
		live := solve.NewLive(l)
		t.Cleanup(func() { live.Close() })
		w := newTableWatch(dir, "auto", false, live, slog.New(slog.NewTextHandler(log, nil)), nil)
		c := cfg
		c.Solver.TablesBucket = bucket
		w.withBucket(bucket, nil, func(ctx context.Context) (*tablestore.Store, func(), error) { return OpenBucket(ctx, c) })
		return w, live
	}
	pdbAnswer := func(live *solve.Live) bool {
		r := live.SolveText(ctx, fifteen, scramble15(4), solve.Options{})
		return r.Status == result.StatusSolved && strings.Contains(r.Solver, "pdb")
	}

	// A corrupt object beside a good set: scanned three times.
	push("tables-a")
	better, _ := catalog.LookupSet("15-pdb-663")
	bad := better.Tables[2]
	js, _ := jetstream.New(nc)
	obs, err := js.ObjectStore(ctx, "tables-a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obs.PutBytes(ctx, bad.Meta.FileName(), catalogtest.Corrupt(t, t.TempDir(), bad, 1)); err != nil {
		t.Fatal(err)
	}
	// And a corrupt local copy of one good table, which the bucket's
	// copy replaces once it has been refused.
	var log testenv.SyncBuffer
	dir := t.TempDir()
	good, _ := catalog.LookupSet("15-pdb-555")
	catalogtest.Corrupt(t, dir, good.Tables[0], 1)
	w, live := watch(dir, "tables-a", &log)
	for range 3 {
		w.scan(ctx)
	}
	w.closeBucket()
	if got := live.Loaded().Roles["sliding:4x4 optimal"]; got != "15-pdb-555" || !pdbAnswer(live) {
		t.Fatalf("after pulling: serving %q\n%s", got, log.String())
	}
	if n := strings.Count(log.String(), `msg="table in the bucket refused; serving with the tables in use" object=`+bad.Meta.FileName()); n != 1 {
		t.Fatalf("the corrupt object was refused %d times in three scans, want once:\n%s", n, log.String())
	}
	if exists(bad.Path(dir)) {
		t.Fatal("the corrupt object reached the tables directory")
	}
	if n := strings.Count(log.String(), `msg="table refused; serving with the tables in use" file=`+good.Tables[0].Path(dir)); n != 1 {
		t.Fatalf("the corrupt local table was refused %d times, want once before the bucket's copy replaced it:\n%s", n, log.String())
	}

	// The bucket's watch, not the (hour-long) rescan, brings a table put
	// after the start.
	var log2 testenv.SyncBuffer
	w2, live2 := watch(t.TempDir(), "tables-b", &log2)
	if _, err := tablestore.Open(ctx, nc, "tables-b", 1); err != nil { // empty, for the watch
		t.Fatal(err)
	}
	wctx, wcancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		w2.run(wctx, time.Hour)
	}()
	// Its first scan (an empty bucket: milliseconds) opens the watch; the
	// next is an hour away.
	time.Sleep(300 * time.Millisecond)
	if pdbAnswer(live2) {
		t.Fatal("a pattern-database answer before any table")
	}
	push("tables-b")
	testenv.WaitFor(t, "the pull told by the watch", 20*time.Second, func() bool {
		return live2.Loaded().Roles["sliding:4x4 optimal"] == "15-pdb-555"
	})
	if !pdbAnswer(live2) {
		t.Fatal("the pulled set does not serve the next solve")
	}
	wcancel()
	<-stopped
	if !strings.Contains(log2.String(), "pulled table") {
		t.Fatalf("no pull logged:\n%s", log2.String())
	}
}
