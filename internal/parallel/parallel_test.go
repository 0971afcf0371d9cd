package parallel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestDoRunsEveryJobOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		seen := make([]atomic.Int32, n)
		if err := Do(context.Background(), n, func(i int) error { seen[i].Add(1); return nil }); err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if got := seen[i].Load(); got != 1 {
				t.Fatalf("n=%d: job %d ran %d times", n, i, got)
			}
		}
	}
}

func TestDoStopsOnError(t *testing.T) {
	bad := errors.New("bad")
	var ran atomic.Int32
	err := Do(context.Background(), 10000, func(i int) error {
		ran.Add(1)
		if i == 3 {
			return bad
		}
		return nil
	})
	if !errors.Is(err, bad) {
		t.Fatalf("err = %v", err)
	}
	if ran.Load() == 10000 {
		t.Fatal("every job ran after an error")
	}
}

func TestDoCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Do(ctx, 10, func(int) error { t.Error("a job ran after cancellation"); return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}
