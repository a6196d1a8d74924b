// Package config is tessera's one typed configuration. It is parsed once at
// the edge of each main — defaults < config file < TESSERA_* environment <
// command-line flags — validated, and handed down as a plain struct. It is
// the only package that imports viper.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/tessera-solver/tessera/internal/redact"
)

// DefaultFile is read when no config path is given and it exists in the
// working directory.
const DefaultFile = "tessera.yaml"

// EnvPrefix prefixes every environment variable: key nats.url is
// TESSERA_NATS_URL, solver.max_nodes is TESSERA_SOLVER_MAX_NODES.
const EnvPrefix = "TESSERA"

// Config is every setting of the three mains. Keys (file, environment and
// flag names) are listed in the keys table below.
type Config struct {
	NATS     NATS     `mapstructure:"nats"`
	Database Database `mapstructure:"database"`
	Solver   Solver   `mapstructure:"solver"`
	Results  Results  `mapstructure:"results"`
	Producer Producer `mapstructure:"producer"`
}

// NATS is the JetStream connection. Stream and subject names are fixed
// (internal/queue): every process of a deployment must agree on them.
type NATS struct {
	// URL is one server URL or a comma-separated list. It may hold
	// credentials (nats://user:password@host, nats://token@host); the
	// keys below are the way that keeps them out of the URL. A URL's own
	// credentials win over them.
	URL        string        `mapstructure:"url"`
	MaxDeliver int           `mapstructure:"max_deliver"` // deliveries of one job before it is recorded as failed
	AckWait    time.Duration `mapstructure:"ack_wait"`
	// Replicas is how many servers of a NATS cluster keep each stream
	// and bucket tessera creates (1 for a single server, 3 in production).
	// Existing streams keep theirs: only `solverd queue apply` changes it.
	Replicas int `mapstructure:"replicas"`
	// MaxBytes is the byte limit of each of TESSERA_JOBS, TESSERA_RESULTS
	// and TESSERA_DEAD (0: none); a full stream refuses new messages.
	// Existing streams keep theirs: only `solverd queue apply` changes it.
	MaxBytes int64 `mapstructure:"max_bytes"`
	// PingInterval and MaxPingsOut are how a client notices a server that
	// froze (a dead one closes the connection at once): more than
	// MaxPingsOut pings unanswered, one every PingInterval, and it
	// reconnects, to another server of the list when there is one.
	PingInterval time.Duration `mapstructure:"ping_interval"`
	MaxPingsOut  int           `mapstructure:"max_pings_out"`

	NATSAuth `mapstructure:",squash"`
}

// NATSAuth is how a client proves itself to NATS and checks the server.
// Its fields are queue.Auth's, in the same order, so that a main hands
// them over by conversion: queue.Auth(cfg.NATS.NATSAuth).
type NATSAuth struct {
	// At most one way to authenticate: User and Password, Token, NKeyFile
	// (a file holding an nkey seed, SU…) or CredsFile (a .creds file: user
	// JWT and nkey seed, as `nsc` writes it).
	User      string `mapstructure:"user"`
	Password  string `mapstructure:"password"` // secret
	Token     string `mapstructure:"token"`    // secret
	NKeyFile  string `mapstructure:"nkey_file"`
	CredsFile string `mapstructure:"creds_file"`
	// TLS: TLSCAFile verifies the server (else the system roots; a tls://
	// URL or a server requiring TLS turns it on); TLSCertFile and
	// TLSKeyFile are a client certificate for servers that verify clients.
	TLSCAFile   string `mapstructure:"tls_ca_file"`
	TLSCertFile string `mapstructure:"tls_cert_file"`
	TLSKeyFile  string `mapstructure:"tls_key_file"`
}

// Database is the PostgreSQL the results service writes.
type Database struct {
	// URL is a libpq connection string (URL or key=value form). Empty means
	// "the local server": the one scripts/pg-local.sh reports (see
	// docs/PIPELINE-store.md); the mains resolve it, config does not.
	URL string `mapstructure:"url"`
	// Password, when set, replaces the URL's password (secret). Load
	// fills it from PasswordFile (first line) when that is set; the two
	// keys are exclusive.
	Password     string `mapstructure:"password"`
	PasswordFile string `mapstructure:"password_file"`
}

