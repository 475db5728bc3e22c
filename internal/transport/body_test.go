package transport

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingReader serves n bytes of 'x' (n < 0: forever) and counts what
// was read.
type countingReader struct {
	n, read int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.n >= 0 && r.read >= r.n {
		return 0, io.EOF
	}
	k := int64(len(p))
	if r.n >= 0 {
		k = min(k, r.n-r.read)
	}
	for i := range k {
		p[i] = 'x'
	}
	r.read += k
	return int(k), nil
}

func (r *countingReader) Close() error { return nil }

func response(body io.ReadCloser, contentLength int64) *http.Response {
	return &http.Response{StatusCode: 200, Body: body, ContentLength: contentLength}
}

func TestReadAtMostStopsOneBytePastTheLimit(t *testing.T) {
	for _, limit := range []int64{0, 1, 1000, MaxErrorBody} {
		r := &countingReader{n: -1}
		var buf buffer
		err := readAtMost(&buf, response(r, -1), limit, 0)
		assert.ErrorIs(t, err, errTooLarge)
		assert.LessOrEqual(t, r.read, limit+1, "bytes read of an endless body")
		assert.Len(t, buf.b, int(limit))
	}
}

func TestReadAtMostGrowsWithoutDoubling(t *testing.T) {
	for _, n := range []int64{0, 1, 100 << 10, 3 << 20, 10<<20 + 7} {
		t.Run("chunked", func(t *testing.T) {
			var buf buffer
			require.NoError(t, readAtMost(&buf, response(&countingReader{n: n}, -1), 64<<20, -1))
			assert.Len(t, buf.b, int(n))
			// Chunks joined once: exactly the body, or the first chunk.
			assert.LessOrEqual(t, cap(buf.b), max(int(n), minChunk), "capacity for %d bytes", n)
		})
		t.Run("with Content-Length", func(t *testing.T) {
			var buf buffer
			require.NoError(t, readAtMost(&buf, response(&countingReader{n: n}, n), 64<<20, n))
			assert.Len(t, buf.b, int(n))
			if n > 0 {
				assert.Equal(t, int(n)+1, cap(buf.b), "sized from Content-Length")
			}
		})
	}
}

func TestReadAtMostReportsAReadError(t *testing.T) {
	boom := errors.New("boom")
	var buf buffer
	body := io.NopCloser(io.MultiReader(strings.NewReader("abc"), iotestErr{boom}))
	err := readAtMost(&buf, response(body, -1), 100, -1)
	assert.ErrorIs(t, err, boom)
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }
