package gcfloor

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	for _, tc := range []struct{ mem, want uint64 }{
		{0, UnknownFloor},
		{64 << 20, MinFloor},     // an eighth is 8 MiB: raised to the minimum
		{256 << 20, 32 << 20},    // an eighth
		{2 << 30, 256 << 20},     // an eighth
		{4 << 30, 512 << 20},     // an eighth
		{24 << 30, MaxFloor},     // an eighth is 3 GiB: capped
		{1 << 50, MaxFloor},      // capped
		{MinFloor * 8, MinFloor}, // exactly
	} {
		if got := For(tc.mem); got != tc.want {
			t.Errorf("For(%d MiB) = %d MiB, want %d MiB", tc.mem>>20, got>>20, tc.want>>20)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		live, floor uint64
		base, want  int
	}{
		{4 << 20, 256 << 20, 100, 6300},  // goal 256 MiB
		{100 << 20, 256 << 20, 100, 156}, // goal 256 MiB
		{128 << 20, 256 << 20, 100, 100}, // the base's goal is the floor
		{300 << 20, 256 << 20, 100, 100}, // above the floor
		{100 << 20, 256 << 20, 200, 200}, // the base's goal, 300 MiB, is higher
		{1, 1 << 62, 100, 1 << 30},       // bounded
	} {
		if got := percent(tc.live, tc.floor, tc.base); got != tc.want {
			t.Errorf("percent(%d, %d, %d) = %d, want %d", tc.live, tc.floor, tc.base, got, tc.want)
		}
	}
}

var sink []byte

// garbage allocates n MiB a MiB at a time, keeping none of it.
func garbage(n int) {
	for range n {
		sink = make([]byte, 1<<20)
	}
	sink = nil
}

// collections returns how many collections allocating n MiB of garbage
// took.
func collections(n int) uint32 {
	before := numGC()
	garbage(n)
	return numGC() - before
}

func numGC() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.NumGC
}

// The tests below change the process's collector: they do not run in
// parallel with others.

func TestSetDefersCollection(t *testing.T) {
	runtime.GC()
	restore := Set(512 << 20)
	if n := collections(128); n != 0 { // with GOGC=100 alone, many
		t.Errorf("%d collections under the floor, want none", n)
	}
	restore()
	restore() // twice is harmless
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GC percent after restore = %d, want 100", p)
	}
	if n := collections(128); n == 0 {
		t.Error("no collection after restore")
	}
}

func TestSetAboveFloor(t *testing.T) {
	live := make([][]byte, 48)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	runtime.GC()
	restore := Set(16 << 20) // live is above the floor: GOGC=100 applies
	defer restore()
	// about ten times what is live: collects about ten times
	if n := collections(512); n < 4 {
		t.Errorf("%d collections above the floor, want about 10 (GOGC=100)", n)
	}
	runtime.KeepAlive(live)
}

// TestSetBackstop checks the memory limit that bounds the heap until a
// finalizer has retuned the percentage, and that restore lifts it.
func TestSetBackstop(t *testing.T) {
	runtime.GC()
	restore := Set(128 << 20)
	if l := debug.SetMemoryLimit(-1); l != 256<<20 {
		t.Errorf("memory limit = %d MiB, want 256 (twice the floor)", l>>20)
	}
	restore()
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("memory limit after restore = %d, want none", l)
	}
	for _, tc := range []struct {
		live, floor uint64
		want        uint64
	}{
		{4 << 20, 128 << 20, 256 << 20},
		{100 << 20, 128 << 20, 400 << 20}, // twice GOGC's goal
	} {
		if got := backstop(tc.live, tc.floor, 100); got != tc.want {
			t.Errorf("backstop(%d MiB, %d MiB) = %d MiB, want %d", tc.live>>20, tc.floor>>20, got>>20, tc.want>>20)
		}
	}
}

// TestSetLimitAlreadySet checks that a memory limit set (GOMEMLIMIT)
// leaves the collector alone.
func TestSetLimitAlreadySet(t *testing.T) {
	old := debug.SetMemoryLimit(1 << 30)
	defer debug.SetMemoryLimit(old)
	restore := Set(128 << 20)
	defer restore()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GC percent = %d with a memory limit set, want 100", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 1<<30 {
		t.Errorf("memory limit = %d, want 1 GiB as set", l)
	}
}

// held is the live heap of the tests that wait for a tune: in a global, so
// that the compiler cannot find it dead early.
var held [][]byte