// Solver bounds the solving done by solverd and producer --local.
type Solver struct {
	Workers int `mapstructure:"workers"` // 0: one per CPU
	// QuickWorkers are further workers that take quick-lane jobs only, so
	// cheap work never waits behind heavy jobs (0: none).
	QuickWorkers int           `mapstructure:"quick_workers"`
	Mode         string        `mapstructure:"mode"`      // optimal or fast
	MaxNodes     int64         `mapstructure:"max_nodes"` // 0: no limit
	Timeout      time.Duration `mapstructure:"timeout"`   // per state; 0: no limit
	// Threads is how many goroutines one IDA* search (sliding boards over
	// pattern databases or walking distance; Loopover 3×5 and 5×5) may use
	// (0 or 1: one). Workers × Threads should not exceed the cores: worth
	// it on a host solving a few hard states (a hard 15-puzzle, long
	// 24-puzzles), not a corpus of small
	// states, which is already parallel across workers.
	Threads   int    `mapstructure:"threads"`
	TablesDir string `mapstructure:"tables_dir"`
	// Tables names the table sets to load at start, comma separated:
	// "auto" (the best complete set per puzzle and mode in TablesDir), "none", or
	// set names such as "15-pdb-78" (a missing one is an error).
	Tables string `mapstructure:"tables"`
	// TablesBucket is a JetStream Object Store bucket to pull missing
	// tables from at start ("": do not pull).
	TablesBucket string `mapstructure:"tables_bucket"`
	// TablesPrivate copies the pattern databases into the process's own
	// huge-page memory instead of sharing the mapped files: faster search
	// on large tables (the 24-puzzle's), one copy per process.
	TablesPrivate bool `mapstructure:"tables_private"`
	// TablesRescan is how often solverd run looks for tables that arrived
	// since it started (built into TablesDir, or in TablesBucket, which it
	// also watches) and serves its next jobs with them (0: never).
	TablesRescan time.Duration `mapstructure:"tables_rescan"`
	// SplitSubtreeNodes is the size (search nodes) a split search's
	// subtree job aims at (producer --split): smaller means more, shorter
	// jobs, so a large fleet waits less on the largest one.
	SplitSubtreeNodes int64 `mapstructure:"split_subtree_nodes"`
	// SplitWindow is how many subtree jobs of one split state are out
	// unanswered at a time.
	SplitWindow int `mapstructure:"split_window"`
	// SplitStall is how long a split iteration may go without an answer
	// before its coordinator logs it and publishes the unanswered subtree
	// jobs again.
	SplitStall time.Duration `mapstructure:"split_stall"`
	// SplitRecord, when set, is a file this process appends one line to
	// for every split-search walk and subtree job it does (nodes, CPU
	// time): the makespan model's input (internal/splitplan).
	SplitRecord string `mapstructure:"split_record"`
	// MetricsAddr is where solverd run serves /metrics, /healthz and
	// /readyz ("": nowhere).
	MetricsAddr string `mapstructure:"metrics_addr"`
	// MetricsToken, when set, is the bearer token solverd run's /metrics
	// requires (secret; /healthz and /readyz stay open).
	MetricsToken string `mapstructure:"metrics_token"`
}

// Results tunes the results writer.
type Results struct {
	FetchBatch int           `mapstructure:"fetch_batch"` // result messages per transaction, at most
	FetchWait  time.Duration `mapstructure:"fetch_wait"`  // longest wait for a batch to fill
	// MaxBytes bounds what the writer holds at once (fetched, decoded and
	// being committed), in bytes.
	MaxBytes int64 `mapstructure:"max_bytes"`
	// WriteTimeout bounds one attempt at a transaction; a longer one is
	// cancelled and retried.
	WriteTimeout time.Duration `mapstructure:"write_timeout"`
	HTTPAddr     string        `mapstructure:"http_addr"` // results serve
	// HTTPToken, when set, is the bearer token results serve requires on
	// every endpoint but /healthz, /readyz and /api/openapi.json (secret).
	HTTPToken string `mapstructure:"http_token"`
	// HTTPWriterTokens ("NAME=TOKEN,...", secret) are the tokens that may
	// write through results serve: served-state tracking (client=K, kept
	// apart per NAME) and generate=true.
	HTTPWriterTokens string `mapstructure:"http_writer_tokens"`
	// HTTPMaxRequests caps the API requests results serve answers at once;
	// the rest get 503 with Retry-After at once (the probes are not counted).
	HTTPMaxRequests int `mapstructure:"http_max_requests"`
	// HTTPClientCap is how many states one client key of /api/scrambles
	// may be served in all (each is a row of served_scrambles).
	HTTPClientCap int64 `mapstructure:"http_client_cap"`
	// MetricsAddr is where results run (the writer) serves /metrics,
	// /healthz and /readyz ("": nowhere); results.http_token guards its
	// /metrics.
	MetricsAddr string `mapstructure:"metrics_addr"`
	// ExportRowGroup is the rows of each row group of a Parquet export:
	// what `results export --format parquet` holds in memory at once.
	ExportRowGroup int `mapstructure:"export_row_group"`
}

// Producer tunes the producer.
type Producer struct {
	ChunkSize int `mapstructure:"chunk_size"` // states per job message; 0: chosen per puzzle
	// Priority is the level a batch's jobs are published at: high, normal
	// or low. Workers take higher levels first within each lane.
	Priority string `mapstructure:"priority"`
}

