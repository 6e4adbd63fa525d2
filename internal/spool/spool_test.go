package spool

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestSpoolKeepsWhatIsWritten writes pieces of many sizes, some within a
// chunk, some across two, some longer than several, and checks that the
// spool gives back the same bytes, in order, as a bytes.Buffer does.
func TestSpoolKeepsWhatIsWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, sizes := range [][]int{
		nil,
		{0},
		{1, 2, 3},
		{chunkSize},
		{chunkSize - 1, 2},
		{3*chunkSize + 5},
		{10, chunkSize, 0, chunkSize/2 + 7, 2 * chunkSize},
	} {
		var s Spool
		var want bytes.Buffer
		for _, n := range sizes {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(r.Uint32())
			}
			if k, err := s.Write(p); k != n || err != nil {
				t.Fatalf("%v: Write of %d = %d, %v", sizes, n, k, err)
			}
			want.Write(p)
		}
		if s.Len() != want.Len() {
			t.Errorf("%v: Len = %d, want %d", sizes, s.Len(), want.Len())
		}
		var got bytes.Buffer
		if n, err := s.WriteTo(&got); err != nil || n != int64(want.Len()) {
			t.Errorf("%v: WriteTo = %d, %v", sizes, n, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%v: the spool gave back other bytes", sizes)
		}
		for i, c := range s.chunks {
			if cap(c) != chunkSize || i < len(s.chunks)-1 && len(c) != chunkSize {
				t.Errorf("%v: chunk %d holds %d of %d bytes before the last", sizes, i, len(c), cap(c))
			}
		}
	}
}

// failAfter fails the write after n bytes have been written.
type failAfter struct{ n int }

var errFull = errors.New("full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriteToStopsAtTheFirstError: WriteTo reports the writer's error
// and the bytes written before it, and writes nothing after.
func TestWriteToStopsAtTheFirstError(t *testing.T) {
	var s Spool
	if _, err := s.Write(make([]byte, 3*chunkSize)); err != nil {
		t.Fatal(err)
	}
	w := &failAfter{n: chunkSize + 10}
	n, err := s.WriteTo(w)
	if !errors.Is(err, errFull) || n != chunkSize+10 {
		t.Errorf("WriteTo = %d, %v; want %d, %v", n, err, chunkSize+10, errFull)
	}
}
