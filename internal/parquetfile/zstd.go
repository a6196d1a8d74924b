package parquetfile

import (
	"fmt"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress"
	pzstd "github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// pageWindow is the zstd window: the library compresses one page at a
// time, and a page is at most its page buffer (parquet.PageBufferSize,
// 256 KiB by default), so no match lies further back.
const pageWindow = 256 << 10

// zstdCodec is zstd at the default level with a page-sized window. The
// library's own codec keeps the level's 8 MiB window, 16 MiB of history
// for each encoder, which a collection may drop and the next page
// allocate again; this one encoder holds under 1 MiB and gives the same
// bytes within a page (docs/BENCHMARKS.md).
type zstdCodec struct {
	enc *zstd.Encoder // EncodeAll is safe for concurrent use
	dec pzstd.Codec   // reading is the library's
}

var _ compress.Codec = (*zstdCodec)(nil)

func newZstd() (*zstdCodec, error) {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(pageWindow),
		zstd.WithLowerEncoderMem(true),
		zstd.WithZeroFrames(true),
		zstd.WithEncoderCRC(false),
	)
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	return &zstdCodec{enc: enc}, nil
}

func (c *zstdCodec) String() string                            { return c.dec.String() }
func (c *zstdCodec) CompressionCodec() format.CompressionCodec { return c.dec.CompressionCodec() }
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}
func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) { return c.dec.Decode(dst, src) }
