package prefault

import (
	"testing"
	"unsafe"
)

type withPointers struct {
	s    string
	p    *int
	n    uint32
	tail [3]byte
}

func TestSliceKeepsZero(t *testing.T) {
	for _, n := range []int{0, 1, 2, 100, 4095, 4096, 4097, 1 << 16, 1<<20 + 3} {
		b := Make[byte](n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("Make[byte](%d): len %d cap %d", n, len(b), cap(b))
		}
		for i, c := range b {
			if c != 0 {
				t.Fatalf("Make[byte](%d)[%d] = %d", n, i, c)
			}
		}
		w := Make[withPointers](n / 8)
		for i := range w {
			if w[i] != (withPointers{}) {
				t.Fatalf("Make[withPointers](%d)[%d] = %+v", n/8, i, w[i])
			}
		}
	}
	Slice([]struct{}{{}, {}}) // zero-sized elements: nothing to touch
	Slice[int](nil)
}

// TestSliceTouchesEveryPage checks the pages Slice writes: every page the
// slice's bytes are on, whatever its start's offset in its page.
func TestSliceTouchesEveryPage(t *testing.T) {
	buf := make([]byte, 8*pageSize)
	base := uintptr(unsafe.Pointer(&buf[0]))
	for _, start := range []int{0, 1, pageSize - 1, pageSize, pageSize + 17} {
		for _, n := range []int{1, 2, pageSize - 1, pageSize, pageSize + 1, 3*pageSize + 5} {
			if start+n > len(buf) {
				continue
			}
			clear(buf)
			s := buf[start : start+n]
			for i := range s {
				s[i] = 1 // Slice writes zeros: mark, then see which are left
			}
			Slice(s)
			first := (base + uintptr(start)) / uintptr(pageSize)
			last := (base + uintptr(start+n-1)) / uintptr(pageSize)
			for pg := first; pg <= last; pg++ {
				written := false
				for i := range s {
					if (base+uintptr(start+i))/uintptr(pageSize) == pg && s[i] == 0 {
						written = true
						break
					}
				}
				if !written {
					t.Errorf("start %d, %d bytes: page %d of %d..%d not written", start, n, pg, first, last)
				}
			}
		}
	}
}
