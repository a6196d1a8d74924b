package httpapi

import (
	"bytes"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/store"
)

func TestSegments(t *testing.T) {
	// Every state out of budget: one amber segment, no green.
	all := store.Batch{Total: 4, Done: 4, BudgetExceeded: 4}
	if got := segments(all); !reflect.DeepEqual(got, []segment{{"budget_exceeded", 4, "100.00"}}) {
		t.Errorf("all over budget: %+v", got)
	}
	// Widths are shares of the total, so the rest of the bar stays empty.
	mixed := store.Batch{Total: 8, Done: 5, Solved: 2, BudgetExceeded: 1, Invalid: 1, Failed: 1}
	want := []segment{{"solved", 2, "25.00"}, {"budget_exceeded", 1, "12.50"}, {"invalid", 1, "12.50"}, {"failed", 1, "12.50"}}
	if got := segments(mixed); !reflect.DeepEqual(got, want) {
		t.Errorf("mixed: %+v", got)
	}
	if got := segments(store.Batch{Total: 0}); got != nil {
		t.Errorf("empty batch: %+v", got)
	}
}

func TestPace(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	at := func(s int) *time.Time { x := t0.Add(time.Duration(s) * time.Second); return &x }
	for _, c := range []struct {
		name      string
		b         store.Batch
		now       time.Time
		rate, eta string
	}{
		{"no row yet", store.Batch{Total: 10, CreatedAt: t0}, *at(5), "", ""},
		// 100 rows in 50 s: 2/s, 900 to go: 7m30s.
		{"running", store.Batch{Total: 1000, Done: 100, CreatedAt: t0, UpdatedAt: at(45)}, *at(50), "2.0/s", "in 7m30s"},
		// Nothing for 5 minutes: the average falls, the ETA grows.
		{"idle", store.Batch{Total: 1000, Done: 100, CreatedAt: t0, UpdatedAt: at(50)}, *at(350), "0.286/s", "in 52m30s, no row for 5m0s"},
		{"unknown total", store.Batch{Total: -1, Done: 30, CreatedAt: t0, UpdatedAt: at(10)}, *at(10), "3.0/s", ""},
		{"finished", store.Batch{Total: 500, Done: 500, CreatedAt: t0, UpdatedAt: at(2), FinishedAt: at(2)}, *at(90), "250/s", ""},
		{"cancelled", store.Batch{Total: 500, Done: 40, CreatedAt: t0, UpdatedAt: at(20), CancelledAt: at(30)}, *at(90), "2.0/s", ""},
	} {
		if rate, eta := pace(c.b, c.now); rate != c.rate || eta != c.eta {
			t.Errorf("%s: %q %q, want %q %q", c.name, rate, eta, c.rate, c.eta)
		}
	}
}

// A failure repeated in a burst is one log line per interval, and the next
// line says how many were suppressed.
func TestRateLog(t *testing.T) {
	var buf bytes.Buffer
	l := newRateLog(slog.New(slog.NewTextHandler(&buf, nil)), 50*time.Millisecond)
	for i := range 100 {
		l.log(slog.LevelError, "request failed", "i", i)
	}
	l.log(slog.LevelWarn, "other", "i", 0)
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Fatalf("100 failures and one other: %d lines, want 2:\n%s", n, buf.String())
	}
	time.Sleep(60 * time.Millisecond)
	l.log(slog.LevelError, "request failed", "i", 100)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "i=100") || !strings.Contains(last, "suppressed=99") {
		t.Errorf("line after the interval: %q, want i=100 suppressed=99", last)
	}
}

// net/http's own errors, one per client address, are one kind of line.
func TestServerErrorLog(t *testing.T) {
	var buf bytes.Buffer
	l := ServerErrorLog(slog.New(slog.NewTextHandler(&buf, nil)))
	for i := range 500 {
		l.Printf("http: TLS handshake error from 127.0.0.1:%d: EOF", 40000+i)
	}
	l.Printf("http: Accept error: accept tcp: too many open files; retrying in 5ms")
	if n := strings.Count(buf.String(), "\n"); n != 2 || !strings.Contains(buf.String(), "level=WARN") {
		t.Errorf("501 errors of two kinds: %d lines, want 2:\n%s", n, buf.String())
	}
}