// TestSetShrinksBackToFloor checks that the tuner sees every collection:
// after the live heap passes the floor and falls back, the goal is the
// floor again.
func TestSetShrinksBackToFloor(t *testing.T) {
	collect := watchTunes(t)
	runtime.GC()
	restore := Set(128 << 20)
	defer restore()
	for range 96 {
		held = append(held, make([]byte, 1<<20))
	}
	collect() // 96 MiB live: GOGC's goal, 192 MiB
	held = nil
	collect() // nothing live: the floor again
	// The goal itself, not a count of collections of garbage: where the
	// pacer triggers below its goal varies from run to run.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	const floor = 128 << 20
	if ms.NextGC < floor*3/4 || ms.NextGC > floor+floor/8 {
		t.Errorf("heap goal %d MiB after the live heap shrank under a 128 MiB floor, want about the floor", ms.NextGC>>20)
	}
}

// watchTunes returns a function that collects and waits for the tuner's
// finalizer to run after the collection.
func watchTunes(t *testing.T) (collect func()) {
	done := make(chan uint32, 16)
	tuned = func(cycle uint32) {
		select {
		case done <- cycle:
		default: // a tune the test does not wait for
		}
	}
	t.Cleanup(func() { tuned = nil })
	return func() {
		t.Helper()
		for len(done) > 0 {
			<-done
		}
		// Wait for the tune of this collection, not a late one of a
		// collection the runtime started by itself before. A late tune
		// arms its finalizer during this collection, which then does not
		// collect it: collect again.
		timeout := time.After(10 * time.Second)
		for {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			select {
			case cycle := <-done:
				if cycle >= ms.NumGC {
					return
				}
			case <-timeout:
				t.Fatal("no tune after a collection")
			}
		}
	}
}

func TestSetOff(t *testing.T) {
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	restore := Set(512 << 20)
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("GC percent = %d after Set with collection off, want -1", p)
	}
	restore()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("GC percent = %d after restore, want -1", p)
	}
}

func TestSetZero(t *testing.T) {
	restore := Set(0)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GC percent = %d after Set(0), want 100", p)
	}
	restore()
}

func TestMemory(t *testing.T) {
	m := Memory()
	if runtime.GOOS == "linux" && m == 0 {
		t.Fatal("Memory() = 0 on Linux")
	}
	if m != 0 && m < 16<<20 {
		t.Errorf("Memory() = %d bytes: too little to be real", m)
	}
}

// TestSetGrowsPastFloor checks that the goal follows the live heap once
// it passes the floor: the percentage set for a small heap must not stay.
func TestSetGrowsPastFloor(t *testing.T) {
	collect := watchTunes(t)
	runtime.GC()
	restore := Set(32 << 20) // 4 MiB live: 700%
	defer restore()
	for range 64 {
		held = append(held, make([]byte, 1<<20))
	}
	defer func() { held = nil }()
	collect() // the tuner sees 64 MiB live: 100%
	// at 700% of 64 MiB, no collection; at 100%, about five
	if n := collections(320); n < 2 {
		t.Errorf("%d collections with 64 MiB live over a 32 MiB floor, want about 5 (GOGC=100)", n)
	}
}

// TestSetKeepsFloorAfterCollection checks that a collection that finds
// little live leaves the goal at the floor: the garbage it has not yet
// swept must not count as live.
func TestSetKeepsFloorAfterCollection(t *testing.T) {
	runtime.GC()
	restore := Set(128 << 20)
	defer restore()
	// about four collections at the floor; with 4 MiB live and GOGC=100, a hundred
	if n := collections(512); n > 8 {
		t.Errorf("%d collections of 512 MiB of garbage under a 128 MiB floor, want about 4", n)
	}
}

// TestSetForLazy checks that SetFor asks for the memory only at the
// first collection, and takes its floor from then on.
func TestSetForLazy(t *testing.T) {
	collect := watchTunes(t)
	runtime.GC()
	asked := 0
	restore := SetFor(func() uint64 { asked++; return 2 << 30 }) // floor 256 MiB
	defer restore()
	if asked != 0 {
		t.Fatalf("memory asked %d times before any collection, want none", asked)
	}
	if l := debug.SetMemoryLimit(-1); l != 2*FirstFloor {
		t.Errorf("memory limit before the first collection = %d MiB, want %d (twice FirstFloor)", l>>20, 2*FirstFloor>>20)
	}
	collect()
	if asked != 1 {
		t.Errorf("memory asked %d times after a collection, want once", asked)
	}
	if n := collections(128); n != 0 {
		t.Errorf("%d collections under the 256 MiB floor SetFor found, want none", n)
	}
	collect()
	if asked != 1 {
		t.Errorf("memory asked %d times after two collections, want once", asked)
	}
}
