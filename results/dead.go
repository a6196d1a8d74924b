package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/internal/store"
)

// deadCmd is `results dead`: the dead letters, everything that did not
// become a row of solutions, with the reason.
func deadCmd() *cobra.Command {
	var (
		batch  int64
		limit  int
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "dead [--batch ID] [--limit N] [--json]",
		Short: "List dead letters: input and results that did not become a row, with the reason",
		Long: "Every input state ends as one row of solutions or one dead letter. A dead letter is\n" +
			"a job too malformed to answer, a result the writer could not store (a failed row\n" +
			"takes its place), a second state claiming a (batch, seq) that holds another one\n" +
			"(collision), or input the producer could not enqueue. Oldest first.\n" +
			"Text: one line per letter, `id time source batch seq job reason`, then the payload\n" +
			"(the first 200 bytes) indented. --json: one object per letter, payload in full.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("batch") && batch <= 0 {
				return usagef("--batch %d: want a positive batch id", batch)
			}
			_, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			ls, err := st.DeadLetters(cmd.Context(), batch, limit)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetEscapeHTML(false)
				for _, l := range ls {
					if err := enc.Encode(deadJSON{l, string(l.Payload)}); err != nil {
						return err
					}
				}
				return nil
			}
			for _, l := range ls {
				fmt.Fprintf(out, "%d %s %s batch=%s seq=%s job=%s %s\n", l.ID, l.CreatedAt.Format(time.RFC3339), l.Source,
					optInt(l.BatchID), optInt(l.Seq), orDash(l.JobID), l.Reason)
				fmt.Fprintf(out, "    %s\n", preview(l.Payload, 200))
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%d dead letters\n", len(ls))
			return nil
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "only the letters of this batch")
	c.Flags().IntVar(&limit, "limit", 0, "at most this many (0: all)")
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON object per letter")
	return keyed(c, dbKeys)
}

type deadJSON struct {
	store.DeadLetter
	Payload string `json:"payload"` // the original bytes as text (invalid UTF-8 shows as U+FFFD)
}

func optInt(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// preview is the first n bytes of b as one printable line.
func preview(b []byte, n int) string {
	s := string(b)
	cut := len(s) > n
	if cut {
		s = s[:n]
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, s)
	if cut {
		s += fmt.Sprintf("… (%d bytes)", len(b))
	}
	return s
}
