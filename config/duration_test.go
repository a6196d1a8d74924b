package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// `solver.timeout: 10` in YAML would be 10 ns, and every 15-puzzle would
// end "budget_exceeded after 0 nodes": a duration without a unit is
// refused from every source, naming the key and showing one.
func TestDurationWithoutUnitRefused(t *testing.T) {
	for _, c := range []struct {
		name, file, body, env, envVal, key string
	}{
		{"yaml", "t.yaml", "solver:\n  timeout: 10\n", "", "", "solver.timeout"},
		{"yaml float", "t.yaml", "results:\n  fetch_wait: 1.5\n", "", "", "results.fetch_wait"},
		{"json", "t.json", `{"nats": {"ack_wait": 30}}`, "", "", "nats.ack_wait"},
		{"yaml quoted", "t.yaml", "nats:\n  ack_wait: \"30\"\n", "", "", "nats.ack_wait"},
		{"env", "", "", "TESSERA_RESULTS_FETCH_WAIT", "5", "results.fetch_wait"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clearEnv(t)
			path := ""
			if c.file != "" {
				path = writeFile(t, c.file, c.body)
			}
			if c.env != "" {
				t.Setenv(c.env, c.envVal)
			}
			_, err := Load(path, flags(t))
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Key != c.key || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "30s") {
				t.Fatalf("got %v, want a KeyError for %s showing 30s", err, c.key)
			}
		})
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	BindFlags(fs)
	err := fs.Parse([]string{"--timeout", "10"})
	if err == nil || !strings.Contains(err.Error(), "--timeout") || !strings.Contains(err.Error(), "30s") {
		t.Errorf("--timeout 10: %v", err)
	}
}

// Zero needs no unit, and durations with one load from every source.
func TestDurationsWithUnitOrZero(t *testing.T) {
	clearEnv(t)
	path := writeFile(t, "t.yaml", "solver:\n  timeout: 0\nnats:\n  ack_wait: 45s\n")
	t.Setenv("TESSERA_RESULTS_FETCH_WAIT", "250ms")
	c, err := Load(path, flags(t, "--nats-ack-wait", "1m30s"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Solver.Timeout != 0 || c.NATS.AckWait != 90*time.Second || c.Results.FetchWait != 250*time.Millisecond {
		t.Errorf("timeout %v ack_wait %v fetch_wait %v", c.Solver.Timeout, c.NATS.AckWait, c.Results.FetchWait)
	}
	c, err = Load(path, flags(t))
	if err != nil || c.NATS.AckWait != 45*time.Second {
		t.Errorf("ack_wait %v, err %v", c.NATS.AckWait, err)
	}
}
