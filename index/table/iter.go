package table

import "bytes"

// Iter walks records in key order. It is not safe for concurrent use; each
// goroutine takes its own.
//
//	it := t.Prefix([]byte("path\x00"))
//	for it.Next() {
//		use(it.Key(), it.Value())
//	}
//	if err := it.Err(); err != nil { … }
type Iter struct {
	t      *Table
	off    int    // the next record
	lower  []byte // skip keys before this one (Seek)
	prefix []byte // stop at the first key without this prefix (Prefix)
	key    []byte
	value  []byte
	begun  bool // key holds a record's key
	done   bool
	err    error
}

// All returns an iterator over every record.
func (t *Table) All() *Iter {
	return &Iter{t: t, off: t.dataOff, done: t.count == 0}
}

// Seek returns an iterator over the records whose keys are >= key. It
// binary searches the index, so it costs what a Get costs.
func (t *Table) Seek(key []byte) *Iter {
	it := &Iter{t: t, done: t.count == 0}
	if it.done {
		return it
	}
	g, _, _, err := t.search(key)
	if err != nil {
		it.fail(err)
		return it
	}
	if g < 0 {
		it.off = t.dataOff
		return it
	}
	if it.off, err = t.restart(g); err != nil {
		it.fail(err)
		return it
	}
	it.lower = bytes.Clone(key)
	return it
}

// Prefix returns an iterator over the records whose keys start with p.
func (t *Table) Prefix(p []byte) *Iter {
	it := t.Seek(p)
	it.prefix = bytes.Clone(p)
	return it
}

// Next advances to the next record and reports whether there is one. It
// returns false at the end and on damage; Err tells which.
func (it *Iter) Next() bool {
	t := it.t
	for !it.done {
		if it.off >= t.indexOff {
			it.done = true
			break
		}
		r, err := t.decode(it.off, t.indexOff, len(it.key))
		if err != nil {
			it.fail(err)
			break
		}
		suffix := r.suffix(t.data)
		if it.begun && !after(it.key, r.shared, suffix) {
			it.fail(corruptf("record at %d: key not after the previous key", it.off))
			break
		}
		it.key = append(it.key[:r.shared], suffix...)
		it.value = r.value(t.data)
		it.off = r.next
		it.begun = true
		if it.lower != nil {
			if bytes.Compare(it.key, it.lower) < 0 {
				continue
			}
			it.lower = nil
		}
		if it.prefix != nil && !bytes.HasPrefix(it.key, it.prefix) {
			it.done = true
			break
		}
		return true
	}
	it.value = nil
	return false
}

// after reports whether prev[:shared]+suffix is greater than prev,
// shared <= len(prev), without building the key.
func after(prev []byte, shared int, suffix []byte) bool {
	return bytes.Compare(suffix, prev[shared:]) > 0
}

// Key returns the current key. It is valid until the next call of Next;
// copy it to keep it.
func (it *Iter) Key() []byte { return it.key }

// Value returns the current value. It aliases the table's mapping: valid
// until the table is closed, not to be modified.
func (it *Iter) Value() []byte { return it.value }

// Err returns the damage that stopped the iteration, or nil.
func (it *Iter) Err() error { return it.err }

func (it *Iter) fail(err error) {
	it.err, it.done = err, true
	it.t.setErr(err)
}
