package job

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/tessera-solver/tessera/internal/result"
)

// The results message is the pipeline's busiest wire format: a thousand
// 8-puzzle rows per message, decoded by the writer and encoded by the
// workers, where encoding/json's reflection costs more CPU than solving
// them. The codec below handles the common shape by hand: plain ASCII
// strings, known fields, whole numbers. Anything else (escapes, non-ASCII,
// unknown or repeated keys, nulls, numbers out of range) goes to
// encoding/json, so the format on the wire and every answer stay exactly what
// encoding/json makes of them; the tests hold the two equal.

// MarshalResults is json.Marshal(r), byte for byte.
func MarshalResults(r Results) ([]byte, error) {
	if b, ok := appendResults(make([]byte, 0, 64+160*len(r.Results)), &r); ok {
		return b, nil
	}
	return json.Marshal(r)
}

// UnmarshalResults is json.Unmarshal(data, &rs) for a fresh rs.
func UnmarshalResults(data []byte) (Results, error) {
	d := decoder{b: data}
	if rs, ok := d.results(); ok {
		return rs, nil
	}
	var rs Results
	err := json.Unmarshal(data, &rs)
	return rs, err
}

// appendResults appends r as encoding/json writes it, or reports false
// when some value needs what only encoding/json does (escapes, floats in
// exponent form).
func appendResults(b []byte, r *Results) ([]byte, bool) {
	ok := true
	str := func(s string) {
		if !plain(s) {
			ok = false
			return
		}
		b = append(b, '"')
		b = append(b, s...)
		b = append(b, '"')
	}
	if !plain(r.JobID) || !plain(r.Puzzle) {
		return nil, false
	}
	b = appendHead(b, r.V, `,"job":`, r.JobID, r.BatchID, r.Puzzle, r.FirstSeq)
	b = append(b, `,"results":`...)
	if r.Results == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Results {
			x := &r.Results[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"puzzle":`...)
			str(x.Puzzle)
			b = append(b, `,"state":`...)
			str(x.State)
			b = append(b, `,"status":`...)
			str(string(x.Status))
			b = append(b, `,"moves":`...)
			str(x.Moves)
			b = append(b, `,"length":`...)
			b = strconv.AppendInt(b, int64(x.Length), 10)
			b = append(b, `,"optimal":`...)
			b = strconv.AppendBool(b, x.Optimal)
			b = append(b, `,"lower_bound":`...)
			b = strconv.AppendInt(b, int64(x.LowerBound), 10)
			b = append(b, `,"nodes":`...)
			b = strconv.AppendInt(b, x.Nodes, 10)
			b = append(b, `,"elapsed_ms":`...)
			// encoding/json writes this form for 0 and 1e-6 <= |f| < 1e21.
			f := x.ElapsedMS
			if a := math.Abs(f); math.IsNaN(f) || a >= 1e21 || (a != 0 && a < 1e-6) {
				return nil, false
			}
			b = strconv.AppendFloat(b, f, 'f', -1, 64)
			b = append(b, `,"solver":`...)
			str(x.Solver)
			if x.Error != "" {
				b = append(b, `,"error":`...)
				str(x.Error)
			}
			if x.Attempts != 0 {
				b = append(b, `,"attempts":`...)
				b = strconv.AppendInt(b, int64(x.Attempts), 10)
			}
			b = append(b, '}')
			if !ok {
				return nil, false
			}
		}
		b = append(b, ']')
	}
	if r.Replace {
		b = append(b, `,"replace":true`...)
	}
	b = append(b, '}')
	return b, ok
}

// decoder reads the common shape of a results message; any false return
// means "not this shape", never "invalid": encoding/json decides that.
type decoder struct {
	b []byte
	i int
	// the last row's texts that rows repeat (see same)
	puzzle, status, solver string
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// byte consumes c after optional whitespace.
func (d *decoder) byte(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// str reads a string of printable ASCII without escapes.
func (d *decoder) str() (string, bool) { return d.same("") }

// same is str, returning prev itself when the text equals it: the rows
// of a message repeat their puzzle, status and solver, and sharing one
// string saves an allocation per field.
func (d *decoder) same(prev string) (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := prev
			if string(d.b[start:d.i]) != prev {
				s = string(d.b[start:d.i])
			}
			d.i++
			return s, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", false
		}
		d.i++
	}
	return "", false
}

// number reads a JSON number's text; whole says whether it had neither
// fraction nor exponent.
func (d *decoder) number() (tok []byte, whole, ok bool) {
	d.ws()
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	first := d.i
	n := digits()
	if n == 0 || (n > 1 && d.b[first] == '0') {
		return nil, false, false
	}
	whole = true
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, false, false
		}
		whole = false
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, false, false
		}
		whole = false
	}
	return d.b[start:d.i], whole, true
}

// int reads a whole number of at most 18 digits (longer ones, which
// may not fit, are left to encoding/json).
func (d *decoder) int() (int64, bool) {
	tok, whole, ok := d.number()
	if !ok || !whole {
		return 0, false
	}
	neg := tok[0] == '-'
	if neg {
		tok = tok[1:]
	}
	if len(tok) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range tok {
		v = 10*v + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

func (d *decoder) float() (float64, bool) {
	tok, _, ok := d.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	return v, err == nil
}

func (d *decoder) bool() (bool, bool) {
	d.ws()
	rest := d.b[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.i += 5
		return false, true
	}
	return false, false
}

// object reads {"key": value, ...}, calling field for each key, which
// reads the value and returns its bit in seen (0: unknown key). A key
// seen twice is left to encoding/json.
func (d *decoder) object(field func(key string) (uint32, bool)) bool {
	if !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return true
	}
	var seen uint32
	for {
		k, ok := d.str()
		if !ok || !d.byte(':') {
			return false
		}
		bit, ok := field(k)
		if !ok || bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		if d.byte('}') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

func (d *decoder) results() (Results, bool) {
	var rs Results
	ok := d.object(func(k string) (uint32, bool) {
		var ok bool
		var v int64
		switch k {
		case "v":
			v, ok = d.int()
			rs.V = int(v)
			return 1 << 0, ok
		case "job":
			rs.JobID, ok = d.str()
			return 1 << 1, ok
		case "batch":
			rs.BatchID, ok = d.int()
			return 1 << 2, ok
		case "puzzle":
			rs.Puzzle, ok = d.str()
			return 1 << 3, ok
		case "seq":
			rs.FirstSeq, ok = d.int()
			return 1 << 4, ok
		case "results":
			rs.Results, ok = d.list()
			return 1 << 5, ok
		case "replace":
			rs.Replace, ok = d.bool()
			return 1 << 6, ok
		}
		return 0, false
	})
	d.ws()
	return rs, ok && d.i == len(d.b)
}

// array reads [elem, ...], calling elem for each element (never null:
// that is left to encoding/json, which keeps a nil slice).
func (d *decoder) array(elem func() bool) bool {
	if !d.byte('[') {
		return false
	}
	if d.byte(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.byte(']') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

// list reads the results array.
func (d *decoder) list() ([]result.Result, bool) {
	out := []result.Result{}
	if !d.array(func() bool {
		out = append(out, result.Result{})
		return d.result(&out[len(out)-1])
	}) {
		return nil, false
	}
	return out, true
}

func (d *decoder) result(x *result.Result) bool {
	return d.object(func(k string) (uint32, bool) {
		var ok bool
		var v int64
		switch k {
		case "puzzle":
			x.Puzzle, ok = d.same(d.puzzle)
			d.puzzle = x.Puzzle
			return 1 << 0, ok
		case "state":
			x.State, ok = d.str()
			return 1 << 1, ok
		case "status":
			d.status, ok = d.same(d.status)
			x.Status = result.Status(d.status)
			return 1 << 2, ok
		case "moves":
			x.Moves, ok = d.str()
			return 1 << 3, ok
		case "length":
			v, ok = d.int()
			x.Length = int(v)
			return 1 << 4, ok
		case "optimal":
			x.Optimal, ok = d.bool()
			return 1 << 5, ok
		case "lower_bound":
			v, ok = d.int()
			x.LowerBound = int(v)
			return 1 << 6, ok
		case "nodes":
			x.Nodes, ok = d.int()
			return 1 << 7, ok
		case "elapsed_ms":
			x.ElapsedMS, ok = d.float()
			return 1 << 8, ok
		case "solver":
			x.Solver, ok = d.same(d.solver)
			d.solver = x.Solver
			return 1 << 9, ok
		case "error":
			x.Error, ok = d.str()
			return 1 << 10, ok
		case "attempts":
			v, ok = d.int()
			x.Attempts = int(v)
			return 1 << 11, ok
		}
		return 0, false
	})
}

// The job message is the producer's per-state cost on small boards (a
// thousand 8-puzzle states per message, encoded by the producer and
// decoded by a worker): the same hand-written path, the same fallback.

// MarshalJob is json.Marshal(j), byte for byte.
func MarshalJob(j Job) ([]byte, error) {
	if b, ok := appendJob(make([]byte, 0, 128+24*len(j.States)), &j); ok {
		return b, nil
	}
	return json.Marshal(j)
}

// UnmarshalJob is json.Unmarshal(data, &j) for a fresh j.
func UnmarshalJob(data []byte) (Job, error) {
	d := decoder{b: data}
	if j, ok := d.job(); ok {
		return j, nil
	}
	var j Job
	err := json.Unmarshal(data, &j)
	return j, err
}

// appendHead appends the fields both messages open with, in their
// structs' order: version, id (under idKey), batch, puzzle, first seq.
// id and puzzle must be plain.
func appendHead(b []byte, v int, idKey, id string, batch int64, puzzle string, seq int64) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(v), 10)
	b = append(b, idKey...)
	b = append(append(append(b, '"'), id...), '"')
	b = append(b, `,"batch":`...)
	b = strconv.AppendInt(b, batch, 10)
	b = append(b, `,"puzzle":`...)
	b = append(append(append(b, '"'), puzzle...), '"')
	b = append(b, `,"seq":`...)
	return strconv.AppendInt(b, seq, 10)
}

// plain says whether encoding/json writes s as it is, between quotes.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

func appendJob(b []byte, j *Job) ([]byte, bool) {
	if !plain(j.ID) || !plain(j.Puzzle) || !plain(j.Mode) || !plain(j.Goal) || !plain(string(j.Priority)) {
		return nil, false
	}
	str := func(s string) {
		b = append(b, '"')
		b = append(b, s...)
		b = append(b, '"')
	}
	b = appendHead(b, j.V, `,"id":`, j.ID, j.BatchID, j.Puzzle, j.FirstSeq)
	b = append(b, `,"states":`...)
	if j.States == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, s := range j.States {
			if !plain(s) {
				return nil, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			str(s)
		}
		b = append(b, ']')
	}
	b = append(b, `,"mode":`...)
	str(j.Mode)
	if j.MaxNodes != 0 {
		b = append(b, `,"max_nodes":`...)
		b = strconv.AppendInt(b, j.MaxNodes, 10)
	}
	if j.TimeoutMS != 0 {
		b = append(b, `,"timeout_ms":`...)
		b = strconv.AppendInt(b, j.TimeoutMS, 10)
	}
	if j.Goal != "" {
		b = append(b, `,"goal":`...)
		str(j.Goal)
	}
	if j.Replace {
		b = append(b, `,"replace":true`...)
	}
	if j.Split {
		b = append(b, `,"split":true`...)
	}
	if j.Priority != "" {
		b = append(b, `,"priority":`...)
		str(string(j.Priority))
	}
	return append(b, '}'), true
}

func (d *decoder) job() (Job, bool) {
	var j Job
	ok := d.object(func(k string) (uint32, bool) {
		var ok bool
		var v int64
		switch k {
		case "v":
			v, ok = d.int()
			j.V = int(v)
			return 1 << 0, ok
		case "id":
			j.ID, ok = d.str()
			return 1 << 1, ok
		case "batch":
			j.BatchID, ok = d.int()
			return 1 << 2, ok
		case "puzzle":
			j.Puzzle, ok = d.str()
			return 1 << 3, ok
		case "seq":
			j.FirstSeq, ok = d.int()
			return 1 << 4, ok
		case "states":
			j.States, ok = d.strings()
			return 1 << 5, ok
		case "mode":
			j.Mode, ok = d.str()
			return 1 << 6, ok
		case "max_nodes":
			j.MaxNodes, ok = d.int()
			return 1 << 7, ok
		case "timeout_ms":
			j.TimeoutMS, ok = d.int()
			return 1 << 8, ok
		case "goal":
			j.Goal, ok = d.str()
			return 1 << 9, ok
		case "replace":
			j.Replace, ok = d.bool()
			return 1 << 10, ok
		case "split":
			j.Split, ok = d.bool()
			return 1 << 11, ok
		case "priority":
			var p string
			p, ok = d.str()
			j.Priority = Priority(p)
			return 1 << 12, ok
		}
		return 0, false
	})
	d.ws()
	return j, ok && d.i == len(d.b)
}

// strings reads an array of strings.
func (d *decoder) strings() ([]string, bool) {
	out := []string{}
	if !d.array(func() bool {
		s, ok := d.str()
		out = append(out, s)
		return ok
	}) {
		return nil, false
	}
	return out, true
}

// StringLen is len(json.Marshal(s)): the room s takes in a message, which
// the producer asks of every state it packs.
func StringLen(s string) int {
	if plain(s) {
		return len(s) + 2
	}
	b, _ := json.Marshal(s)
	return len(b)
}