// Default returns the configuration used when nothing overrides it.
func Default() Config {
	var c Config
	c.NATS.URL = "nats://127.0.0.1:4222"
	c.NATS.MaxDeliver = 5
	c.NATS.AckWait = 30 * time.Second
	c.NATS.Replicas = 1
	c.NATS.MaxBytes = 1 << 30
	// A frozen server is noticed 6 to 8 s after it stops answering.
	c.NATS.PingInterval = 2 * time.Second
	c.NATS.MaxPingsOut = 3
	c.Solver.Mode = "optimal"
	c.Producer.Priority = "normal"
	c.Solver.QuickWorkers = 1
	c.Solver.Threads = 1
	c.Solver.TablesDir = defaultTablesDir()
	c.Solver.Tables = "auto"
	c.Solver.TablesRescan = 30 * time.Second
	c.Solver.SplitSubtreeNodes = 1 << 21 // split.DefaultSubtreeNodes: about a tenth of a second
	c.Solver.SplitWindow = 512           // split.DefaultSubtreeWindow
	c.Solver.SplitStall = time.Minute    // split.DefaultStall
	c.Solver.MetricsAddr = "127.0.0.1:9464"
	c.Results.FetchBatch = 1000
	c.Results.FetchWait = time.Second
	c.Results.MaxBytes = 16 << 20             // ingest.DefaultMaxBytes
	c.Results.WriteTimeout = 30 * time.Second // ingest.DefaultWriteTimeout
	// Loopback only: the API and /metrics are unauthenticated unless
	// results.http_token is set, so exposing them is an explicit choice.
	c.Results.HTTPAddr = "127.0.0.1:8080"
	c.Results.HTTPMaxRequests = 16
	c.Results.HTTPClientCap = 100_000 // httpapi.DefaultClientCap
	c.Results.MetricsAddr = "127.0.0.1:9465"
	c.Results.ExportRowGroup = 131072 // parquetfile.DefaultRowGroupRows
	return c
}

// defaultTablesDir is a per-user cache directory, so that every solverd on
// a host shares one copy of the tables without configuration.
func defaultTablesDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "tessera", "tables")
}

// key ties a config key to its flag and to its field in a Config.
type key struct {
	name  string // viper key, also the file key path
	flag  string // flag name
	usage string
	get   func(*Config) any
	kind  kind
}

// kind says how a key's value may be printed.
type kind int

const (
	kindPlain  kind = iota
	kindSecret      // never printed: no --help default, masked in dumps and errors
	kindURL         // printed through redact.URL (it may hold credentials)
)

// secretUsage ends the usage of every secret flag.
// maxExportRowGroup bounds results.export_row_group (parquetfile.MaxRowGroupRows):
// a Parquet export holds a whole row group in memory.
const maxExportRowGroup = 1 << 24

const secretUsage = "; a secret: prefer the variable or the config file to this flag, which ps shows"

