package main

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// loadTables chooses the configured table sets (mapped on first use) and
// returns them with the solver over them and the built-in algorithms.
// Notices (a better set is missing) go to note; only those of puzzle go
// when puzzle is not empty, so a one-off solve is not told about tables it
// does not use.
func loadTables(cfg config.Solver, puzzle string, note func(string)) (*solve.Loaded, *solve.Solver, error) {
	l, err := solve.Tables(cfg.TablesDir, cfg.Tables, cfg.TablesPrivate)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range l.Notices {
		if puzzle == "" || n.Puzzle == puzzle {
			note(n.Text)
		}
	}
	return l, solve.New(l.Registry()), nil
}

// logTables reports what the daemon loaded.
func logTables(log *slog.Logger, l *solve.Loaded, dir string) {
	if len(l.Sets) == 0 {
		log.Info("no table sets in use; sliding puzzles use walking distance", "tables_dir", dir)
		return
	}
	log.Info("table sets in use (mapped on first use)", "sets", l.Sets, "tables_dir", dir)
}

// missingOptional is the notice for a one-off solve of spec in mode under
// "auto" when the best set serving it is an optional one that is not
// built and no other serving set is loaded: the solve still works, but a
// 5×5 Loopover in fast mode, for one, falls back to a four-piece phase 1
// and answers 32.5 moves on random states where loopover-5x5-p7 gives
// shorter ones, and the 15-puzzle's missing table was already named.
func missingOptional(cfg config.Solver, l *solve.Loaded, spec puzzle.Spec, mode result.Mode) string {
	auto := slices.ContainsFunc(strings.Split(cfg.Tables, ","), func(s string) bool { return strings.TrimSpace(s) == "auto" })
	if !auto {
		return ""
	}
	serving := catalog.Serving(spec, mode)
	if len(serving) == 0 || slices.ContainsFunc(serving, func(s catalog.Set) bool { return slices.Contains(l.Sets, s.Name) }) {
		return ""
	}
	best := serving[0]
	if !best.Optional {
		return ""
	}
	return fmt.Sprintf("table set %s (%s) is not in %s: %s in %s mode is solved without it, with longer answers or more search; build it with `%s`",
		best.Name, best.Puzzle, cfg.TablesDir, spec, mode, best.BuildCommand())
}
