package solve

// Status is the outcome of one solve. The strings are stored in PostgreSQL
// and printed by the CLI, so they are part of the contract.
type Status string

const (
	StatusSolved         Status = "solved"
	StatusBudgetExceeded Status = "budget_exceeded"
	StatusInvalid        Status = "invalid"
	StatusUnsolvable     Status = "unsolvable"
	StatusFailed         Status = "failed"
)

// Result is what every solver returns, after its moves have been replayed
// against the input. Field names and JSON keys follow the design contract.
type Result struct {
	Puzzle     string  `json:"puzzle"`
	State      string  `json:"state"`
	Status     Status  `json:"status"`
	Moves      string  `json:"moves"`
	Length     int     `json:"length"`
	Optimal    bool    `json:"optimal"`
	LowerBound int     `json:"lower_bound"`
	Nodes      int64   `json:"nodes"`
	ElapsedMS  float64 `json:"elapsed_ms"`
	Solver     string  `json:"solver"`
	Error      string  `json:"error,omitempty"`
}
