package table

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// reseal recomputes both checksums of a table file in place, so that
// damage done on purpose gets past them and reaches the structural checks.
func reseal(b []byte) {
	if len(b) < headerFixed+footerSize {
		return
	}
	foot := b[len(b)-footerSize:]
	binary.LittleEndian.PutUint32(foot[44:], crc32.Checksum(b[:len(b)-footerSize], castagnoli()))
	k := min(int(b[6]), len(b)-footerSize-headerFixed)
	binary.LittleEndian.PutUint32(foot[48:], metaChecksum(b[:headerFixed+k], foot))
}

// exercise runs every read of a table that opened and checks that damage
// is reported as ErrCorrupt. If Verify passes, lookups must agree with
// iteration. It returns the Verify error.
func exercise(tb testing.TB, tab *Table, probes [][]byte) error {
	tb.Helper()
	check := func(what string, err error) {
		if err != nil && !errors.Is(err, ErrCorrupt) {
			tb.Fatalf("%s: %v, want ErrCorrupt", what, err)
		}
	}
	for _, p := range probes {
		tab.Get(p)
		it := tab.Seek(p)
		for i := 0; i < 50 && it.Next(); i++ {
		}
		check("Seek", it.Err())
		it = tab.Prefix(p)
		for i := 0; i < 50 && it.Next(); i++ {
		}
		check("Prefix", it.Err())
	}
	verr := tab.Verify()
	check("Verify", verr)
	var keys, vals [][]byte
	it := tab.All()
	for it.Next() {
		keys = append(keys, bytes.Clone(it.Key()))
		vals = append(vals, it.Value())
	}
	check("All", it.Err())
	check("Err", tab.Err())
	if verr == nil {
		if it.Err() != nil || tab.Err() != nil {
			tb.Fatalf("Verify passed but reads failed: %v, %v", it.Err(), tab.Err())
		}
		if len(keys) != tab.Len() {
			tb.Fatalf("Verify passed but All gave %d records of %d", len(keys), tab.Len())
		}
		for i, k := range keys {
			if v, ok := tab.Get(k); !ok || !bytes.Equal(v, vals[i]) {
				tb.Fatalf("Verify passed but Get(%q) = %q, %v; All gave %q", k, v, ok, vals[i])
			}
		}
	}
	return verr
}

// TestTruncated cuts a valid file at every length: Open must fail with
// ErrCorrupt, as a torn write leaves the file.
func TestTruncated(t *testing.T) {
	for _, opts := range []WriterOptions{{}, {RestartInterval: 1}} {
		full := build(t, opts, manyKVs(60, 12))
		for n := 0; n < len(full); n++ {
			if _, err := newTable(full[:n]); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("r%d: cut to %d of %d bytes: Open = %v, want ErrCorrupt", opts.RestartInterval, n, len(full), err)
			}
		}
		// Through a real file, a few lengths.
		for _, n := range []int{0, 1, 7, len(full) / 2, len(full) - footerSize, len(full) - 1} {
			if _, err := openBytes(t, full[:n]); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("file cut to %d: %v, want ErrCorrupt", n, err)
			}
		}
		// Bytes appended: the footer is no longer at the end.
		if _, err := newTable(append(bytes.Clone(full), 0)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("appended byte: %v", err)
		}
	}
}

// TestFlipped changes each byte of a valid file in turn: Open or Verify
// must report ErrCorrupt (the CRC-32C catches every single-byte error), and
// no read may panic.
func TestFlipped(t *testing.T) {
	full := build(t, WriterOptions{RestartInterval: 4}, manyKVs(40, 9))
	probes := [][]byte{nil, []byte("key00000007"), []byte("key0000001"), []byte("zz")}
	for i := range full {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := bytes.Clone(full)
			b[i] ^= x
			tab, err := newTable(b)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("byte %d ^ %#x: %v", i, x, err)
				}
				continue
			}
			if err := exercise(t, tab, probes); err == nil {
				t.Fatalf("byte %d ^ %#x: Verify passes", i, x)
			}
		}
	}
}