// keys lists every configuration key. A default is set for each of them:
// viper ignores an environment variable whose key has no default.
var keys = []key{
	{"nats.url", "nats-url", "NATS server URL(s), comma separated", func(c *Config) any { return &c.NATS.URL }, kindURL},
	{"nats.max_deliver", "nats-max-deliver", "deliveries of a job before it is recorded as failed", func(c *Config) any { return &c.NATS.MaxDeliver }, kindPlain},
	{"nats.ack_wait", "nats-ack-wait", "time a consumer has to acknowledge a message", func(c *Config) any { return &c.NATS.AckWait }, kindPlain},
	{"nats.replicas", "nats-replicas", "servers of a NATS cluster that keep each stream and bucket tessera creates (1 to 5; existing ones change only through solverd queue apply)", func(c *Config) any { return &c.NATS.Replicas }, kindPlain},
	{"nats.max_bytes", "nats-max-bytes", "byte limit of each of the jobs, results and dead-letter streams (0: none); a full stream refuses new messages (existing streams change only through solverd queue apply)", func(c *Config) any { return &c.NATS.MaxBytes }, kindPlain},
	{"nats.ping_interval", "nats-ping-interval", "how often a client pings its NATS server to notice one that froze", func(c *Config) any { return &c.NATS.PingInterval }, kindPlain},
	{"nats.max_pings_out", "nats-max-pings-out", "unanswered pings after which a client drops its server and reconnects (a frozen server is noticed after max_pings_out to max_pings_out+1 ping intervals)", func(c *Config) any { return &c.NATS.MaxPingsOut }, kindPlain},
	{"nats.user", "nats-user", "NATS user name (with nats.password)", func(c *Config) any { return &c.NATS.User }, kindPlain},
	{"nats.password", "nats-password", "NATS password" + secretUsage, func(c *Config) any { return &c.NATS.Password }, kindSecret},
	{"nats.token", "nats-token", "NATS authentication token" + secretUsage, func(c *Config) any { return &c.NATS.Token }, kindSecret},
	{"nats.nkey_file", "nats-nkey-file", "file holding the NATS nkey seed (SU...) to sign the server's challenge with", func(c *Config) any { return &c.NATS.NKeyFile }, kindPlain},
	{"nats.creds_file", "nats-creds-file", "NATS credentials file (user JWT and nkey seed, as nsc writes it)", func(c *Config) any { return &c.NATS.CredsFile }, kindPlain},
	{"nats.tls_ca_file", "nats-tls-ca-file", "PEM CA certificate(s) that verify the NATS server (empty: the system roots)", func(c *Config) any { return &c.NATS.TLSCAFile }, kindPlain},
	{"nats.tls_cert_file", "nats-tls-cert-file", "PEM client certificate for NATS TLS (with nats.tls_key_file)", func(c *Config) any { return &c.NATS.TLSCertFile }, kindPlain},
	{"nats.tls_key_file", "nats-tls-key-file", "PEM private key of the NATS client certificate", func(c *Config) any { return &c.NATS.TLSKeyFile }, kindPlain},
	{"database.url", "database-url", "PostgreSQL URL (empty: the local server of scripts/pg-local.sh)", func(c *Config) any { return &c.Database.URL }, kindURL},
	{"database.password", "database-password", "PostgreSQL password, replacing the URL's" + secretUsage, func(c *Config) any { return &c.Database.Password }, kindSecret},
	{"database.password_file", "database-password-file", "file whose first line is the PostgreSQL password", func(c *Config) any { return &c.Database.PasswordFile }, kindPlain},
	{"solver.workers", "workers", "jobs solved in parallel, quick lane first (0: one per core)", func(c *Config) any { return &c.Solver.Workers }, kindPlain},
	{"solver.quick_workers", "quick-workers", "further workers reserved for quick-lane jobs, so cheap work never waits behind heavy jobs", func(c *Config) any { return &c.Solver.QuickWorkers }, kindPlain},
	{"solver.mode", "mode", "optimal (proved shortest) or fast (short, not proved)", func(c *Config) any { return &c.Solver.Mode }, kindPlain},
	{"solver.max_nodes", "budget-nodes", "give up a state after this many search nodes (0: no limit); in fast mode, the nodes spent looking for shorter answers", func(c *Config) any { return &c.Solver.MaxNodes }, kindPlain},
	{"solver.timeout", "timeout", "give up a state after this long, e.g. 30s (0: the puzzle's default budget, listed by solverd solve --help); in fast mode, the time spent looking for shorter answers, longer or shorter than the default (about 1 s; 300 ms for loopover:5x5)", func(c *Config) any { return &c.Solver.Timeout }, kindPlain},
	{"solver.threads", "threads", "goroutines per IDA* search (sliding; Loopover 3x5 and 5x5), for a few hard solves such as 24-puzzles (0 or 1: one)", func(c *Config) any { return &c.Solver.Threads }, kindPlain},
	{"solver.tables_dir", "tables-dir", "directory of precomputed tables", func(c *Config) any { return &c.Solver.TablesDir }, kindPlain},
	{"solver.tables", "tables", "table sets to load: auto, none, or names like 15-pdb-78 (comma separated)", func(c *Config) any { return &c.Solver.Tables }, kindPlain},
	{"solver.tables_bucket", "tables-bucket", "JetStream Object Store bucket of the tables: solverd run pulls missing tables from it at start when set (empty: no pull); tables push and pull use it, tessera-tables when empty", func(c *Config) any { return &c.Solver.TablesBucket }, kindPlain},
	{"solver.tables_private", "tables-private", "copy tables into this process's huge-page memory, not shared between processes: for file systems that cannot cache files in huge pages (shared mappings already ask for them)", func(c *Config) any { return &c.Solver.TablesPrivate }, kindPlain},
	{"solver.tables_rescan", "tables-rescan", "how often solverd run looks for tables built or pushed since it started, and serves its next jobs with them (0: never)", func(c *Config) any { return &c.Solver.TablesRescan }, kindPlain},
	{"solver.split_subtree_nodes", "split-subtree-nodes", "search nodes a split search's subtree job aims at (producer --split); smaller: more, shorter jobs, for a large fleet", func(c *Config) any { return &c.Solver.SplitSubtreeNodes }, kindPlain},
	{"solver.split_window", "split-window", "subtree jobs of one split state out unanswered at a time", func(c *Config) any { return &c.Solver.SplitWindow }, kindPlain},
	{"solver.split_stall", "split-stall", "time a split iteration may go without an answer before its unanswered subtree jobs are published again (doubling, to 8x, while none comes)", func(c *Config) any { return &c.Solver.SplitStall }, kindPlain},
	{"solver.split_record", "split-record", "file to append a line to for every split-search walk and subtree job this process does, with its nodes and CPU time, for planning a fleet (internal/splitplan; empty: none)", func(c *Config) any { return &c.Solver.SplitRecord }, kindPlain},
	{"solver.metrics_addr", "metrics-addr", "listen address of solverd run's /metrics, /healthz and /readyz (empty: none; 0.0.0.0:9464: every interface)", func(c *Config) any { return &c.Solver.MetricsAddr }, kindPlain},
	{"solver.metrics_token", "metrics-token", "bearer token solverd run's /metrics requires (empty: none)" + secretUsage, func(c *Config) any { return &c.Solver.MetricsToken }, kindSecret},
	{"results.fetch_batch", "fetch-batch", "result messages written per transaction, at most", func(c *Config) any { return &c.Results.FetchBatch }, kindPlain},
	{"results.fetch_wait", "fetch-wait", "longest wait for a batch of results to fill", func(c *Config) any { return &c.Results.FetchWait }, kindPlain},
	{"results.max_bytes", "writer-max-bytes", "bytes of results the writer holds at once (fetched, decoded, being committed), at most", func(c *Config) any { return &c.Results.MaxBytes }, kindPlain},
	{"results.write_timeout", "write-timeout", "longest one attempt at a results transaction may take before it is cancelled and retried", func(c *Config) any { return &c.Results.WriteTimeout }, kindPlain},
	{"results.http_addr", "http-addr", "listen address of results serve (0.0.0.0:8080 or :8080: every interface)", func(c *Config) any { return &c.Results.HTTPAddr }, kindPlain},
	{"results.http_token", "http-token", "bearer token results serve requires on every endpoint but /healthz, /readyz and /api/openapi.json (empty: none)" + secretUsage, func(c *Config) any { return &c.Results.HTTPToken }, kindSecret},
	{"results.http_writer_tokens", "http-writer-tokens", "NAME=TOKEN pairs, comma separated: bearer tokens that may also write through results serve (client= tracking, kept apart per NAME; generate=true)" + secretUsage, func(c *Config) any { return &c.Results.HTTPWriterTokens }, kindSecret},
	{"results.http_max_requests", "http-max-requests", "API requests results serve answers at once; more get 503 with Retry-After at once", func(c *Config) any { return &c.Results.HTTPMaxRequests }, kindPlain},
	{"results.http_client_cap", "http-client-cap", "states one client key of /api/scrambles may be served in all (each costs a row of served_scrambles); past it the key gets 409", func(c *Config) any { return &c.Results.HTTPClientCap }, kindPlain},
	{"results.metrics_addr", "metrics-addr", "listen address of results run's /metrics, /healthz and /readyz (empty: none); results.http_token guards /metrics", func(c *Config) any { return &c.Results.MetricsAddr }, kindPlain},
	{"results.export_row_group", "export-row-group", "rows per row group of a Parquet export; what results export holds in memory grows with it (the default: about 17 MB for 15-puzzle rows)", func(c *Config) any { return &c.Results.ExportRowGroup }, kindPlain},
	{"producer.chunk_size", "chunk-size", "states per job message (0: chosen per puzzle)", func(c *Config) any { return &c.Producer.ChunkSize }, kindPlain},
	{"producer.priority", "priority", "high, normal or low: solvers take a lane's higher-priority jobs first (lower ones keep a small share)", func(c *Config) any { return &c.Producer.Priority }, kindPlain},
}

