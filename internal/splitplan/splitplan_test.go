package splitplan

import (
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

func TestMakespan(t *testing.T) {
	jobs := []time.Duration{2 * ms, 3 * ms, 2 * ms, 3 * ms, 2 * ms}
	its := []Iteration{
		{Serial: 1 * ms, Goal: -1, Jobs: jobs},
		{Serial: 1 * ms, Goal: 2, Jobs: []time.Duration{5 * ms, 1 * ms, 2 * ms, 4 * ms}},
	}
	for _, c := range []struct {
		name     string
		hosts    int
		overhead time.Duration
		want     time.Duration
	}{
		// one host: every job in turn, the goal's iteration up to the goal
		// (longest first: 5, 4, then the goal's 2)
		{"one host", 1, 0, 1*ms + 12*ms + 1*ms + 11*ms},
		// longest first on two: 3|3, then 2|2, then 2: 7; then 5|4, the goal's 2 after the 4: 6
		{"two hosts", 2, 0, 1*ms + 7*ms + 1*ms + 6*ms},
		{"two hosts, overhead", 2, ms, 1*ms + 10*ms + 1*ms + 8*ms},
		// more hosts than jobs: the longest job, the goal's job
		{"many hosts", 128, 0, 1*ms + 3*ms + 1*ms + 2*ms},
		{"zero hosts count as one", 0, 0, 1*ms + 12*ms + 1*ms + 11*ms},
	} {
		if got := Makespan(its, c.hosts, c.overhead, LongestFirst); got != c.want {
			t.Errorf("%s: makespan %v, want %v", c.name, got, c.want)
		}
	}
	// In order on two hosts: 2|3, 2 after the 2 (4), 3 after the 3 (6),
	// 2 after the 4: 6; then 5|1, 2 after the 1 (the goal's): 3.
	if got := Makespan(its, 2, 0, InOrder); got != 1*ms+6*ms+1*ms+3*ms {
		t.Errorf("in order on two hosts: %v", got)
	}
	// One host in order is the unsplit search: up to the goal's job.
	if got, w := Makespan(its, 1, 0, InOrder), Work(its); got != w || w != 1*ms+12*ms+1*ms+8*ms {
		t.Errorf("in order on one host %v, work %v", got, w)
	}
}

func TestRead(t *testing.T) {
	in := "# comment\ninstance\titeration\tbound\tkind\tdepth\tindex\tnodes\tcpu_ns\tgoal\n" +
		"29\t1\t80\twalk\t1\t-1\t10\t1000\t0\n" +
		"29\t1\t80\tlocal\t1\t0\t10\t2000\t0\n" +
		"29\t2\t82\twalk\t3\t-1\t10\t500\t0\n" +
		"29\t2\t82\twalk\t3\t-2\t10\t500\t0\n" +
		"29\t2\t82\tsubtree\t3\t0\t7\t3000\t0\n" +
		"29\t2\t82\tsubtree\t3\t1\t9\t4000\t1\n" +
		"1\t1\t70\twalk\t1\t-1\t10\t100\t0\n"
	got, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	its := got["29"]
	if len(got) != 2 || len(its) != 2 || its[0].Serial != 3000 || len(its[0].Jobs) != 0 || its[0].Goal != -1 ||
		its[1].Serial != 1000 || len(its[1].Jobs) != 2 || its[1].Goal != 1 || its[1].Nodes != 16 || its[1].Bound != 82 || len(got["1"]) != 1 {
		t.Fatalf("read %+v", got)
	}
	for _, bad := range []string{
		"29\t2\t80\twalk\t1\t-1\t10\t1000\t0\n", // iteration 2 first
		"29\t1\t80\tother\t1\t-1\t10\t1000\t0\n",
		"29\t1\t80\twalk\t1\t-1\tx\t1000\t0\n",
		"29\t1\t80\twalk\n",
	} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("read %q: no error", bad)
		}
	}
}
