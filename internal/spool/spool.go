// Package spool holds a command's whole answer before any of it is
// written, so that an error while rendering never leaves half an answer
// on stdout, without the copies a bytes.Buffer makes to grow.
package spool

import "io"

// Spool is an io.Writer that keeps what is written in chunks of a fixed
// size, each allocated when the one before is full, never copied as a
// bytes.Buffer's array is when it doubles. The zero Spool is empty and
// ready.
type Spool struct {
	chunks [][]byte
}

// chunkSize is large enough that a write rarely spans two chunks, small
// enough that the last one's unused end is little.
const chunkSize = 1 << 20

// Write appends p; it never fails.
func (s *Spool) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		last := len(s.chunks) - 1
		if last < 0 || len(s.chunks[last]) == cap(s.chunks[last]) {
			s.chunks = append(s.chunks, make([]byte, 0, chunkSize))
			last++
		}
		c := s.chunks[last]
		k := min(len(p), cap(c)-len(c))
		s.chunks[last] = append(c, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

// Len is how many bytes the spool holds.
func (s *Spool) Len() int {
	n := 0
	for _, c := range s.chunks {
		n += len(c)
	}
	return n
}

// WriteTo writes what the spool holds to w, stopping at w's first error.
func (s *Spool) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, c := range s.chunks {
		k, err := w.Write(c)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
