package table

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// Verify checks the whole file: the content checksum, then every record
// and index entry: records that decode within the data region, keys that
// strictly increase and share with the previous key exactly their common
// prefix, restarts that fall on records storing their key whole, summary
// entries that repeat their restarts' keys and fill the summary, and the
// counts of the footer. It reads every page, unlike the other methods; a
// nil result means lookups on this file are exact.
func (t *Table) Verify() error {
	if t.data == nil {
		return nil
	}
	end := len(t.data) - footerSize
	if got := crc32.Checksum(t.data[:end], castagnoli()); got != t.crc {
		return corruptf("content checksum mismatch: %08x, footer says %08x", got, t.crc)
	}
	var prev, key []byte
	count, ri := 0, 0
	nextRestart := -1
	if t.restarts > 0 {
		var err error
		if nextRestart, err = t.restart(0); err != nil {
			return err
		}
		if nextRestart != t.dataOff {
			return corruptf("first restart at %d, data starts at %d", nextRestart, t.dataOff)
		}
	}
	for off := t.dataOff; off < t.indexOff; {
		if nextRestart >= 0 && nextRestart < off {
			return corruptf("restart %d at %d is not at a record", ri, nextRestart)
		}
		restart := off == nextRestart
		prevLen := len(prev)
		if restart {
			prevLen = 0
		}
		r, err := t.decode(off, t.indexOff, prevLen)
		if err != nil {
			return err
		}
		suffix := r.suffix(t.data)
		key = append(append(key[:0], prev[:r.shared]...), suffix...)
		if count > 0 {
			if bytes.Compare(key, prev) <= 0 {
				return corruptf("record at %d: key not after the previous key", off)
			}
			if !restart && r.shared < len(prev) && suffix[0] == prev[r.shared] {
				return corruptf("record at %d: shares %d bytes with the previous key, not all it could", off, r.shared)
			}
		}
		if restart {
			if ri%t.interval == 0 {
				sk, err := t.summaryKey(ri / t.interval)
				if err != nil {
					return err
				}
				if !bytes.Equal(sk, key) {
					return corruptf("summary entry %d differs from the key of restart %d", ri/t.interval, ri)
				}
			}
			ri++
			nextRestart = -1
			if ri < t.restarts {
				if nextRestart, err = t.restart(ri); err != nil {
					return err
				}
			}
		}
		prev, key = key, prev
		count++
		off = r.next
	}
	pos := t.summaryOff
	for j := 0; j < t.nsum; j++ {
		sk, err := t.summaryKey(j)
		if err != nil {
			return err
		}
		if got := int(binary.LittleEndian.Uint64(t.data[t.summaryIdx+8*j:])); got != pos {
			return corruptf("summary entry %d at %d, want %d", j, got, pos)
		}
		pos += uvarintLen(uint64(len(sk))) + len(sk)
	}
	switch {
	case pos != t.summaryIdx:
		return corruptf("summary entries end at %d, their offsets start at %d", pos, t.summaryIdx)
	case ri != t.restarts:
		return corruptf("%d of %d restarts fall on records", ri, t.restarts)
	case count != t.count:
		return corruptf("%d records, footer says %d", count, t.count)
	}
	return nil
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}
