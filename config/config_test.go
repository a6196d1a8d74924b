package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// clearEnv hides TESSERA_* variables of the caller's environment.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range Keys() {
		t.Setenv(EnvName(k), "")
		os.Unsetenv(EnvName(k))
	}
	t.Setenv("TESSERA_CONFIG", "")
	os.Unsetenv("TESSERA_CONFIG")
	t.Chdir(t.TempDir()) // no ./tessera.yaml
}

func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestDefaults(t *testing.T) {
	clearEnv(t)
	c, err := Load("", flags(t))
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	if c != d {
		t.Fatalf("Load with nothing set = %+v, want Default() %+v", c, d)
	}
	if d.NATS.URL != "nats://127.0.0.1:4222" || d.NATS.MaxDeliver != 5 || d.NATS.AckWait != 30*time.Second ||
		d.Database.URL != "" || d.Solver.Mode != "optimal" || d.Results.FetchBatch != 1000 || d.Results.HTTPAddr != ":8080" {
		t.Fatalf("unexpected defaults %+v", d)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
}

// Each layer overrides the one below it, key by key.
func TestPrecedence(t *testing.T) {
	clearEnv(t)
	file := writeFile(t, "t.yaml", `
nats:
  url: nats://file:4222
  max_deliver: 7
database:
  url: postgres://file/db
solver:
  mode: fast
  workers: 3
  timeout: 10s
results:
  fetch_batch: 50
`)
	t.Setenv("TESSERA_DATABASE_URL", "postgres://env/db")
	t.Setenv("TESSERA_SOLVER_WORKERS", "5")
	t.Setenv("TESSERA_NATS_ACK_WAIT", "1m")
	t.Setenv("TESSERA_RESULTS_FETCH_BATCH", "60")
	fs := flags(t, "--workers=9", "--budget-nodes=1000", "--fetch-batch=70")

	c, err := Load(file, fs)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.NATS.URL = "nats://file:4222"      // file
	want.NATS.MaxDeliver = 7                // file
	want.NATS.AckWait = time.Minute         // env over default
	want.Database.URL = "postgres://env/db" // env over file
	want.Solver.Mode = "fast"               // file
	want.Solver.Workers = 9                 // flag over env over file
	want.Solver.Timeout = 10 * time.Second
	want.Solver.MaxNodes = 1000  // flag over default
	want.Results.FetchBatch = 70 // flag over env over file
	if c != want {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}
}

// Every key can be set from its environment variable: viper ignores
// variables of keys without a default, so this catches a missing default.
func TestEveryKeyFromEnv(t *testing.T) {
	values := map[string]string{
		"nats.url":         "nats://e:1",
		"nats.max_deliver": "2", "nats.ack_wait": "2s", "database.url": "postgres://e/d",
		"solver.workers": "2", "solver.mode": "fast", "solver.max_nodes": "2", "solver.timeout": "2s", "solver.threads": "2",
		"solver.tables_dir": "/e", "solver.tables": "none", "solver.tables_bucket": "b", "solver.tables_private": "true",
		"results.fetch_batch": "2", "results.fetch_wait": "2s",
		"results.http_addr": ":2", "producer.chunk_size": "2",
	}
	clearEnv(t)
	for _, k := range Keys() {
		v, ok := values[k]
		if !ok {
			t.Fatalf("test lacks a value for key %s", k)
		}
		t.Setenv(EnvName(k), v)
	}
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c == Default() {
		t.Fatal("environment ignored")
	}
	d := Default()
	for _, k := range Keys() {
		// Compare field by field through the key table.
		for _, kk := range keys {
			if kk.name == k && derefAny(kk.get(&c)) == derefAny(kk.get(&d)) {
				t.Errorf("%s: %s=%s ignored", k, EnvName(k), values[k])
			}
		}
	}
}

// Every key also has a flag that Load honours.
func TestEveryKeyHasFlag(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	BindFlags(fs)
	for _, k := range keys {
		if fs.Lookup(k.flag) == nil {
			t.Errorf("key %s has no flag", k.name)
		}
	}
	for _, name := range []string{"nats-url", "database-url", "workers", "mode", "budget-nodes", "timeout", "config"} {
		if fs.Lookup(name) == nil {
			t.Errorf("flag --%s missing", name)
		}
	}
}

// BindKeyFlags defines only the keys asked for, and Load reads them.
func TestBindKeyFlags(t *testing.T) {
	clearEnv(t)
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	BindKeyFlags(fs, "solver.threads", "solver.tables_private")
	if fs.Lookup("nats-url") != nil || fs.Lookup(ConfigFlag) != nil {
		t.Error("flags of keys not asked for were defined")
	}
	if err := fs.Parse([]string{"--threads", "3", "--tables-private"}); err != nil {
		t.Fatal(err)
	}
	c, err := Load("", fs)
	if err != nil {
		t.Fatal(err)
	}
	if c.Solver.Threads != 3 || !c.Solver.TablesPrivate {
		t.Fatalf("solver %+v", c.Solver)
	}
	defer func() {
		if recover() == nil {
			t.Error("an unknown key did not panic")
		}
	}()
	BindKeyFlags(fs, "solver.nosuch")
}

// A main may declare some standard flags itself; BindFlags keeps them and
// Load still reads them.
func TestBindFlagsKeepsExisting(t *testing.T) {
	clearEnv(t)
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var mode string
	fs.StringVar(&mode, "mode", "optimal", "mine")
	BindFlags(fs)
	if err := fs.Parse([]string{"--mode", "fast"}); err != nil {
		t.Fatal(err)
	}
	c, err := Load("", fs)
	if err != nil {
		t.Fatal(err)
	}
	if c.Solver.Mode != "fast" || mode != "fast" {
		t.Fatalf("mode = %q (var %q), want fast", c.Solver.Mode, mode)
	}
}

func TestConfigFileSources(t *testing.T) {
	clearEnv(t)
	// ./tessera.yaml is read when present.
	if err := os.WriteFile(DefaultFile, []byte("solver:\n  mode: fast\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load("", nil)
	if err != nil || c.Solver.Mode != "fast" {
		t.Fatalf("./tessera.yaml: mode=%q err=%v", c.Solver.Mode, err)
	}
	// --config wins over ./tessera.yaml.
	other := writeFile(t, "o.yaml", "solver:\n  workers: 4\n")
	c, err = Load("", flags(t, "--config", other))
	if err != nil || c.Solver.Workers != 4 || c.Solver.Mode != "optimal" {
		t.Fatalf("--config: %+v err=%v", c.Solver, err)
	}
	// So does $TESSERA_CONFIG.
	t.Setenv("TESSERA_CONFIG", other)
	c, err = Load("", nil)
	if err != nil || c.Solver.Workers != 4 {
		t.Fatalf("TESSERA_CONFIG: %+v err=%v", c.Solver, err)
	}
	// A missing explicit file is an error.
	if _, err := Load(filepath.Join(t.TempDir(), "nope.yaml"), nil); err == nil {
		t.Fatal("missing config file accepted")
	}
}

func TestUnknownKey(t *testing.T) {
	clearEnv(t)
	for _, tc := range []struct{ body, key string }{
		{"nats:\n  urll: nats://x:1\n", `"nats.urll"`},
		{"solver:\n  mode: fast\ndatabse:\n  url: x\n", `"databse.url"`},
		{"workers: 3\n", `"workers"`},
	} {
		p := writeFile(t, "t.yaml", tc.body)
		_, err := Load(p, nil)
		if err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: err = %v, want it to name %s and the file", tc.body, err, tc.key)
		}
	}
}

func TestBadValueType(t *testing.T) {
	clearEnv(t)
	p := writeFile(t, "t.yaml", "solver:\n  workers: many\n")
	if _, err := Load(p, nil); err == nil || !strings.Contains(err.Error(), "workers") {
		t.Fatalf("err = %v, want it to name workers", err)
	}
	t.Setenv("TESSERA_NATS_ACK_WAIT", "soon")
	if _, err := Load("", nil); err == nil || !strings.Contains(err.Error(), "ack_wait") {
		t.Fatalf("err = %v, want it to name ack_wait", err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"mode", func(c *Config) { c.Solver.Mode = "x" }, `solver.mode: want optimal or fast, got "x"`},
		{"workers", func(c *Config) { c.Solver.Workers = -1 }, "solver.workers:"},
		{"max nodes", func(c *Config) { c.Solver.MaxNodes = -1 }, "solver.max_nodes:"},
		{"timeout", func(c *Config) { c.Solver.Timeout = -time.Second }, "solver.timeout:"},
		{"tables", func(c *Config) { c.Solver.TablesDir = "" }, "solver.tables_dir:"},
		{"nats url", func(c *Config) { c.NATS.URL = "" }, "nats.url:"},
		{"nats scheme", func(c *Config) { c.NATS.URL = "http://x:1" }, "nats.url:"},
		{"max deliver", func(c *Config) { c.NATS.MaxDeliver = 0 }, "nats.max_deliver:"},
		{"ack wait", func(c *Config) { c.NATS.AckWait = 0 }, "nats.ack_wait:"},
		{"db scheme", func(c *Config) { c.Database.URL = "mysql://x/y" }, "database.url:"},
		{"fetch batch", func(c *Config) { c.Results.FetchBatch = 0 }, "results.fetch_batch:"},
		{"fetch wait", func(c *Config) { c.Results.FetchWait = 0 }, "results.fetch_wait:"},
		{"http addr", func(c *Config) { c.Results.HTTPAddr = "8080" }, "results.http_addr:"},
		{"chunk", func(c *Config) { c.Producer.ChunkSize = -2 }, "producer.chunk_size:"},
	} {
		c := Default()
		tc.mod(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	// Accepted forms.
	c := Default()
	c.NATS.URL = "nats://a:1, 127.0.0.1:4222"
	c.Database.URL = "host=/tmp dbname=x"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.Database.URL = "postgresql://u@h:5/d?sslmode=disable"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	// Several bad keys are all named.
	c = Default()
	c.Solver.Mode = "x"
	c.Results.FetchBatch = 0
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "solver.mode") || !strings.Contains(err.Error(), "results.fetch_batch") {
		t.Fatalf("err = %v, want both keys", err)
	}
}

// Load validates: a bad value from any layer is reported with its key.
func TestLoadValidates(t *testing.T) {
	clearEnv(t)
	t.Setenv("TESSERA_SOLVER_MODE", "quick")
	_, err := Load("", nil)
	if err == nil || !strings.Contains(err.Error(), `solver.mode: want optimal or fast, got "quick"`) {
		t.Fatalf("err = %v", err)
	}
}
