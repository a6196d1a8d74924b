// Package progress reports long work on stderr: a bar on a terminal, and
// elsewhere (systemd, docker, CI logs) a plain line every so often with the
// count, the rate and the time left, which stays readable in a file.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Every is how often a Meter writes a line when its writer is not a
// terminal.
const Every = 10 * time.Second

// Meter follows one piece of work of total units (-1: unknown).
type Meter struct {
	bar *progressbar.ProgressBar // on a terminal

	w          io.Writer
	what, unit string
	total      int64
	start      time.Time
	every      time.Duration

	mu       sync.Mutex
	done     int64
	finished bool
	stop     chan struct{}
	stopped  chan struct{}
}

// Options tune New.
type Options struct {
	Quiet bool          // report nothing
	Every time.Duration // line interval off a terminal (default Every)
	// Terminal forces the decision (tests); nil asks the writer.
	Terminal *bool
}

// New starts a meter on w for what ("enqueue", "15-pdb-663-a") counting
// unit ("states").
func New(w io.Writer, what, unit string, total int64, o Options) *Meter {
	m := &Meter{w: w, what: what, unit: unit, total: total, start: time.Now(), every: o.Every}
	if m.every <= 0 {
		m.every = Every
	}
	if o.Quiet {
		return m
	}
	tty := false
	if o.Terminal != nil {
		tty = *o.Terminal
	} else if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	if tty {
		m.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(unit),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetWidth(30),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
		return m
	}
	m.stop, m.stopped = make(chan struct{}), make(chan struct{})
	go m.lines()
	return m
}

func (m *Meter) lines() {
	defer close(m.stopped)
	t := time.NewTicker(m.every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case now := <-t.C:
			m.mu.Lock()
			done := m.done
			m.mu.Unlock()
			fmt.Fprintln(m.w, Line(m.what, m.unit, done, m.total, now.Sub(m.start)))
		}
	}
}

// Line is the progress line of done of total units after elapsed, e.g.
// "enqueue: 1200 of 20000 states (6%), 400 states/s, about 42s left".
func Line(what, unit string, done, total int64, elapsed time.Duration) string {
	if total < 0 && done == 0 {
		// Work that reports no counts (solverd bfs): only that it goes on.
		return fmt.Sprintf("%s: working, %v so far", what, elapsed.Round(time.Second))
	}
	s := fmt.Sprintf("%s: %d", what, done)
	if total >= 0 {
		pct := 100.0
		if total > 0 {
			pct = 100 * float64(done) / float64(total)
		}
		s += fmt.Sprintf(" of %d %s (%.0f%%)", total, unit, pct)
	} else {
		s += " " + unit
	}
	rate := 0.0
	if sec := elapsed.Seconds(); sec > 0 {
		rate = float64(done) / sec
	}
	s += fmt.Sprintf(", %.0f %s/s", rate, unit)
	switch {
	case total >= 0 && done >= total:
		s += fmt.Sprintf(", done in %v", elapsed.Round(time.Second))
	case total > 0 && rate > 0:
		left := time.Duration(float64(total-done) / rate * float64(time.Second))
		s += fmt.Sprintf(", about %v left", left.Round(time.Second))
	default:
		s += fmt.Sprintf(", %v so far", elapsed.Round(time.Second))
	}
	return s
}

// Set records that n units are done.
func (m *Meter) Set(n int64) {
	m.mu.Lock()
	m.done = n
	m.mu.Unlock()
	if m.bar != nil {
		_ = m.bar.Set64(n)
	}
}

// Add records k more units done.
func (m *Meter) Add(k int) {
	m.mu.Lock()
	m.done += int64(k)
	n := m.done
	m.mu.Unlock()
	if m.bar != nil {
		_ = m.bar.Set64(n)
	}
}

// Finish ends the meter: the bar completes; off a terminal the periodic
// lines stop (the caller prints its own summary). Safe to call twice.
func (m *Meter) Finish() {
	m.mu.Lock()
	if m.finished {
		m.mu.Unlock()
		return
	}
	m.finished = true
	m.mu.Unlock()
	if m.bar != nil {
		_ = m.bar.Finish()
	}
	if m.stop != nil {
		close(m.stop)
		<-m.stopped
	}
}
