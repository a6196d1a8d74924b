package parquetfile

// Rows is the number of rows written so far.
func (w *Writer) Rows() int64 { return w.rows }
