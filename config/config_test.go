package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
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
	// Nor the user's or the host's.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	old := systemDir
	systemDir = t.TempDir()
	t.Cleanup(func() { systemDir = old })
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
	if d.NATS.URL != "nats://127.0.0.1:4222" || d.NATS.MaxDeliver != 5 || d.NATS.AckWait != 30*time.Second || d.NATS.Replicas != 1 ||
		d.Database.URL != "" || d.Solver.Mode != "optimal" || d.Results.FetchBatch != 1000 || d.Results.HTTPAddr != "127.0.0.1:8080" ||
		d.NATS.Password != "" || d.Results.HTTPToken != "" {
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
// One key at a time (with the partner some keys require), since the ways
// to authenticate exclude each other.
func TestEveryKeyFromEnv(t *testing.T) {
	file := writeFile(t, "f", "pw\n")
	values := map[string]string{
		"nats.url":         "nats://e:1",
		"nats.max_deliver": "2", "nats.ack_wait": "2s", "nats.replicas": "3", "nats.max_bytes": "4096", "database.url": "postgres://e/d",
		"nats.ping_interval": "5s", "nats.max_pings_out": "2",
		"nats.user": "u", "nats.password": "p", "nats.token": "t", "nats.nkey_file": file, "nats.creds_file": file,
		"nats.tls_ca_file": file, "nats.tls_cert_file": file, "nats.tls_key_file": file,
		"database.password": "p", "database.password_file": file,
		"solver.workers": "2", "solver.quick_workers": "2", "solver.mode": "fast", "solver.max_nodes": "2", "solver.timeout": "2s", "solver.threads": "2",
		"solver.tables_dir": "/e", "solver.tables": "none", "solver.tables_bucket": "b", "solver.tables_private": "true", "solver.tables_rescan": "2s",
		"solver.split_subtree_nodes": "65536", "solver.split_window": "2", "solver.split_stall": "2s", "solver.split_record": "/e/r.tsv",
		"results.fetch_batch": "2", "results.fetch_wait": "2s", "results.max_bytes": "2097152", "results.write_timeout": "2s",
		"results.export_row_group":  "2",
		"results.http_max_requests": "2", "results.http_client_cap": "7", "results.http_writer_tokens": "w=0123456789abcdef",
		"results.http_addr": ":2", "results.http_token": "t", "producer.chunk_size": "2", "producer.priority": "low",
		"solver.metrics_addr": ":2", "solver.metrics_token": "t", "results.metrics_addr": "",
	}
	partner := map[string]string{
		"nats.user": "nats.password", "nats.password": "nats.user",
		"nats.tls_cert_file": "nats.tls_key_file", "nats.tls_key_file": "nats.tls_cert_file",
	}
	d := Default()
	for _, k := range keys {
		v, ok := values[k.name]
		if !ok {
			t.Fatalf("test lacks a value for key %s", k.name)
		}
		clearEnv(t)
		t.Setenv(EnvName(k.name), v)
		if p := partner[k.name]; p != "" {
			t.Setenv(EnvName(p), values[p])
		}
		c, err := Load("", nil)
		if err != nil {
			t.Fatalf("%s=%s: %v", EnvName(k.name), v, err)
		}
		if derefAny(k.get(&c)) == derefAny(k.get(&d)) {
			t.Errorf("%s: %s=%s ignored", k.name, EnvName(k.name), v)
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
		{"nats url a number", func(c *Config) { c.NATS.URL = "5" }, "nats.url: 5 is a number"}, // YAML url: 5, retried for ever
		{"max deliver", func(c *Config) { c.NATS.MaxDeliver = 0 }, "nats.max_deliver:"},
		{"ack wait", func(c *Config) { c.NATS.AckWait = 0 }, "nats.ack_wait:"},
		{"ping interval", func(c *Config) { c.NATS.PingInterval = 0 }, "nats.ping_interval:"},
		{"max pings out", func(c *Config) { c.NATS.MaxPingsOut = 0 }, "nats.max_pings_out: want at least 1, got 0"},
		{"replicas zero", func(c *Config) { c.NATS.Replicas = 0 }, "nats.replicas: want 1 to 5, got 0"},
		{"replicas six", func(c *Config) { c.NATS.Replicas = 6 }, "nats.replicas: want 1 to 5, got 6"},
		{"max bytes negative", func(c *Config) { c.NATS.MaxBytes = -1 }, "nats.max_bytes: want 0 (no limit) or a positive number of bytes, got -1"},
		{"db scheme", func(c *Config) { c.Database.URL = "mysql://x/y" }, "database.url:"},
		{"fetch batch", func(c *Config) { c.Results.FetchBatch = 0 }, "results.fetch_batch:"},
		{"fetch wait", func(c *Config) { c.Results.FetchWait = 0 }, "results.fetch_wait:"},
		{"writer max bytes", func(c *Config) { c.Results.MaxBytes = 1000 }, "results.max_bytes:"},
		{"write timeout", func(c *Config) { c.Results.WriteTimeout = time.Millisecond }, "results.write_timeout:"},
		{"http addr", func(c *Config) { c.Results.HTTPAddr = "8080" }, "results.http_addr:"},
		{"http max requests", func(c *Config) { c.Results.HTTPMaxRequests = 0 }, "results.http_max_requests:"},
		{"http client cap", func(c *Config) { c.Results.HTTPClientCap = 0 }, "results.http_client_cap:"},
		{"export row group zero", func(c *Config) { c.Results.ExportRowGroup = 0 }, "results.export_row_group: want 1 to 16777216 rows, got 0"},
		{"export row group huge", func(c *Config) { c.Results.ExportRowGroup = 1<<24 + 1 }, "results.export_row_group: want 1 to 16777216 rows, got 16777217"},
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

// Secrets never show: not as a --help default, not in a dumped Config,
// not in Load's or Validate's errors, whichever way they came in.
func TestSecretsNotPrinted(t *testing.T) {
	clearEnv(t)
	const pw, tok, dbpw, http = "natsPW-7c1f", "natsTOK-93ab", "dbPW-51e0", "httpTOK-c4d2"
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	BindFlags(fs)
	for _, k := range keys {
		if f := fs.Lookup(k.flag); k.kind == kindSecret && f.DefValue != "" {
			t.Errorf("--%s shows a default", k.flag)
		}
	}
	if err := fs.Parse([]string{"--nats-url=nats://alice:" + pw + "@h:4222", "--database-password=" + dbpw, "--http-token=" + http}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TESSERA_DATABASE_URL", "postgres://bob:"+dbpw+"@db/t")
	c, err := Load("", fs)
	if err != nil {
		t.Fatal(err)
	}
	c.NATS.Token = tok // not valid with a URL password, but this is about printing
	var b strings.Builder
	fmt.Fprintf(&b, "%v %+v %#v %s\n", c, c, c, c)
	slog.New(slog.NewTextHandler(&b, nil)).Info("cfg", "config", c)
	fmt.Fprint(&b, c.Redacted().NATS, c.Redacted().Database, c.Redacted().Results)
	fs.SetOutput(&b)
	fs.PrintDefaults()
	if !strings.Contains(b.String(), "--nats-password string") {
		t.Errorf("flags not printed:\n%s", b.String())
	}
	for _, sec := range []string{pw, tok, dbpw, http} {
		if strings.Contains(b.String(), sec) {
			t.Errorf("%s printed:\n%s", sec, b.String())
		}
	}
	if !strings.Contains(b.String(), "alice:xxxxx@h:4222") {
		t.Errorf("redacted URL not shown:\n%s", b.String())
	}

	// Errors: bad URLs (parsable or not), and a secret of the wrong type.
	for _, tc := range []struct{ env, val, key string }{
		{"TESSERA_DATABASE_URL", "mysql://root:" + dbpw + "@db/x", "database.url"},
		{"TESSERA_DATABASE_URL", "postgres://root:" + dbpw + "@db:5432:1/x%zz", "database.url"},
		{"TESSERA_NATS_URL", "http://tok" + tok + "@h", "nats.url"},
		{"TESSERA_NATS_URL", "nats://u:" + pw + "@h:port/%zz", "nats.url"},
	} {
		clearEnv(t)
		t.Setenv(tc.env, tc.val)
		_, err := Load("", nil)
		if err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s=%s: err = %v, want it to name %s", tc.env, tc.val, err, tc.key)
			continue
		}
		for _, sec := range []string{pw, tok, dbpw} {
			if strings.Contains(err.Error(), sec) {
				t.Errorf("%s=...: error shows the secret: %v", tc.env, err)
			}
		}
	}
	clearEnv(t)
	p := writeFile(t, "t.yaml", "nats:\n  password: ["+pw+"]\n")
	if _, err := Load(p, nil); err == nil || strings.Contains(err.Error(), pw) {
		t.Errorf("a list as nats.password: err = %v", err)
	}
}

func TestAuthValidation(t *testing.T) {
	file := writeFile(t, "seed", "SU...")
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"user alone", func(c *Config) { c.NATS.User = "u" }, "nats.password: required with nats.user"},
		{"password alone", func(c *Config) { c.NATS.Password = "p" }, "nats.user: required"},
		{"token and user", func(c *Config) { c.NATS.User, c.NATS.Password, c.NATS.Token = "u", "p", "t" }, "nats.token: conflicts with nats.user"},
		{"nkey and creds", func(c *Config) { c.NATS.NKeyFile, c.NATS.CredsFile = file, file }, "nats.creds_file: conflicts with nats.nkey_file"},
		{"cert alone", func(c *Config) { c.NATS.TLSCertFile = file }, "nats.tls_key_file:"},
		{"missing ca", func(c *Config) { c.NATS.TLSCAFile = file + ".nope" }, "nats.tls_ca_file:"},
		{"missing password file", func(c *Config) { c.Database.PasswordFile = file + ".nope" }, "database.password_file:"},
	} {
		c := Default()
		tc.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// database.password_file is read by Load; it excludes database.password.
func TestPasswordFile(t *testing.T) {
	clearEnv(t)
	t.Setenv("TESSERA_DATABASE_PASSWORD_FILE", writeFile(t, "pw", "s3cret\r\nignored\n"))
	c, err := Load("", nil)
	if err != nil || c.Database.Password != "s3cret" {
		t.Fatalf("password %q, err %v", c.Database.Password, err)
	}
	t.Setenv("TESSERA_DATABASE_PASSWORD", "other")
	if _, err := Load("", nil); err == nil || !strings.Contains(err.Error(), "database.password_file: conflicts") {
		t.Fatalf("both set: err = %v", err)
	}
	t.Setenv("TESSERA_DATABASE_PASSWORD", "")
	t.Setenv("TESSERA_DATABASE_PASSWORD_FILE", writeFile(t, "empty", "\n"))
	if _, err := Load("", nil); err == nil || !strings.Contains(err.Error(), "database.password_file:") {
		t.Fatalf("empty file: err = %v", err)
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

// A command's Set binds only its keys, reads them from every source, and
// neither reads nor validates the others (a bad solver key must not stop
// `results dist`).
func TestSet(t *testing.T) {
	clearEnv(t)
	set := Uses("database", "results.http_addr")
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	set.Bind(fs)
	for _, name := range []string{"config", "database-url", "database-password", "http-addr"} {
		if fs.Lookup(name) == nil {
			t.Errorf("flag --%s missing", name)
		}
	}
	for _, name := range []string{"budget-nodes", "chunk-size", "tables-private", "nats-url", "workers"} {
		if fs.Lookup(name) != nil {
			t.Errorf("flag --%s of a key the command does not use is defined", name)
		}
	}
	if err := fs.Parse([]string{"--http-addr", ":1"}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TESSERA_SOLVER_MODE", "bogus")
	t.Setenv("TESSERA_SOLVER_WORKERS", "many") // not even an int
	t.Setenv("TESSERA_NATS_URL", "mysql://x")
	t.Setenv("TESSERA_DATABASE_URL", "postgres://env/db")
	file := writeFile(t, "t.yaml", "solver:\n  threads: -3\nresults:\n  fetch_batch: 0\n")
	t.Setenv("TESSERA_CONFIG", file)
	c, err := set.Load(fs)
	if err != nil {
		t.Fatalf("keys the command does not use failed it: %v", err)
	}
	if c.Database.URL != "postgres://env/db" || c.Results.HTTPAddr != ":1" {
		t.Errorf("used keys not read: %+v", c)
	}
	if c.Solver != Default().Solver || c.NATS != Default().NATS {
		t.Errorf("unused keys not left at their defaults: %+v", c)
	}
	t.Setenv("TESSERA_DATABASE_URL", "mysql://x")
	if _, err := set.Load(fs); err == nil || !strings.Contains(err.Error(), "database.url") {
		t.Errorf("a used key was not validated: %v", err)
	}
	if got := Uses("nats", "solver.mode").Names(); len(got) != 16 || !slices.Contains(got, "solver.mode") {
		t.Errorf("Names = %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("an unknown key did not panic")
		}
	}()
	Uses("nosuch")
}

// pflag takes a back-quoted word of a flag's usage for the name of its
// value ("--nats-replicas solverd queue apply" instead of "int"): help
// texts quote otherwise.
func TestUsageHasNoBackquotes(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	Uses("nats", "solver", "results", "producer", "database").Bind(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		if strings.Contains(f.Usage, "`") {
			t.Errorf("--%s's help has a back quote: %q", f.Name, f.Usage)
		}
	})
}

// A config file is found where people put one: the working directory
// first, then the user's configuration directory, then the host's; the
// flag and TESSERA_CONFIG win over all three. Each source says what it is.
func TestConfigFileSearch(t *testing.T) {
	clearEnv(t)
	if path, _ := File(nil); path != "" {
		t.Fatalf("found %s in an empty search path", path)
	}
	if d := Describe(nil); !strings.Contains(d, "no config file found") || !strings.Contains(d, filepath.Join("tessera", DefaultFile)) {
		t.Errorf("Describe with no file: %q", d)
	}
	put := func(dir, mode string) string {
		t.Helper()
		p := filepath.Join(dir, "tessera", DefaultFile)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("solver:\n  mode: "+mode+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sys := put(systemDir, "fast")
	if c, err := Load("", nil); err != nil || c.Solver.Mode != "fast" {
		t.Fatalf("host's file: %+v %v", c.Solver, err)
	}
	user := put(os.Getenv("XDG_CONFIG_HOME"), "optimal")
	if path, why := File(nil); path != user || why != "found" {
		t.Errorf("File = %s (%s), want the user's %s before the host's %s", path, why, user, sys)
	}
	if err := os.WriteFile(DefaultFile, []byte("solver:\n  mode: fast\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if path, _ := File(nil); path != DefaultFile {
		t.Errorf("File = %s, want ./%s first", path, DefaultFile)
	}
	t.Setenv("TESSERA_CONFIG", sys)
	if path, why := File(nil); path != sys || why != "TESSERA_CONFIG" {
		t.Errorf("File = %s (%s), want TESSERA_CONFIG's", path, why)
	}
	fs := flags(t, "--config", user)
	if path, why := File(fs); path != user || why != "--config" {
		t.Errorf("File = %s (%s), want the flag's", path, why)
	}
	if d := Describe(fs); d != "config file "+user+" (from --config)" {
		t.Errorf("Describe = %q", d)
	}
}

// A mistyped key names the key that was meant; a validation error with no
// file read says so, since the setting is often in a file not found.
func TestConfigMistakesExplained(t *testing.T) {
	clearEnv(t)
	f := writeFile(t, "t.yaml", "solver:\n  timout: 5s\n")
	_, err := Load(f, nil)
	if err == nil || !strings.Contains(err.Error(), `"solver.timout" (did you mean solver.timeout?)`) || strings.Contains(err.Error(), "known keys") {
		t.Errorf("typo: %v", err)
	}
	f = writeFile(t, "u.yaml", "bogus:\n  thing: 1\n")
	if _, err := Load(f, nil); err == nil || !strings.Contains(err.Error(), "known keys: ") {
		t.Errorf("no near key: %v", err)
	}
	t.Setenv("TESSERA_NATS_PASSWORD", "s3cret")
	_, err = Load("", nil)
	if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no config file was read") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("invalid without a file: %v", err)
	}
}