// emptyEnvKeys are the keys whose empty value means something (off) and so
// is honoured from an empty environment variable too.
var emptyEnvKeys = []string{"solver.metrics_addr", "results.metrics_addr"}

// ConfigFlag names the flag holding the config file path.
const ConfigFlag = "config"

const configUsage = "config file (else " + EnvPrefix + "_CONFIG, else the first of ./" + DefaultFile +
	", $XDG_CONFIG_HOME/tessera/" + DefaultFile + ", /etc/tessera/" + DefaultFile + " that exists)"

// Keys returns every configuration key, sorted, e.g. "nats.url".
func Keys() []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.name
	}
	sort.Strings(out)
	return out
}

// EnvName is the environment variable of a key: "nats.url" → TESSERA_NATS_URL.
func EnvName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// keyIndex is the index in keys of the key named name, or −1.
func keyIndex(name string) int {
	return slices.IndexFunc(keys, func(k key) bool { return k.name == name })
}

// bindFlag defines k's flag on fs with its default (from d) and its
// environment variable in the usage, unless fs already has a flag of that
// name.
func bindFlag(fs *pflag.FlagSet, k key, d *Config) {
	if fs.Lookup(k.flag) != nil {
		return
	}
	usage := k.usage + " [" + EnvName(k.name) + "]"
	if k.kind == kindSecret {
		// A secret's flag shows no default, whatever Default() says.
		fs.String(k.flag, "", usage)
		return
	}
	switch p := k.get(d).(type) {
	case *string:
		fs.String(k.flag, *p, usage)
	case *bool:
		fs.Bool(k.flag, *p, usage)
	case *int:
		fs.Int(k.flag, *p, usage)
	case *int64:
		fs.Int64(k.flag, *p, usage)
	case *time.Duration:
		fs.Var((*durationFlag)(new(*p)), k.flag, usage)
	default:
		panic(fmt.Sprintf("config: key %s has unsupported type %T", k.name, p))
	}
}

// Set is the keys one command reads. A command binds the flags of its own
// keys only (its --help lists what it uses) and Load validates only them:
// a bad value of the solver's keys does not stop `results dist`.
type Set struct{ names map[string]bool }

// Uses is the set of keys named: each name is a key ("solver.threads") or a section ("nats": every
// nats.* key). An unknown name panics: it is a programming error.
func Uses(names ...string) Set {
	s := Set{names: map[string]bool{}}
	for _, n := range names {
		found := false
		for _, k := range keys {
			if k.name == n || strings.HasPrefix(k.name, n+".") {
				s.names[k.name], found = true, true
			}
		}
		if !found {
			panic("config: no key or section " + n)
		}
	}
	return s
}

