module github.com/ctx-dev/ctx

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/alecthomas/kong v1.17.0
	github.com/fxamacker/cbor/v2 v2.9.6
	github.com/gofrs/flock v0.13.1
	github.com/klauspost/compress v1.20.3
	github.com/rogpeppe/go-internal v1.16.0
	github.com/smacker/go-tree-sitter v0.0.0-20240827094217-dd81d9e9be82
	github.com/yuin/goldmark v1.8.7
	github.com/zeebo/blake3 v0.2.4
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/klauspost/cpuid/v2 v2.0.12 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/tools v0.42.0 // indirect
)
