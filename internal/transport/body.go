package transport

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

var errTooLarge = errors.New("response body too large")

// buffer holds a body. Unlike bytes.Buffer it grows by a quarter at a time,
// not by doubling, so a large answer costs little more than its size.
type buffer struct{ b []byte }

const minGrow = 32 << 10

// readAtMost reads at most limit bytes of resp's body into buf and closes
// the body; more is errTooLarge, with the first limit bytes kept. A known
// length within the limit sizes the buffer exactly.
func readAtMost(buf *buffer, resp *http.Response, limit, contentLength int64) error {
	defer resp.Body.Close()
	b := buf.b[:0]
	if contentLength > 0 && contentLength <= limit && int64(cap(b)) < contentLength+1 {
		// One byte more than announced, to see the end without growing.
		b = make([]byte, 0, contentLength+1)
	}
	for {
		if len(b) == cap(b) {
			if int64(len(b)) > limit {
				break
			}
			grow := max(len(b)/4, minGrow)
			nb := make([]byte, len(b), len(b)+grow)
			copy(nb, b)
			b = nb
		}
		// Never ask for more than one byte past the limit.
		n, err := resp.Body.Read(b[len(b):min(int64(cap(b)), limit+1)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			break
		}
		if err == io.EOF {
			buf.b = b
			return nil
		}
		if err != nil {
			buf.b = b
			return err
		}
	}
	buf.b = b[:limit]
	return errTooLarge
}

var bufPool = sync.Pool{New: func() any { return new(buffer) }}

func getBuffer() *buffer { return bufPool.Get().(*buffer) }

func putBuffer(b *buffer) {
	if cap(b.b) > 4<<20 { // let huge buffers go
		return
	}
	b.b = b.b[:0]
	bufPool.Put(b)
}
