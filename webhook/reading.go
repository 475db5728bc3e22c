package webhook

import "io"

// DefaultMaxReading is how many delivery bodies a Handler reads at once
// unless [WithMaxReading] says otherwise: with the default body bound, at
// most 64 MiB of bodies are held while being read and checked.
const DefaultMaxReading = 64

// WithMaxReading bounds the delivery bodies the handler reads at once,
// from their first byte until they are checked and decoded; one more gets
// 503 Service Unavailable with a Retry-After header, its body unread. So
// the memory bodies take is at most n times [WithMaxBodyBytes], however
// many senders there are, and whether or not they know the secret (a
// signature can only be checked on a body read whole). It is a bound of
// its own, beside [WithMaxInFlight], which bounds the deliveries with the
// event function. The default is [DefaultMaxReading]; n must be positive.
func WithMaxReading(n int) Option {
	return func(h *Handler) error {
		if n <= 0 {
			return problem("WithMaxReading needs a positive count, got %d", n)
		}
		h.reading = make(chan struct{}, n)
		return nil
	}
}

// startReading takes a place among the bodies being read, if one is free.
func (h *Handler) startReading() bool {
	select {
	case h.reading <- struct{}{}:
		return true
	default:
		return false
	}
}

func (h *Handler) doneReading() { <-h.reading }

// readAll reads body whole into one buffer sized by the length the request
// announced, when it is within bound: a body then costs its own size, not
// the garbage of a growing buffer.
func readAll(body io.Reader, announced, bound int64) ([]byte, error) {
	if announced <= 0 || announced > bound {
		return io.ReadAll(body)
	}
	b := make([]byte, 0, announced+1) // one more, to see the end without growing
	for {
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // longer than announced: net/http fails it, growing is rare
		}
	}
}
