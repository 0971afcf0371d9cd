package lazyre

import (
	"slices"
	"sync"
	"testing"
)

func TestLazy(t *testing.T) {
	re := New(`^(\w+):(\d+)$`)
	if re.re != nil {
		t.Fatal("compiled before use")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !re.MatchString("a:1") || re.MatchString("a:b") {
				t.Error("MatchString")
			}
		}()
	}
	wg.Wait()
	if got := re.FindStringSubmatch("file:12"); !slices.Equal(got, []string{"file:12", "file", "12"}) {
		t.Fatalf("FindStringSubmatch = %q", got)
	}
	if got := New(`,`).Split("a,b,c", -1); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("Split = %q", got)
	}
	if got := New(`(\d)`).FindAllStringSubmatch("1a2", -1); len(got) != 2 || got[1][1] != "2" {
		t.Fatalf("FindAllStringSubmatch = %q", got)
	}
}

func TestInvalidPanicsOnUse(t *testing.T) {
	re := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for an invalid pattern")
		}
	}()
	re.MatchString("x")
}
