package main

import (
	"log/slog"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/solve"
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
