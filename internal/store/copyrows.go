package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
)

// Rows go to PostgreSQL as one buffer in COPY's binary format, written
// here by hand. pgx's CopyFrom encodes each value through its type map
// (a plan looked up per value, the value boxed in an interface), which
// costs the writer several times what this encoding does. The columns are stagingColumns,
// in that order, with the types of solutions (and of the staging tables,
// which createTemp gives the same types).

// copyHeader opens a binary COPY stream: the signature, no flags, no
// header extension.
var copyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// appendCopyRows appends batch's rows to buf as a whole binary COPY
// stream (header, one tuple per result, trailer).
func appendCopyRows(buf []byte, batch []job.Results) []byte {
	buf = append(buf, copyHeader...)
	for m := range batch {
		rs := &batch[m]
		for i := range rs.Results {
			buf = appendCopyRow(buf, rs, &rs.Results[i], rs.FirstSeq+int64(i))
		}
	}
	return binary.BigEndian.AppendUint16(buf, 0xffff) // the trailer: a field count of -1
}

// appendCopyRow appends one tuple: what resultRows.Values gave pgx before
// (moves and length only for solved rows, optimal only when solved, an
// empty error as NULL), and the delivery attempt.
func appendCopyRow(buf []byte, rs *job.Results, r *result.Result, seq int64) []byte {
	solved := r.Status == result.StatusSolved
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(stagingColumns)))
	buf = copyInt64(buf, rs.BatchID)
	buf = copyInt64(buf, seq)
	buf = copyText(buf, rowPuzzle(rs, r))
	buf = copyText(buf, r.State)
	if solved {
		buf = copyText(buf, r.Moves)
		buf = copyInt32(buf, int32(r.Length))
	} else {
		buf = copyNull(buf)
		buf = copyNull(buf)
	}
	buf = binary.BigEndian.AppendUint32(buf, 1)
	if solved && r.Optimal {
		buf = append(buf, 1)
	} else {
		buf = append(buf, 0)
	}
	buf = copyInt32(buf, int32(r.LowerBound))
	buf = copyInt64(buf, r.Nodes)
	buf = binary.BigEndian.AppendUint32(buf, 8)
	buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(r.ElapsedMS))
	buf = copyText(buf, r.Solver)
	buf = copyText(buf, string(r.Status))
	if r.Error != "" {
		buf = copyText(buf, r.Error)
	} else {
		buf = copyNull(buf)
	}
	// A message from a solverd that does not say (0) is a first delivery.
	return copyInt32(buf, int32(max(r.Attempts, 1)))
}

func copyNull(buf []byte) []byte { return binary.BigEndian.AppendUint32(buf, math.MaxUint32) } // length -1

func copyInt32(buf []byte, v int32) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 4)
	return binary.BigEndian.AppendUint32(buf, uint32(v))
}

func copyInt64(buf []byte, v int64) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 8)
	return binary.BigEndian.AppendUint64(buf, uint64(v))
}

// copyText appends a text value. ValidateResults has refused what text
// cannot hold (invalid UTF-8, NUL), and a text value is far below 2³¹
// bytes (a results message is).
func copyText(buf []byte, s string) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
	return append(buf, s...)
}

// copyStatement is the COPY of stagingColumns into table, binary.
func copyStatement(table string) string {
	return "COPY " + pgx.Identifier{table}.Sanitize() + " (" + strings.Join(stagingColumns, ", ") + ") FROM STDIN (FORMAT binary)"
}

// copyIn sends rows (from appendCopyRows, n of them) to table in tx and
// checks that PostgreSQL took all n. Errors are PostgreSQL's as they come
// (the callers tell a unique violation from the rest).
func copyIn(ctx context.Context, tx pgx.Tx, table string, rows []byte, n int) error {
	tag, err := tx.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(rows), copyStatement(table))
	if err != nil {
		return err
	}
	if got := tag.RowsAffected(); got != int64(n) {
		return fmt.Errorf("copied %d rows of %d", got, n)
	}
	return nil
}

// copyBufs holds the buffers of appendCopyRows between writes: one write
// of 20,000 8-puzzle rows takes about 3.5 MB.
var copyBufs = sync.Pool{New: func() any { return new([]byte) }}
