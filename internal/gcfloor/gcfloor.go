// Package gcfloor puts a floor under the garbage collector's heap goal,
// for a process that runs one command and exits.
//
// With GOGC's default of 100, a process collects each time its heap
// doubles from what the last collection left live: a rebuild of the index
// whose live heap grows from 4 MB to 500 MB collects about twenty times,
// and marks all that is live each time (a fifth of the rebuild's user
// time on Go's source tree); a query that allocates 10 MB collects ten
// times. With a floor, the process collects only once its heap reaches
// the floor, and as GOGC says after that: it marks far less, and holds
// about the larger of the floor and what GOGC would let it hold (the
// runtime's goal also moves with the stacks; see tune).
//
// The goal is kept by setting the GC percentage after each collection
// from the heap it left (a finalizer sees each collection), rather than
// by a memory limit: near a limit the runtime returns memory to the
// system and faults it back in, which costs more than it saves. Until
// the finalizer has run, the goal is the old percentage of the new live
// heap, which may be far above both goals; so a memory limit twice the
// larger of them backs the percentage up, far enough above the goal not
// to be reached but in that window.
package gcfloor

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
)

// The floors For gives: an eighth of the memory, within these bounds.
const (
	MinFloor = 16 << 20
	MaxFloor = 768 << 20
	// UnknownFloor is For's floor when the memory is not known.
	UnknownFloor = 256 << 20
)

// For returns the floor for a machine, or a container, with mem bytes
// of memory (0: not known): an eighth of it, from MinFloor to MaxFloor.
// Several ctx processes at once (hooks, agents) each hold at most that.
func For(mem uint64) uint64 {
	if mem == 0 {
		return UnknownFloor
	}
	return min(max(mem/8, MinFloor), MaxFloor)
}

// Memory returns the memory the process may use: the machine's, or its
// control group's limit when that is lower; 0 when it is not known.
func Memory() uint64 { return memory() }

// SetFor is Set with the floor For(memory()), found only once the heap
// has reached FirstFloor: finding the memory cost a new process about
// 1 ms (it reads /proc/self/cgroup and the group's limits on Linux), a
// seventh of a search, which never allocates that much; nor does a query.
func SetFor(memory func() uint64) (restore func()) {
	return set(FirstFloor, func() uint64 { return For(memory()) })
}

// FirstFloor is SetFor's floor until the first collection.
const FirstFloor = 32 << 20

// Set makes the heap goal max(floor, GOGC's goal) until the returned
// function is called, which sets the GC percentage and the memory limit
// back. A floor of 0, collection turned off (GOGC=off), or a memory
// limit already set leaves the collector as it is.
//
// Set is meant for the start of a process's main function: it changes
// the whole process's collector, and it counts the heap live as the
// runtime's minimum, 4 MiB, until the first collection (a larger heap
// is bounded by the memory limit until then).
func Set(floor uint64) (restore func()) { return set(floor, nil) }

// set is Set with the floor first given, and, with later, the floor
// later gives from the first collection on.
func set(floor uint64, later func() uint64) (restore func()) {
	base := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1) // reads it
	if floor == 0 || base < 0 || limit != math.MaxInt64 {
		debug.SetGCPercent(base)
		return func() {}
	}
	t := &tuner{floor: floor, base: base, later: later}
	t.mu.Lock()
	t.set(minHeap)
	t.arm()
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if !t.done {
			t.done = true
			debug.SetGCPercent(base)
			debug.SetMemoryLimit(limit)
		}
	}
}

type tuner struct {
	mu    sync.Mutex
	floor uint64
	base  int
	pct   int // the GC percentage set
	done  bool
	// later, if set, gives the floor at the first tune.
	later func() uint64
}

// sentinel is an object whose finalizer runs after the collection that
// finds it unreachable; it is large enough not to share a block of the
// tiny allocator, whose objects' finalizers may never run.
type sentinel struct{ _ [32]byte }

// arm sets a finalizer that tunes the collector after the next
// collection, and arms again. Called with t.mu held.
func (t *tuner) arm() {
	runtime.SetFinalizer(new(sentinel), func(*sentinel) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if !t.done {
			cycle := t.tune()
			t.arm()
			if tuned != nil {
				tuned(cycle)
			}
		}
	})
}

// goal is the heap goal of GC percentage pct for a live heap.
func goal(live uint64, pct int) uint64 { return live + live*uint64(pct)/100 }

// tuned, if set (by tests), is called after each tune a finalizer runs,
// with the number of collections the tune saw (MemStats.NumGC).
var tuned func(cycle uint32)

// minHeap is the runtime's minimum heap goal: before the first
// collection it counts nothing live and takes this as the base.
const minHeap = 4 << 20

// tune sets the GC percentage that puts the heap goal at the floor, or
// the base percentage when its goal is higher, from the heap a collection
// just found live, and returns the number of collections so far. Called
// with t.mu held, after a collection.
//
// The live heap is the goal the collection set, divided by 1+pct/100:
// MemStats.HeapAlloc would count the garbage not yet swept, and
// runtime/metrics, which has it, costs every process a tenth of a
// millisecond to initialise, 2% of a search. ReadMemStats stops the
// world for some microseconds, once a collection.
func (t *tuner) tune() (cycle uint32) {
	if t.later != nil {
		t.floor, t.later = t.later(), nil
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	cycle = ms.NumGC
	t.set(ms.NextGC * 100 / uint64(100+t.pct))
	// The runtime multiplies the percentage by the stacks and globals too
	// (a rebuild's first collection, with 13 MB live, met a goal of 1.4
	// GB for a 768 MiB floor): a goal above the floor is scaled down to
	// it, once.
	if t.pct > t.base {
		runtime.ReadMemStats(&ms)
		if ms.NextGC > t.floor+t.floor/8 {
			t.pct = max(t.base, int(uint64(t.pct)*t.floor/ms.NextGC))
			debug.SetGCPercent(t.pct)
		}
	}
	return cycle
}

// set sets the GC percentage for a live heap, and the memory limit that
// bounds the heap until the next tune (backstop). Called with t.mu held.
func (t *tuner) set(live uint64) {
	live = max(live, minHeap)
	t.pct = percent(live, t.floor, t.base)
	debug.SetGCPercent(t.pct)
	debug.SetMemoryLimit(int64(min(backstop(live, t.floor, t.base), math.MaxInt64)))
}

// backstop is the memory limit for a live heap: twice the larger of the
// floor and the base percentage's goal.
func backstop(live, floor uint64, base int) uint64 {
	return 2 * max(floor, goal(live, base))
}

// percent returns the GC percentage whose goal, live*(1+p/100), is the
// floor, or base when base's goal is at least the floor.
func percent(live, floor uint64, base int) int {
	if goal(live, base) >= floor {
		return base
	}
	return int(min((floor-live)*100/live, 1<<30))
}
