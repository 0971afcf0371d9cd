package object

import (
	"fmt"
	"io"
	"sync"
)

// MemStore is an in-memory object store for tests and for callers that
// build objects before deciding to keep them. It keeps canonical bytes and
// verifies them on every read, as Store does.
type MemStore struct {
	mu      sync.RWMutex
	objects map[ID][]byte
}

// NewMemStore returns an empty in-memory store.
func NewMemStore() *MemStore { return &MemStore{objects: make(map[ID][]byte)} }

// Get returns a copy of the object's payload.
func (m *MemStore) Get(id ID) (Kind, []byte, error) {
	m.mu.RLock()
	canon, ok := m.objects[id]
	m.mu.RUnlock()
	if !ok {
		return KindInvalid, nil, &Error{Op: "read", ID: id, Err: ErrNotFound}
	}
	if sumCanonical(canon) != id {
		return KindInvalid, nil, &Error{Op: "read", ID: id, Err: ErrHashMismatch}
	}
	kind, payload, err := ParseEnvelope(canon)
	if err != nil {
		return KindInvalid, nil, &Error{Op: "read", ID: id, Err: err}
	}
	return kind, append([]byte(nil), payload...), nil
}

// Put stores a copy of the object.
func (m *MemStore) Put(kind Kind, payload []byte) (ID, error) {
	if !kind.Valid() {
		return Zero, fmt.Errorf("%w: kind %d", ErrInvalidArgument, kind)
	}
	id := Sum(kind, payload)
	m.mu.Lock()
	if _, ok := m.objects[id]; !ok {
		m.objects[id] = Canonical(kind, payload)
	}
	m.mu.Unlock()
	return id, nil
}

// PutReader stores an object read from r.
func (m *MemStore) PutReader(kind Kind, r io.Reader, size int64) (ID, error) {
	data, err := io.ReadAll(io.LimitReader(r, size+1))
	if err != nil {
		return Zero, err
	}
	if int64(len(data)) != size {
		return Zero, fmt.Errorf("object: input has %d bytes, want %d", len(data), size)
	}
	return m.Put(kind, data)
}

// Has reports whether the object is present.
func (m *MemStore) Has(id ID) (bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	_, ok := m.objects[id]
	return ok, nil
}

// Len returns the number of objects.
func (m *MemStore) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.objects)
}

// Corrupt flips a bit of a stored object, for tests of corruption
// handling. It reports whether the object was present.
func (m *MemStore) Corrupt(id ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	canon, ok := m.objects[id]
	if ok {
		c := append([]byte(nil), canon...)
		c[len(c)-1] ^= 1
		m.objects[id] = c
	}
	return ok
}
