package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/redact"
)

// everyKey is every configuration key: `config show` explains them all,
// whichever command reads each.
var everyKey = config.Uses("nats", "database", "solver", "results", "producer")

func configCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Show the effective configuration and where each value comes from",
		Args:  nArgs(0),
	}
	var asJSON bool
	show := &cobra.Command{
		Use:   "show [--json]",
		Short: "Print every configuration key's effective value and its source (default, file, env or flag)",
		Long: "show loads the configuration as every tessera command does (defaults, then the config file, then\n" +
			"TESSERA_* variables, then flags) and prints each key, its value and where that value came from.\n" +
			"Secrets print as " + redact.Mask + " when set and URLs without their credentials. The first line names the\n" +
			"config file read, or says none was found and where it looked (--config, TESSERA_CONFIG, then\n" +
			"./tessera.yaml, $XDG_CONFIG_HOME/tessera/tessera.yaml, /etc/tessera/tessera.yaml).",
		Args: nArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			origins, err := everyKey.Explain(c.Flags())
			if err != nil {
				return usageError{Err: err}
			}
			out := c.OutOrStdout()
			if asJSON {
				return json.NewEncoder(out).Encode(struct {
					File string          `json:"file"`
					Keys []config.Origin `json:"keys"`
				}{config.Describe(c.Flags()), origins})
			}
			fmt.Fprintln(out, "# "+config.Describe(c.Flags()))
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			for _, o := range origins {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", o.Key, o.Value, o.Source)
			}
			return tw.Flush()
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "one JSON object: the file line and every key")
	everyKey.Bind(show.Flags())
	c.AddCommand(show)
	return c
}