// Names lists s's keys, sorted.
func (s Set) Names() []string {
	out := make([]string, 0, len(s.names))
	for n := range s.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Bind defines --config and the flags of s's keys on fs (a flag fs
// already has is kept: a main may declare some of them itself, with the
// same name and a compatible type).
func (s Set) Bind(fs *pflag.FlagSet) {
	if fs.Lookup(ConfigFlag) == nil {
		fs.String(ConfigFlag, "", configUsage)
	}
	d := Default()
	for _, k := range keys {
		if s.names[k.name] {
			bindFlag(fs, k, &d)
		}
	}
}

// Load is the package's Load for a command that reads the keys of s: they
// come from the file, the environment and fs as usual; every other key
// keeps its default whatever the environment or file say (a shared
// tessera.yaml may hold every component's keys; an unknown key is still
// an error), and only s's keys are validated.
func (s Set) Load(fs *pflag.FlagSet) (Config, error) {
	return load("", fs, s.names)
}

func load(path string, fs *pflag.FlagSet, only map[string]bool) (Config, error) {
	c, _, _, err := loadFrom(path, fs, only)
	return c, err
}

// loadFrom is load, also returning the viper instance it read and the
// config file ("" when none), for Explain.
func loadFrom(path string, fs *pflag.FlagSet, only map[string]bool) (Config, *viper.Viper, string, error) {
	used := func(k key) bool { return only == nil || only[k.name] }
	v := viper.New()
	d := Default()
	for _, k := range keys {
		v.SetDefault(k.name, derefAny(k.get(&d)))
	}
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()

	if path == "" {
		path, _ = File(fs)
	}
	if path != "" {
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			return Config{}, nil, "", fmt.Errorf("config file %s: %w", path, err)
		}
		if unknown := unknownKeys(v.AllKeys()); len(unknown) > 0 {
			return Config{}, nil, "", unknownKeyError(path, unknown)
		}
	}

	if fs != nil {
		for _, k := range keys {
			if !used(k) {
				continue
			}
			if f := fs.Lookup(k.flag); f != nil {
				if err := v.BindPFlag(k.name, f); err != nil {
					return Config{}, nil, "", fmt.Errorf("config: bind flag --%s: %w", k.flag, err)
				}
			}
		}
	}

	for _, name := range emptyEnvKeys {
		// viper takes an empty variable for an unset one; for these keys
		// empty means "off", so TESSERA_SOLVER_METRICS_ADDR= turns it off
		// (a flag given on the command line still wins).
		k := keys[keyIndex(name)]
		val, set := os.LookupEnv(EnvName(name))
		if set && val == "" && !(fs != nil && fs.Lookup(k.flag) != nil && fs.Lookup(k.flag).Changed) {
			v.Set(name, "")
		}
	}
	for _, k := range keys {
		if !used(k) {
			// Set wins over every other source: a key this command does
			// not read cannot fail it.
			v.Set(k.name, derefAny(k.get(&d)))
		}
	}

	if err := secretFiles(v, fs, used); err != nil {
		return Config{}, nil, "", err
	}
	if err := checkDurations(v); err != nil {
		return Config{}, nil, "", err
	}
	var c Config
	// UnmarshalExact is a second guard: a key that slipped past the check
	// above (e.g. a scalar where a section belongs) still fails loudly.
	// Its messages quote the values they could not decode: mask secrets.
	if err := v.UnmarshalExact(&c); err != nil {
		return Config{}, nil, "", redact.Error(fmt.Errorf("config: %w", err), rawSecrets(v)...)
	}
	if err := c.validate(only); err != nil {
		if path == "" {
			// A setting the user believes is in a file is often just in a
			// file that was not found.
			return Config{}, nil, "", fmt.Errorf("%w\n(no config file was read: none given with --%s or %s_CONFIG, and none found at %s)",
				err, ConfigFlag, EnvPrefix, strings.Join(SearchPath(), ", "))
		}
		return Config{}, nil, "", err
	}
	if c.Database.PasswordFile != "" {
		if c.Database.Password != "" {
			return Config{}, nil, "", &KeyError{Key: "database.password_file", Msg: "conflicts with database.password: set one"}
		}
		pw, err := readPasswordFile(c.Database.PasswordFile)
		if err != nil {
			return Config{}, nil, "", &KeyError{Key: "database.password_file", Msg: err.Error()}
		}
		c.Database.Password = pw
	}
	return c, v, path, nil
}

// rawSecrets is every secret value v holds, as text, with the credentials
// inside its URL keys.
func rawSecrets(v *viper.Viper) []string {
	var out []string
	for _, k := range keys {
		raw := fmt.Sprint(v.Get(k.name))
		switch k.kind {
		case kindSecret:
			out = append(out, raw)
		case kindURL:
			out = append(out, redact.Secrets(raw)...)
		}
	}
	return out
}

// readPasswordFile returns the first line of path (Docker and Kubernetes
// secrets end it with a newline or not). Its errors name the file, never
// its content.
func readPasswordFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "" {
		return "", fmt.Errorf("%s: empty first line", path)
	}
	return line, nil
}

