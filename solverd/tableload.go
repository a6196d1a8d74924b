package main

import (
	"log/slog"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/solve"
)

// loadTables maps the configured table sets into the process-wide solver.
// Notices (a better set is missing) go to note; only those of puzzle go
// when puzzle is not empty, so a one-off solve is not told about tables it
// does not use.
func loadTables(cfg config.Solver, puzzle string, note func(string)) (*solve.Loaded, error) {
	l, err := solve.Default().LoadTables(cfg.TablesDir, cfg.Tables, cfg.TablesPrivate)
	if err != nil {
		return nil, err
	}
	for _, n := range l.Notices {
		if puzzle == "" || n.Puzzle == puzzle {
			note(n.Text)
		}
	}
	return l, nil
}

// logTables reports what the daemon loaded.
func logTables(log *slog.Logger, l *solve.Loaded, dir string) {
	if len(l.Sets) == 0 {
		log.Info("no pattern databases loaded; sliding puzzles use walking distance", "tables_dir", dir)
		return
	}
	log.Info("pattern databases loaded", "sets", l.Sets, "tables_dir", dir)
}