// TestResealed damages files at random and fixes the checksums, so that
// the structural checks alone must keep reads in bounds and Verify must
// tell whether lookups can be trusted.
func TestResealed(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	bases := [][]byte{
		build(t, WriterOptions{RestartInterval: 1}, manyKVs(30, 5)),
		build(t, WriterOptions{RestartInterval: 4, SummaryInterval: 2}, manyKVs(30, 5)),
		build(t, WriterOptions{}, []kv{{"a", "1"}, {"ab", "2"}, {"abc", ""}, {"b", "4"}}),
	}
	probes := [][]byte{nil, []byte("a"), []byte("ab"), []byte("key00000014"), []byte("key"), []byte("\xff")}
	corrupt := 0
	for i := 0; i < 20000; i++ {
		b := bytes.Clone(bases[i%len(bases)])
		for n := 1 + rng.IntN(3); n > 0; n-- {
			b[rng.IntN(len(b))] = byte(rng.Uint32())
		}
		reseal(b)
		tab, err := newTable(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatal(err)
			}
			corrupt++
			continue
		}
		if exercise(t, tab, probes) != nil {
			corrupt++
		}
	}
	t.Logf("%d of 20000 damaged files detected", corrupt)
}

// TestStructure builds damaged files by hand that the checksums cannot
// catch, one per structural check.
func TestStructure(t *testing.T) {
	kvs := []kv{{"a", "1"}, {"ab", "2"}, {"b", "3"}, {"c", "4"}}
	base := build(t, WriterOptions{RestartInterval: 2, SummaryInterval: 1}, kvs)
	// Layout: header of 11 bytes (kind "test"), then records
	//   11: 00 01 01 'a' '1'   restart
	//   16: 01 01 01 'b' '2'   "ab" shares "a"
	//   21: 00 01 01 'b' '3'   restart
	//   26: 00 01 01 'c' '4'
	// then the restart offsets (11, 21) at 31, the summary keys
	// (01 'a' 01 'b') at 47, their offsets (47, 49) at 51 and the footer at 67.
	const foot = 67
	put := func(b []byte, at int, v uint64) { binary.LittleEndian.PutUint64(b[at:], v) }
	tests := []struct {
		name     string
		mutate   func(b []byte)
		openFail bool
	}{
		{"restart off data", func(b []byte) { put(b, 31+8, 1<<40) }, false},
		{"restart mid-record", func(b []byte) { put(b, 31+8, 22) }, false},
		{"restart not increasing", func(b []byte) { put(b, 31+8, 11) }, false},
		{"first restart", func(b []byte) { put(b, 31, 16) }, false},
		{"shared at restart", func(b []byte) { b[21] = 1 }, false},
		{"shared too long", func(b []byte) { b[16] = 5 }, false},
		{"key out of order", func(b []byte) { b[24] = 'a' }, false},
		{"duplicate key", func(b []byte) { b[29] = 'b' }, false},
		{"shared not maximal", func(b []byte) { b[16], b[18], b[19] = 0, 'a', 'a' }, false},
		{"value overruns", func(b []byte) { b[28] = 9 }, false},
		{"varint overruns", func(b []byte) { b[28] = 0x80 }, false},
		{"summary key", func(b []byte) { b[50] = 'c' }, false},
		{"summary key length", func(b []byte) { b[49] = 9 }, false},
		{"summary offset", func(b []byte) { put(b, 51+8, 48) }, false},
		{"summary offset outside", func(b []byte) { put(b, 51+8, 1<<40) }, false},
		{"first summary offset", func(b []byte) { put(b, 51, 48) }, true},
		{"count", func(b []byte) { put(b, foot+24, 3) }, false},
		{"count too big", func(b []byte) { put(b, foot+24, 1<<62) }, true},
		{"restarts", func(b []byte) { put(b, foot+32, 1) }, true},
		{"summary interval 0", func(b []byte) { binary.LittleEndian.PutUint32(b[foot+40:], 0) }, true},
		{"summary interval 2", func(b []byte) { binary.LittleEndian.PutUint32(b[foot+40:], 2) }, true},
		{"summary interval big", func(b []byte) { binary.LittleEndian.PutUint32(b[foot+40:], 1<<31) }, true},
		{"summary start", func(b []byte) { put(b, foot+16, 45) }, true},
		{"index offset", func(b []byte) { put(b, foot+8, 1<<63) }, true},
		{"data offset", func(b []byte) { put(b, foot, 12) }, true},
		{"kind", func(b []byte) { b[7] = 'T' }, true},
		{"kind length", func(b []byte) { b[6] = 200 }, true},
	}
	if len(base) != foot+footerSize || base[21] != 0 || base[26] != 0 || base[48] != 'a' {
		t.Fatalf("layout changed: %d bytes % x", len(base), base)
	}
	probes := [][]byte{nil, []byte("a"), []byte("ab"), []byte("b"), []byte("c"), []byte("bb")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Clone(base)
			tt.mutate(b)
			reseal(b)
			tab, err := newTable(b)
			if tt.openFail {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Open = %v, want ErrCorrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open = %v; the damage should pass Open", err)
			}
			if err := exercise(t, tab, probes); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Verify = %v, want ErrCorrupt", err)
			}
		})
	}
}
