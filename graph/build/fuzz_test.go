package build

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/ctx-dev/ctx/object"
)

// addSeeds seeds f with each input and damaged copies of it.
func addSeeds(f *testing.F, inputs ...[]byte) {
	for _, in := range inputs {
		f.Add(in)
		f.Add(in[:len(in)/2])
		f.Add(in[:len(in)-1])
		flipped := bytes.Clone(in)
		flipped[len(in)*2/3] ^= 0x01
		f.Add(flipped)
	}
	f.Add([]byte{})
	f.Add([]byte("null"))
}

func readSeed(f *testing.F, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// checkParsed checks what a successful parse must give: a snapshot that
// encodes, decodes to the same bytes, and yields valid edges.
func checkParsed(t *testing.T, v, fresh object.Typed) {
	roundTrip(t, v, fresh)
	switch s := v.(type) {
	case *GoPackages:
		checkEdges(t, GoEdges(testRepo, s))
	case *CargoMetadataSnapshot:
		checkEdges(t, CargoEdges(testRepo, s))
	}
}

// FuzzParseGoList: any output is parsed or refused with ErrParse, never a
// panic, and what parses is a valid object.
func FuzzParseGoList(f *testing.F) {
	demo := readSeed(f, "golist-demo.json")
	// The project's own entries sit at the end, after the standard library.
	tail := demo[bytes.LastIndex(demo[:len(demo)-20000], []byte("\n{"))+1:]
	addSeeds(f, tail)
	f.Add(demo)
	f.Add([]byte(`{"ImportPath": "a", "Dir": "/home/dev/demo", "GoFiles": ["a.go", "../x.go", "/abs.go", ""], "Imports": ["C", "a", "b"]}` +
		`{"ImportPath": "a", "Dir": "/home/dev/demo/dup"}` +
		`{"ImportPath": "a.test", "Name": "main", "Dir": "/home/dev/demo", "Error": {"Pos": "/home/dev/demo/a.go:1", "Err": ""}}` +
		`{"ImportPath": "a [a.test]", "ForTest": "a", "DepsErrors": [{"Err": "x"}, null]}`))
	f.Fuzz(func(t *testing.T, out []byte) {
		s, err := ParseGoList(out, "/home/dev/demo")
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Fatalf("ParseGoList = %v, not ErrParse", err)
			}
			return
		}
		checkParsed(t, s, new(GoPackages))
	})
}

// FuzzParseCargoMetadata: as FuzzParseGoList, for cargo metadata.
func FuzzParseCargoMetadata(f *testing.F) {
	addSeeds(f, readSeed(f, "cargo-workspace.json"), readSeed(f, "cargo-single.json"))
	f.Add([]byte(`{"workspace_root": "/home/dev/ws", "workspace_members": ["a"], "packages": [` +
		`{"id": "a", "name": "a", "manifest_path": "/home/dev/ws/Cargo.toml", "source": null, "targets": [{"kind": ["lib"], "name": "a"}, {"kind": ["lib"], "name": "a"}]},` +
		`{"id": "b", "name": "a", "manifest_path": "/home/dev/ws/Cargo.toml", "source": null, "dependencies": [{"name": "a", "kind": "dev", "rename": "x"}]}],` +
		`"resolve": {"nodes": [{"id": "b", "deps": [{"name": "x", "pkg": "a", "dep_kinds": [{"kind": "dev"}, {"kind": "dev"}]}]}, {"id": "a", "dependencies": ["b", "zz"]}]}}`))
	f.Fuzz(func(t *testing.T, out []byte) {
		s, err := ParseCargoMetadata(out, "/home/dev/ws")
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Fatalf("ParseCargoMetadata = %v, not ErrParse", err)
			}
			return
		}
		checkParsed(t, s, new(CargoMetadataSnapshot))
	})
}

// FuzzDecode: any payload decodes as one of the types or is refused with
// ErrDecode; what decodes re-encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	goP, cargoPs := fixtureSnapshots(f)
	s, err := NewBuildSnapshot(BuildEntry{Ecosystem: "go", Root: ".", Snapshot: object.Sum(object.KindTyped, goP)})
	if err != nil {
		f.Fatal(err)
	}
	bs, err := object.Encode(s)
	if err != nil {
		f.Fatal(err)
	}
	addSeeds(f, goP, cargoPs[0], cargoPs[1], bs)
	r, err := object.NewRegistry(Types()...)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		v, err := r.Decode(p)
		if err != nil {
			if !errors.Is(err, object.ErrDecode) {
				t.Fatalf("Decode = %v, not ErrDecode", err)
			}
			return
		}
		q, err := object.Encode(v)
		if err != nil || !bytes.Equal(p, q) && len(object.UnknownKeys(p, v)) == 0 {
			t.Fatalf("Encode(Decode(p)) = %x, %v; want p", q, err)
		}
	})
}
