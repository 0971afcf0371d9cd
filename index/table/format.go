package table

import (
	"encoding/binary"
	"hash/crc32"
	"sync"
)

// Version is the format version this package writes into every header.
//
// Changes:
//
//	1  first version: prefix-compressed records, u64 restart index, a
//	   summary of every F-th restart key, CRC-32C content and meta
//	   checksums (issue #6).
const Version = 1

// Versions a reader accepts: Open refuses any other with ErrVersion.
const (
	ReadMinVersion = 1
	ReadMaxVersion = Version
)

// Magic opens the header and closes the footer of every table file.
const Magic = "CTXT"

const (
	headerFixed   = 7  // magic, version, kind length
	footerSize    = 56 // see doc.go
	footerMetaLen = 48 // footer bytes covered by the meta checksum
	maxKindLen    = 64
	minRecordSize = 3 // three one-byte uvarints: an empty key and value
)

// castagnoli returns the CRC-32C table: hardware-accelerated on amd64 and
// arm64, so Verify runs at memory speed. Making it sets up the hardware
// tables (about 0.15 ms), so it is made on first use, not by every ctx
// process at start-up.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// footer is the decoded footer; see doc.go for its layout.
type footer struct {
	dataOff, indexOff, summaryOff, count, restarts uint64
	interval, contentCRC, metaCRC                  uint32
}

func (f *footer) append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, f.dataOff)
	b = binary.LittleEndian.AppendUint64(b, f.indexOff)
	b = binary.LittleEndian.AppendUint64(b, f.summaryOff)
	b = binary.LittleEndian.AppendUint64(b, f.count)
	b = binary.LittleEndian.AppendUint64(b, f.restarts)
	b = binary.LittleEndian.AppendUint32(b, f.interval)
	b = binary.LittleEndian.AppendUint32(b, f.contentCRC)
	b = binary.LittleEndian.AppendUint32(b, f.metaCRC)
	return append(b, Magic...)
}

// parseFooter decodes the footerSize bytes of b; the caller checks them.
func parseFooter(b []byte) footer {
	return footer{
		dataOff:    binary.LittleEndian.Uint64(b[0:]),
		indexOff:   binary.LittleEndian.Uint64(b[8:]),
		summaryOff: binary.LittleEndian.Uint64(b[16:]),
		count:      binary.LittleEndian.Uint64(b[24:]),
		restarts:   binary.LittleEndian.Uint64(b[32:]),
		interval:   binary.LittleEndian.Uint32(b[40:]),
		contentCRC: binary.LittleEndian.Uint32(b[44:]),
		metaCRC:    binary.LittleEndian.Uint32(b[48:]),
	}
}

// metaChecksum is the CRC-32C of the header followed by the first
// footerMetaLen bytes of the footer: it ties the two ends of a file
// together, so a truncated file or one spliced from two tables fails Open.
func metaChecksum(header, foot []byte) uint32 {
	return crc32.Update(crc32.Checksum(header, castagnoli()), castagnoli(), foot[:footerMetaLen])
}

// appendHeader appends the header of a table of the given kind.
func appendHeader(b []byte, kind string) []byte {
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint16(b, Version)
	b = append(b, byte(len(kind)))
	return append(b, kind...)
}

// validKind reports whether s may name a table's kind: 1 to 64 bytes of
// lowercase ASCII letters, digits, '.', '_' and '-', so that it prints
// safely in errors and file listings.
func validKind(s string) bool {
	if len(s) == 0 || len(s) > maxKindLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
