package transport

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

var errTooLarge = errors.New("response body too large")

// buffer holds a body.
type buffer struct{ b []byte }

// Chunks of a body of unknown length grow from minChunk to maxChunk.
const (
	minChunk = 32 << 10
	maxChunk = 1 << 20
)

// readAtMost reads at most limit bytes of resp's body into buf and closes
// the body; more is errTooLarge, with the first limit bytes kept.
//
// A known length within the limit sizes the buffer exactly. An unknown one
// is read into chunks that are joined once at the end, into a buffer of
// exactly the body's size: no doubling, and the only garbage is the chunks,
// once.
func readAtMost(buf *buffer, resp *http.Response, limit, contentLength int64) error {
	defer resp.Body.Close()
	first := buf.b[:0]
	if contentLength > 0 && contentLength <= limit && int64(cap(first)) < contentLength+1 {
		// One byte more than announced, to see the end without growing.
		first = make([]byte, 0, contentLength+1)
	}
	if cap(first) == 0 {
		first = make([]byte, 0, minChunk)
	}
	chunks := [][]byte{first}
	total := int64(0)
	var err error
	for {
		c := &chunks[len(chunks)-1]
		if len(*c) == cap(*c) {
			*c = (*c)[:len(*c):len(*c)]
			chunks = append(chunks, make([]byte, 0, min(max(2*cap(*c), minChunk), maxChunk)))
			c = &chunks[len(chunks)-1]
		}
		// Never ask for more than one byte past the limit.
		want := min(int64(cap(*c)-len(*c)), limit+1-total)
		var n int
		n, err = resp.Body.Read((*c)[len(*c) : int64(len(*c))+want])
		*c = (*c)[:len(*c)+n]
		total += int64(n)
		if total > limit || err != nil {
			break
		}
	}
	if err == io.EOF {
		err = nil
	}
	if total > limit {
		err = errTooLarge
		total = limit
	}
	buf.b = join(chunks, total)
	return err
}

// join returns the first n bytes of chunks as one slice: the first chunk
// itself when it holds them all.
func join(chunks [][]byte, n int64) []byte {
	if int64(len(chunks[0])) >= n {
		return chunks[0][:n]
	}
	out := make([]byte, 0, n)
	for _, c := range chunks {
		out = append(out, c[:min(int64(len(c)), n-int64(len(out)))]...)
	}
	return out
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
