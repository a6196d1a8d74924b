package split

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Recorder writes the record of a process's split-search work
// (solver.split_record): one tab-separated line per walk and per subtree
// searched, in the columns internal/splitplan reads (instance, iteration,
// bound, kind, depth, index, nodes, cpu_ns, goal), instance being the
// state's key ("batch.seq"). Lines are appended by single writes, so
// several processes may share one file; a line is written only for an
// answer stored (a redelivered subtree is listed once). The last
// iteration may list subtrees searched after the goal was found, which
// the row does not count.
type Recorder struct {
	mu sync.Mutex
	w  io.Writer
}

// NewRecorder records to w (header first when header is set).
func NewRecorder(w io.Writer, header bool) (*Recorder, error) {
	if header {
		if _, err := io.WriteString(w, "instance\titeration\tbound\tkind\tdepth\tindex\tnodes\tcpu_ns\tgoal\n"); err != nil {
			return nil, fmt.Errorf("split record: %w", err)
		}
	}
	return &Recorder{w: w}, nil
}

// OpenRecorder appends to the record file path, creating it with its
// header; the func it returns closes it.
func OpenRecorder(path string) (*Recorder, func() error, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("split record: %w", err)
	}
	st, err := f.Stat()
	if err == nil {
		var r *Recorder
		if r, err = NewRecorder(f, st.Size() == 0); err == nil {
			return r, f.Close, nil
		}
	}
	_ = f.Close()
	return nil, nil, fmt.Errorf("split record %s: %w", path, err)
}

// Line records one piece of work; a nil Recorder records nothing. A
// record that cannot be written is a measurement lost, not a search: it
// does not stop the search.
func (s *Recorder) Line(key string, iteration, bound int, kind string, depth, index int, nodes int64, cpu time.Duration, goal bool) {
	if s == nil {
		return
	}
	g := 0
	if goal {
		g = 1
	}
	b := fmt.Appendf(nil, "%s\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\n", key, iteration, bound, kind, depth, index, nodes, cpu.Nanoseconds(), g)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.w.Write(b)
}

// CPUClock measures the CPU time of a single-threaded search that runs
// on the calling goroutine: the goroutine is held on its OS thread and
// the thread's own CPU time read, so that other workers and the load of
// the host do not count. stop returns the time and releases the thread.
func CPUClock() (stop func() time.Duration) {
	runtime.LockOSThread()
	t0 := threadCPU()
	return func() time.Duration {
		d := threadCPU() - t0
		runtime.UnlockOSThread()
		return d
	}
}

// threadCPU is the calling thread's CPU time, to the nanosecond (0
// where the kernel cannot say).
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
