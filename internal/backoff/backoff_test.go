package backoff

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
)

func TestDelay(t *testing.T) {
	const ms, sec = time.Millisecond, time.Second
	tests := []struct {
		name string
		p    Policy
		want []time.Duration // for attempts 1, 2, ...
	}{
		{"zero policy: 100ms doubling to 5s", Policy{},
			[]time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 5000 * ms, 5000 * ms}},
		{"doubling, cap not a power of two", Policy{Min: ms, Max: 5 * ms},
			[]time.Duration{ms, 2 * ms, 4 * ms, 5 * ms, 5 * ms}},
		{"worker redelivery: at most 64x", Policy{Min: sec, Max: 64 * sec},
			[]time.Duration{sec, 2 * sec, 4 * sec, 8 * sec, 16 * sec, 32 * sec, 64 * sec, 64 * sec}},
		{"linear, zero bounds: 100ms steps to 5s", Policy{Linear: true},
			[]time.Duration{100 * ms, 200 * ms, 300 * ms, 400 * ms}},
		{"linear, capped", Policy{Min: 2 * ms, Max: 5 * ms, Linear: true},
			[]time.Duration{2 * ms, 4 * ms, 5 * ms, 5 * ms}},
		{"max below min: constant", Policy{Min: 3 * ms, Max: ms},
			[]time.Duration{3 * ms, 3 * ms, 3 * ms}},
		{"min above the default max, no max", Policy{Min: 10 * sec},
			[]time.Duration{10 * sec, 10 * sec}},
		{"negative bounds take the defaults", Policy{Min: -1, Max: -1},
			[]time.Duration{100 * ms, 200 * ms}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i, want := range tc.want {
				if got := tc.p.Delay(i + 1); got != want {
					t.Errorf("Delay(%d) = %v, want %v", i+1, got, want)
				}
			}
		})
	}
}

func TestDelayEdges(t *testing.T) {
	huge := Policy{Min: time.Nanosecond, Max: math.MaxInt64}
	tests := []struct {
		name    string
		p       Policy
		attempt int
		want    time.Duration
	}{
		{"attempt 0 counts as 1", Policy{}, 0, 100 * time.Millisecond},
		{"negative attempt counts as 1", Policy{}, -5, 100 * time.Millisecond},
		{"huge attempt stays at the cap", Policy{}, math.MaxInt, 5 * time.Second},
		{"linear huge attempt stays at the cap", Policy{Linear: true}, math.MaxInt, 5 * time.Second},
		{"no overflow below an unreachable cap", huge, 63, 1 << 62},
		{"no overflow at an unreachable cap", huge, 1000, math.MaxInt64},
		{"linear, no overflow", Policy{Min: time.Second, Max: math.MaxInt64, Linear: true}, math.MaxInt, math.MaxInt64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Delay(tc.attempt); got != tc.want {
				t.Errorf("Delay(%d) = %v, want %v", tc.attempt, got, tc.want)
			}
		})
	}
}

type call struct {
	attempt int
	delay   time.Duration
	err     string
}

