// Command depsfloor starts and exits, linked with the seven dependencies
// the project chose for ctx (BLAKE3, zstd, CBOR, kong, flock, goldmark and
// tree-sitter) and nothing of ctx's own. bench/index/run.sh times it as a
// floor: every ctx command pays at least this before its main runs (the
// dependencies' package initializers, and the dynamic loader and C
// runtime that tree-sitter's cgo brings).
package main

import (
	_ "github.com/alecthomas/kong"
	_ "github.com/fxamacker/cbor/v2"
	_ "github.com/gofrs/flock"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/smacker/go-tree-sitter"
	_ "github.com/yuin/goldmark"
	_ "github.com/zeebo/blake3"
)

func main() {}
