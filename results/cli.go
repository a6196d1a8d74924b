package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/store"
)

type usageError = cmdkit.UsageError

func usagef(format string, a ...any) error { return cmdkit.Usagef(format, a...) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:   "results",
		Short: "Write solver results to PostgreSQL; print distributions and exports",
		Long: "results consumes TESSERA_RESULTS into PostgreSQL (the default command, also `results run`)\n" +
			"and reads the database back (dist, export, batches, dead, and over HTTP: serve). Every config key is a flag\n" +
			"and a TESSERA_* variable; see docs/PIPELINE-store.md.",
		Args: cobra.NoArgs,
	}
	runCmd := serviceCmd()
	root.RunE = runCmd.RunE
	keyed(root, runKeys)
	root.AddCommand(runCmd, migrateCmd(), distCmd(), exportCmd(), batchesCmd(), requeueCmd(), cancelCmd(), pauseCmd(), unpauseCmd(), splitsCmd(), deadCmd(), exactCmd(), serveCmd())
	cmdkit.SetExamples(root, examples)
	return cmdkit.Execute(ctx, root, args, nil, stdout, stderr)
}

// The config keys each command reads: its --help lists them and only them,
// and only they are validated (a bad solver.* value does not stop `dist`).
var (
	dbKeys      = config.Uses("database")
	runKeys     = config.Uses("database", "nats", "results.fetch_batch", "results.fetch_wait", "results.max_bytes", "results.write_timeout", "results.metrics_addr", "results.http_token")
	serveKeys   = config.Uses("database", "nats", "results.http_addr", "results.http_token", "results.http_writer_tokens", "results.http_max_requests", "producer.chunk_size")
	requeueKeys = config.Uses("database", "nats", "solver.max_nodes", "solver.timeout", "producer.chunk_size")
	cancelKeys  = config.Uses("database", "nats")
)

// keysAnnotation names the cobra annotation that carries a command's keys
// from keyed to setup.
const keysAnnotation = "tessera-config-keys"

// keyed binds the flags of set's keys on c and records set for setup.
func keyed(c *cobra.Command, set config.Set) *cobra.Command {
	set.Bind(c.Flags())
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[keysAnnotation] = strings.Join(set.Names(), ",")
	return c
}

// setup loads the configuration keys of cmd (see keyed) and opens the
// store (without connecting).
func setup(cmd *cobra.Command) (config.Config, *store.Store, error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return cfg, nil, err
	}
	url, err := store.ResolveURLSaying(cmd.Context(), cfg.Database.URL, func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), "results:", s) })
	if err != nil {
		return cfg, nil, err
	}
	st, err := store.Open(cmd.Context(), url, store.WithPassword(cfg.Database.Password))
	return cfg, st, err
}

// loadConfig loads the configuration keys of cmd (see keyed).
func loadConfig(cmd *cobra.Command) (config.Config, error) {
	cfg, err := config.Uses(strings.Split(cmd.Annotations[keysAnnotation], ",")...).Load(cmd.Flags())
	if err != nil {
		return cfg, usageError{Err: err}
	}
	return cfg, nil
}

// withStore opens the store of cmd's keys (see setup), runs f with it and
// closes it: the start of every command that reads or writes PostgreSQL.
func withStore(cmd *cobra.Command, f func(config.Config, *store.Store) error) error {
	cfg, st, err := setup(cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	return f(cfg, st)
}

func logger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func migrateCmd() *cobra.Command {
	var to int
	c := &cobra.Command{
		Use:   "migrate [--to N]",
		Short: "Apply the embedded schema migrations (idempotent; safe to run concurrently)",
		Long: "Brings the schema to the newest version, or with --to N up or down to version N\n" +
			"(0 drops everything): scripts/bench-dist.sh stores rows at version 6 and times\n" +
			"the backfill of version 7.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			if cmd.Flags().Changed("to") {
				err = st.MigrateTo(cmd.Context(), to)
			} else {
				err = st.Migrate(cmd.Context())
			}
			if err != nil {
				return err
			}
			v, err := st.SchemaVersion(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "schema at version %d\n", v)
			return nil
		},
	}
	c.Flags().IntVar(&to, "to", 0, "migrate up or down to this schema version instead of the newest")
	return keyed(c, dbKeys)
}