func TestRetry(t *testing.T) {
	errA := errors.New("a")
	fast := Policy{Min: time.Microsecond, Max: 4 * time.Microsecond}
	fail := func(n int, last error) func(i int) error {
		// fail fails the first n calls with "fail <i>", then returns last.
		return func(i int) error {
			if i <= n {
				return fmt.Errorf("fail %d", i)
			}
			return last
		}
	}
	tests := []struct {
		name    string
		f       func(i int) error // i is the 1-based call number
		want    error             // nil, or the error Retry must return (errors.Is)
		wantMsg string            // the message Retry's error must have
		calls   int
		retries []call
	}{
		{"first call succeeds", fail(0, nil), nil, "", 1, nil},
		{"succeeds after three failures", fail(3, nil), nil, "", 4, []call{
			{1, time.Microsecond, "fail 1"},
			{2, 2 * time.Microsecond, "fail 2"},
			{3, 4 * time.Microsecond, "fail 3"},
		}},
		{"permanent at once, returned without the mark", fail(0, Permanent(errA)), errA, "a", 1, nil},
		{"permanent after a retry", fail(1, Permanent(errA)), errA, "a", 2, []call{{1, time.Microsecond, "fail 1"}}},
		{"permanent wrapped by the caller", fail(0, fmt.Errorf("ctx: %w", Permanent(errA))), errA, "ctx: a", 1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []call
			n := 0
			err := Retry(context.Background(), fast, func() error { n++; return tc.f(n) },
				func(attempt int, delay time.Duration, err error) {
					got = append(got, call{attempt, delay, err.Error()})
				})
			if tc.want == nil && err != nil {
				t.Fatalf("Retry = %v, want nil", err)
			}
			if tc.want != nil {
				if !errors.Is(err, tc.want) || err.Error() != tc.wantMsg {
					t.Fatalf("Retry = %v, want %q wrapping %v", err, tc.wantMsg, tc.want)
				}
				var pe *permanentError
				if tc.wantMsg == "a" && errors.As(err, &pe) {
					t.Errorf("Retry returned the Permanent mark: %#v", err)
				}
			}
			if n != tc.calls {
				t.Errorf("f called %d times, want %d", n, tc.calls)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.retries) {
				t.Errorf("onRetry calls %v, want %v", got, tc.retries)
			}
		})
	}
}

func TestRetryContext(t *testing.T) {
	t.Run("cancelled before the first call: f still runs once", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		n := 0
		err := Retry(ctx, Policy{}, func() error { n++; return fmt.Errorf("fail %d", n) },
			func(int, time.Duration, error) { t.Error("onRetry called after ctx ended") })
		if n != 1 || err == nil || err.Error() != "fail 1" {
			t.Fatalf("n = %d, err = %v; want 1 call returning its error", n, err)
		}
	})
	t.Run("cancelled during f: no retry logged", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		err := Retry(ctx, Policy{}, func() error { cancel(); return errors.New("down") },
			func(int, time.Duration, error) { t.Error("onRetry called after ctx ended") })
		if err == nil || err.Error() != "down" {
			t.Fatalf("Retry = %v, want f's error", err)
		}
	})
	t.Run("cancelled during the wait: returns at once with f's last error", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		start := time.Now()
		err := Retry(ctx, Policy{Min: time.Hour}, func() error { n++; return errors.New("down") },
			func(attempt int, delay time.Duration, _ error) {
				if attempt != 1 || delay != time.Hour {
					t.Errorf("onRetry(%d, %v), want (1, 1h)", attempt, delay)
				}
				cancel()
			})
		if n != 1 || err == nil || err.Error() != "down" {
			t.Fatalf("n = %d, err = %v; want 1 call returning its error", n, err)
		}
		if el := time.Since(start); el > time.Minute {
			t.Fatalf("Retry waited %v after cancel", el)
		}
	})
	t.Run("nil onRetry", func(t *testing.T) {
		n := 0
		err := Retry(context.Background(), Policy{Min: time.Microsecond}, func() error {
			if n++; n < 3 {
				return errors.New("again")
			}
			return nil
		}, nil)
		if err != nil || n != 3 {
			t.Fatalf("n = %d, err = %v; want 3 calls and nil", n, err)
		}
	})
}

func TestPermanentNil(t *testing.T) {
	if err := Permanent(nil); err != nil {
		t.Fatalf("Permanent(nil) = %v, want nil", err)
	}
}

func TestSleep(t *testing.T) {
	if !Sleep(context.Background(), time.Microsecond) {
		t.Error("Sleep reported an interruption without a cancel")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, time.Hour) {
		t.Error("Sleep on a cancelled context reported the hour passed")
	}
	if Sleep(ctx, 0) {
		t.Error("Sleep(0) on a cancelled context said to go on")
	}
}
