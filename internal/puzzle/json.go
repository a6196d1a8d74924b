package puzzle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

type stateJSON struct {
	Puzzle string          `json:"puzzle"`
	State  json.RawMessage `json:"state"`
}

// MarshalJSON encodes s as {"puzzle":"sliding:3x3","state":"1 2 3/4 5 6/7 8 0"}.
func (s State) MarshalJSON() ([]byte, error) {
	st, err := json.Marshal(s.String())
	if err != nil {
		return nil, err
	}
	return json.Marshal(stateJSON{Puzzle: s.Spec.String(), State: st})
}

// UnmarshalJSON reads the form MarshalJSON writes. "state" may also be an
// array: of rows, each an array of cells ([[1,2,3],[4,5,6],[7,8,0]]) or a
// row string (["1101","0110"]), or a flat row-major array of cells. Cells
// are numbers or strings (Loopover letters). The state is validated like
// Parse, solvability included; JSON null leaves s unchanged.
func (s *State) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	var w stateJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("state JSON: %v: %w", err, ErrMalformed)
	}
	if w.Puzzle == "" {
		return fmt.Errorf("state JSON: missing \"puzzle\": %w", ErrMalformed)
	}
	spec, err := ParseSpec(w.Puzzle)
	if err != nil {
		return err
	}
	text, err := stateText(spec, w.State)
	if err != nil {
		return fmt.Errorf("%s state JSON: %v: %w", spec, err, ErrMalformed)
	}
	st, err := Parse(spec, text)
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// stateText turns the JSON "state" value into the text format.
func stateText(spec Spec, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", fmt.Errorf("missing \"state\"")
	}
	switch raw[0] {
	case '"':
		var t string
		err := json.Unmarshal(raw, &t)
		return t, err
	case '[':
	default:
		return "", fmt.Errorf("\"state\" must be a string or an array of rows")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return "", err
	}
	// Rows: arrays of cells, or row strings (["1101","0110"]) when there
	// are exactly Rows strings; otherwise a flat row-major list of cells
	// (N ≥ 2·Rows, so the two cannot be confused).
	rows := len(items) == spec.Rows
	for _, it := range items {
		if len(it) == 0 || (it[0] != '[' && it[0] != '"') {
			rows = false
		}
	}
	var b strings.Builder
	for i, it := range items {
		if len(it) == 0 {
			return "", fmt.Errorf("item %d is empty", i+1)
		}
		if i > 0 {
			if rows {
				b.WriteByte('/')
			} else {
				b.WriteByte(' ')
			}
		}
		if it[0] != '[' {
			t, err := cellText(it)
			if err != nil {
				return "", fmt.Errorf("item %d: %v", i+1, err)
			}
			if !rows && strings.ContainsAny(t, " \t\r\n,/") {
				return "", fmt.Errorf("item %d: %q is not one cell", i+1, t)
			}
			if rows && strings.Contains(t, "/") {
				return "", fmt.Errorf("row %d: %q contains '/'", i+1, t)
			}
			b.WriteString(t)
			continue
		}
		if !rows {
			return "", fmt.Errorf("\"state\" has %d rows, want %d", len(items), spec.Rows)
		}
		var cells []json.RawMessage
		if err := json.Unmarshal(it, &cells); err != nil {
			return "", fmt.Errorf("row %d: %v", i+1, err)
		}
		for j, c := range cells {
			t, err := cellText(c)
			if err != nil {
				return "", fmt.Errorf("row %d, cell %d: %v", i+1, j+1, err)
			}
			if strings.ContainsAny(t, " \t\r\n,/") {
				return "", fmt.Errorf("row %d, cell %d: %q is not one cell", i+1, j+1, t)
			}
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t)
		}
	}
	return b.String(), nil
}

// cellText is the text of one JSON cell: a number's literal or a string.
func cellText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var t string
		if err := json.Unmarshal(raw, &t); err != nil {
			return "", err
		}
		return t, nil
	}
	if len(raw) == 0 || raw[0] == '[' || raw[0] == '{' {
		return "", fmt.Errorf("want a number or a string")
	}
	// Numbers (and true/false/null) go to the text parser as written,
	// which rejects anything but whole numbers in range by name.
	return string(raw), nil
}
