// Package table is the immutable on-disk table file that every index of ctx
// is made of: sorted keys with byte-string values, written once by a
// streaming Writer and read through mmap, so that a process answering one
// query touches only the pages that query needs (issue #6, design §3.3 and
// §10). The format is normative in docs/INDEX.md, section "Table files".
//
// # Nouns
//
//   - Table: one file of records sorted by key, opened read-only with Open.
//   - Kind: a short name in the header saying what the table holds
//     ("lookup", "terms", …), so that one file cannot be read as another.
//   - Record: one key and its value. Keys are unique and strictly
//     increasing in byte order; values are opaque.
//   - Restart: a record whose key is stored whole. Between restarts, keys
//     are stored as a suffix after the prefix shared with the previous key,
//     as in LevelDB's blocks. A group is a restart and the records after it
//     up to the next restart.
//   - Index: the fixed-width array of the restarts' offsets.
//   - Summary: a copy of every F-th restart's key (F = 64 by default) with
//     a fixed-width array of their offsets, stored next to the footer. A
//     lookup binary searches the summary, then the F restarts of one
//     summary entry (whose records lie close together), then scans one
//     group: about five page faults in a cold process, whatever the size.
//   - Postings: sorted lists of uint32 ids (and optionally positions) packed
//     as uvarint deltas into a value; see AppendUvarintDeltas and
//     AppendDocPositions.
//
// # File layout
//
// Integers are little-endian; "uv" is an unsigned LEB128 varint
// (encoding/binary.Uvarint). D, I, K, N, R and F are the footer's data,
// index and summary offsets, record and restart counts and summary
// interval; T = ⌈R/F⌉ is the number of summary entries and S the file
// size.
//
//	offset   size    field
//	0        4       magic "CTXT"
//	4        2       format version (u16) = 1
//	6        1       kind length k, 1..64
//	7        k       kind, bytes of [a-z0-9._-]
//	D = 7+k  I-D     data region: N records, sorted by key
//	I        8·R     index: R restart offsets (u64), increasing, first = D
//	K        …       summary keys: T × (uv length | key of restart j·F)
//	S-56-8T  8·T     summary offsets (u64): where each summary key starts
//	S-56     56      footer
//
//	record:  uv shared | uv unshared | uv value length | key suffix | value
//	         (key = previous key[:shared] + suffix; shared = 0 at restarts)
//
//	footer:  +0   u64  D   data offset = header length
//	         +8   u64  I   index offset = end of the data region
//	         +16  u64  K   summary offset = I + 8·R
//	         +24  u64  N   record count
//	         +32  u64  R   restart count
//	         +40  u32  F   summary interval, 1 to 2³¹−1
//	         +44  u32      content CRC-32C of bytes [0, S-56), for Verify
//	         +48  u32      meta CRC-32C of header [0, D) then footer [+0, +48)
//	         +52  4        magic "CTXT"
//
//	+------+---+---+------+-----------------+-------------+------------+-----------+--------+
//	| CTXT |ver| k | kind | record record … | restart off | summary    | summary   | footer |
//	|      |   |   |      |                 | u64 × R     | keys       | off u64×T |        |
//	+------+---+---+------+-----------------+-------------+------------+-----------+--------+
//	0                     D                 I             K          S-56-8T     S-56     S
//
// Open reads the header, the footer and the first summary offset, and
// checks them against each other and the file size; nothing else is decoded until
// a lookup needs it, and every later read is bounds-checked, so a damaged
// file yields ErrCorrupt and never a panic. Verify checks the content
// checksum and walks every record.
package table