func derefAny(p any) any {
	switch p := p.(type) {
	case *string:
		return *p
	case *bool:
		return *p
	case *int:
		return *p
	case *int64:
		return *p
	case *time.Duration:
		return *p
	}
	panic(fmt.Sprintf("config: unsupported type %T", p))
}

func unknownKeys(all []string) []string {
	known := map[string]bool{}
	for _, k := range keys {
		known[k.name] = true
	}
	var out []string
	for _, k := range all {
		if !known[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// ErrInvalid matches (errors.Is) every error of Validate.
var ErrInvalid = errors.New("invalid configuration")

// KeyError is one bad key found by Validate.
type KeyError struct {
	Key string // e.g. "solver.mode"
	Msg string
}

func (e *KeyError) Error() string        { return e.Key + ": " + e.Msg }
func (e *KeyError) Is(target error) bool { return target == ErrInvalid }

// Validate checks every key and returns one *KeyError per bad key (joined),
// each naming it, e.g. `solver.mode: want optimal or fast, got "x"`.
func (c Config) Validate() error { return c.validate(nil) }

// validate is Validate reporting only the keys of only (nil: every key).
func (c Config) validate(only map[string]bool) error {
	var errs []error
	bad := func(key, format string, a ...any) {
		if only == nil || only[key] {
			errs = append(errs, &KeyError{Key: key, Msg: fmt.Sprintf(format, a...)})
		}
	}

	if strings.TrimSpace(c.NATS.URL) == "" {
		bad("nats.url", "must not be empty")
	} else {
		for _, u := range strings.Split(c.NATS.URL, ",") {
			// A bare host:port is fine: nats.go assumes nats://.
			if u = strings.TrimSpace(u); strings.Contains(u, "://") {
				if err := checkURL(u, "nats", "tls", "ws", "wss"); err != nil {
					bad("nats.url", "%v", err)
				}
			} else if _, err := strconv.ParseFloat(u, 64); err == nil {
				// nats.go would look up a host named "5" for ever.
				bad("nats.url", "%s is a number, not a server: want host:port or nats://host:port", u)
			}
		}
	}
	var methods []string
	switch {
	case c.NATS.User != "" && c.NATS.Password == "":
		bad("nats.password", "required with nats.user")
	case c.NATS.User == "" && c.NATS.Password != "":
		bad("nats.user", "required with nats.password")
	case c.NATS.User != "":
		methods = append(methods, "nats.user")
	}
	for _, m := range []struct{ key, val string }{
		{"nats.token", c.NATS.Token}, {"nats.nkey_file", c.NATS.NKeyFile}, {"nats.creds_file", c.NATS.CredsFile},
	} {
		if m.val != "" {
			methods = append(methods, m.key)
		}
	}
	if len(methods) > 1 {
		bad(methods[1], "conflicts with %s: configure one way to authenticate to NATS", methods[0])
	}
	if (c.NATS.TLSCertFile == "") != (c.NATS.TLSKeyFile == "") {
		bad("nats.tls_key_file", "nats.tls_cert_file and nats.tls_key_file go together")
	}
	for _, f := range []struct{ key, path string }{
		{"nats.nkey_file", c.NATS.NKeyFile}, {"nats.creds_file", c.NATS.CredsFile},
		{"nats.tls_ca_file", c.NATS.TLSCAFile}, {"nats.tls_cert_file", c.NATS.TLSCertFile},
		{"nats.tls_key_file", c.NATS.TLSKeyFile}, {"database.password_file", c.Database.PasswordFile},
	} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			bad(f.key, "%v", err)
		}
	}
	if c.NATS.MaxDeliver < 1 {
		bad("nats.max_deliver", "want at least 1, got %d", c.NATS.MaxDeliver)
	}
	if c.NATS.AckWait <= 0 {
		bad("nats.ack_wait", "want a positive duration, got %s", c.NATS.AckWait)
	}
	if c.NATS.MaxBytes < 0 {
		bad("nats.max_bytes", "want 0 (no limit) or a positive number of bytes, got %d", c.NATS.MaxBytes)
	}
	if c.NATS.PingInterval <= 0 {
		bad("nats.ping_interval", "want a positive duration, got %s", c.NATS.PingInterval)
	}
	if c.NATS.MaxPingsOut < 1 {
		bad("nats.max_pings_out", "want at least 1, got %d", c.NATS.MaxPingsOut)
	}
	// JetStream keeps at most five replicas of a stream.
	if c.NATS.Replicas < 1 || c.NATS.Replicas > 5 {
		bad("nats.replicas", "want 1 to 5, got %d", c.NATS.Replicas)
	}

	if u := strings.TrimSpace(c.Database.URL); u != "" && strings.Contains(u, "://") {
		if err := checkURL(u, "postgres", "postgresql"); err != nil {
			bad("database.url", "%v", err)
		}
	}

	if c.Solver.QuickWorkers < 0 {
		bad("solver.quick_workers", "want 0 or more, got %d", c.Solver.QuickWorkers)
	}
	if c.Solver.Workers < 0 {
		bad("solver.workers", "want 0 (one per core) or more, got %d", c.Solver.Workers)
	}
	if c.Solver.Threads < 0 {
		bad("solver.threads", "want 0 or more (0 and 1: one thread), got %d", c.Solver.Threads)
	}
	if c.Solver.Mode != "optimal" && c.Solver.Mode != "fast" {
		bad("solver.mode", "want optimal or fast, got %q", c.Solver.Mode)
	}
	if c.Solver.MaxNodes < 0 {
		bad("solver.max_nodes", "want 0 (no limit) or more, got %d", c.Solver.MaxNodes)
	}
	if c.Solver.Timeout < 0 {
		bad("solver.timeout", "want 0 (no limit) or a positive duration, got %s", c.Solver.Timeout)
	}
	// Below a few thousand nodes a subtree costs less than its message.
	if c.Solver.SplitSubtreeNodes < 1<<12 {
		bad("solver.split_subtree_nodes", "want at least 4096, got %d", c.Solver.SplitSubtreeNodes)
	}
	if c.Solver.SplitWindow < 1 {
		bad("solver.split_window", "want at least 1, got %d", c.Solver.SplitWindow)
	}
	if c.Solver.SplitStall < time.Second {
		bad("solver.split_stall", "want at least 1s, got %s", c.Solver.SplitStall)
	}
	if strings.TrimSpace(c.Solver.TablesDir) == "" {
		bad("solver.tables_dir", "must not be empty")
	}
	if strings.TrimSpace(c.Solver.Tables) == "" {
		bad("solver.tables", "want auto, none or table set names")
	}

	if c.Results.FetchBatch < 1 {
		bad("results.fetch_batch", "want at least 1, got %d", c.Results.FetchBatch)
	}
	if c.Results.FetchWait <= 0 {
		bad("results.fetch_wait", "want a positive duration, got %s", c.Results.FetchWait)
	}
	if c.Results.MaxBytes < 1<<20 {
		bad("results.max_bytes", "want at least 1048576 (1 MiB), got %d", c.Results.MaxBytes)
	}
	if c.Results.WriteTimeout < time.Second {
		bad("results.write_timeout", "want a duration of 1s or more, got %s", c.Results.WriteTimeout)
	}
	if c.Results.HTTPMaxRequests < 1 {
		bad("results.http_max_requests", "want 1 or more, got %d", c.Results.HTTPMaxRequests)
	}
	if c.Results.HTTPClientCap < 1 {
		bad("results.http_client_cap", "want 1 or more, got %d", c.Results.HTTPClientCap)
	}
	if c.Results.HTTPAddr == "" || !strings.Contains(c.Results.HTTPAddr, ":") {
		bad("results.http_addr", "want host:port or :port, got %q", c.Results.HTTPAddr)
	}
	if n := c.Results.ExportRowGroup; n < 1 || n > maxExportRowGroup {
		bad("results.export_row_group", "want 1 to %d rows, got %d", maxExportRowGroup, n)
	}
	if a := c.Results.MetricsAddr; a != "" && !strings.Contains(a, ":") {
		bad("results.metrics_addr", "want host:port, :port or empty (none), got %q", a)
	}
	if a := c.Solver.MetricsAddr; a != "" && !strings.Contains(a, ":") {
		bad("solver.metrics_addr", "want host:port, :port or empty (none), got %q", a)
	}

	switch c.Producer.Priority {
	case "high", "normal", "low":
	default:
		bad("producer.priority", "want high, normal or low, got %q", c.Producer.Priority)
	}
	if c.Producer.ChunkSize < 0 {
		bad("producer.chunk_size", "want 0 (automatic) or more, got %d", c.Producer.ChunkSize)
	}
	return errors.Join(errs...)
}

// checkURL reports a URL that does not parse or has the wrong scheme. Its
// messages show the URL redacted, never as given, and never url.Parse's own
// error, which quotes it raw.
func checkURL(s string, schemes ...string) error {
	shown := redact.URL(s)
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URL", shown)
	}
	for _, sc := range schemes {
		if strings.EqualFold(u.Scheme, sc) {
			if u.Host == "" && sc != "postgres" && sc != "postgresql" {
				return fmt.Errorf("%q has no host", shown)
			}
			return nil
		}
	}
	return fmt.Errorf("%q: want scheme %s", shown, strings.Join(schemes, ", "))
}

// Redacted returns c with every secret masked and the credentials inside
// its URLs masked (redact.URL): what may be printed.
func (c Config) Redacted() Config {
	for _, k := range keys {
		p, ok := k.get(&c).(*string)
		if !ok || *p == "" {
			continue
		}
		switch k.kind {
		case kindSecret:
			*p = redact.Mask
		case kindURL:
			*p = redact.URL(*p)
		}
	}
	return c
}

// plainConfig is Config without its methods, to print it without
// recursing into String.
type plainConfig Config

// String prints the redacted configuration (fmt's %v and %+v use it), so
// a Config dumped into a log or an error shows no secret.
func (c Config) String() string { return fmt.Sprintf("%+v", plainConfig(c.Redacted())) }

// GoString is String for %#v.
func (c Config) GoString() string { return "config.Config" + c.String() }

// LogValue makes slog print the redacted configuration.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }
