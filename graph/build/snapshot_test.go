package build

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/ctx-dev/ctx/object"
)

// rawPayload encodes the JSON form of a typed object as canonical CBOR
// as it stands, without going through its Go type, so that it can break
// the type's rules.
func rawPayload(t testing.TB, text string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	eo := cbor.CoreDetEncOptions()
	em, err := eo.EncMode()
	if err != nil {
		t.Fatal(err)
	}
	b, err := em.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixtureSnapshots parses the fixtures and returns their payloads: the Go
// demo and the two Cargo ones.
func fixtureSnapshots(t testing.TB) (goPayload []byte, cargoPayloads [][]byte) {
	t.Helper()
	out, err := os.ReadFile("testdata/golist-demo.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseGoList(out, "/home/dev/demo")
	if err != nil {
		t.Fatal(err)
	}
	if goPayload, err = object.Encode(g); err != nil {
		t.Fatal(err)
	}
	for _, f := range cargoFixtures {
		out, err := os.ReadFile("testdata/" + f.name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		c, err := ParseCargoMetadata(out, f.root)
		if err != nil {
			t.Fatal(err)
		}
		p, err := object.Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		cargoPayloads = append(cargoPayloads, p)
	}
	return goPayload, cargoPayloads
}

func TestBuildSnapshot(t *testing.T) {
	goP, cargoPs := fixtureSnapshots(t)
	goID := object.Sum(object.KindTyped, goP)
	wsID := object.Sum(object.KindTyped, cargoPs[0])
	toolID := object.Sum(object.KindTyped, cargoPs[1])
	s, err := NewBuildSnapshot(
		BuildEntry{Ecosystem: "go", Root: ".", Snapshot: goID},
		BuildEntry{Ecosystem: "cargo", Root: "tools/tool", Snapshot: toolID},
		BuildEntry{Ecosystem: "cargo", Root: "rust", Snapshot: wsID},
	)
	if err != nil {
		t.Fatalf("NewBuildSnapshot: %v", err)
	}
	want := []BuildEntry{
		{Ecosystem: "cargo", Root: "rust", Snapshot: wsID},
		{Ecosystem: "cargo", Root: "tools/tool", Snapshot: toolID},
		{Ecosystem: "go", Root: ".", Snapshot: goID},
	}
	if !reflect.DeepEqual(s.Entries, want) {
		t.Errorf("entries = %+v, want %+v", s.Entries, want)
	}
	wantLinks := []object.Link{
		{Field: "entries[0].snapshot", ID: wsID, Kind: object.KindTyped, Type: "cargo_metadata"},
		{Field: "entries[1].snapshot", ID: toolID, Kind: object.KindTyped, Type: "cargo_metadata"},
		{Field: "entries[2].snapshot", ID: goID, Kind: object.KindTyped, Type: "go_packages"},
	}
	if got := s.Links(); !reflect.DeepEqual(got, wantLinks) {
		t.Errorf("Links = %+v, want %+v", got, wantLinks)
	}
	roundTrip(t, s, new(BuildSnapshot))
	checkGolden(t, "build-snapshot.json", snapshotJSON(t, s))
	roundTrip(t, &BuildSnapshot{}, new(BuildSnapshot))

	// The links resolve in a store holding the snapshots.
	store := object.NewMemStore()
	for _, p := range append([][]byte{goP}, cargoPs...) {
		if _, err := store.Put(object.KindTyped, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range s.Links() {
		kind, payload, err := store.Get(l.ID)
		if err != nil {
			t.Fatalf("%s: %v", l.Field, err)
		}
		if name, err := object.TypeOf(payload); err != nil || kind != l.Kind || name != l.Type {
			t.Errorf("%s names a %s %s, want %s", l.Field, kind, name, l.Want())
		}
	}
}

func TestBuildSnapshotValidate(t *testing.T) {
	id := object.Sum(object.KindTyped, []byte("x"))
	for name, entries := range map[string][]BuildEntry{
		"unknown ecosystem": {{Ecosystem: "npm", Root: ".", Snapshot: id}},
		"empty root":        {{Ecosystem: "go", Root: "", Snapshot: id}},
		"absolute root":     {{Ecosystem: "go", Root: "/src", Snapshot: id}},
		"root with ..":      {{Ecosystem: "go", Root: "../src", Snapshot: id}},
		"zero id":           {{Ecosystem: "go", Root: "."}},
		"repeated root":     {{Ecosystem: "go", Root: ".", Snapshot: id}, {Ecosystem: "go", Root: ".", Snapshot: id}},
	} {
		if _, err := NewBuildSnapshot(entries...); err == nil {
			t.Errorf("%s: NewBuildSnapshot = nil error", name)
		}
	}
	unsorted := &BuildSnapshot{Entries: []BuildEntry{{Ecosystem: "go", Root: ".", Snapshot: id}, {Ecosystem: "cargo", Root: ".", Snapshot: id}}}
	if err := unsorted.Validate(); err == nil {
		t.Error("unsorted entries: Validate = nil")
	}
	if _, err := object.Encode(unsorted); err == nil {
		t.Error("unsorted entries: Encode = nil error")
	}
}

// TestTypes registers the types beside the core ones and decodes every
// fixture snapshot through the registry.
func TestTypes(t *testing.T) {
	r, err := object.NewRegistry(append(object.CoreTypes(), Types()...)...)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	for _, name := range []string{"build_snapshot", "go_packages", "cargo_metadata"} {
		if _, ok := r.New(name); !ok {
			t.Errorf("type %s not registered", name)
		}
	}
	goP, cargoPs := fixtureSnapshots(t)
	for _, p := range append([][]byte{goP}, cargoPs...) {
		v, err := r.Decode(p)
		if err != nil {
			t.Fatalf("Registry.Decode: %v", err)
		}
		if len(v.Links()) != 0 {
			t.Errorf("%s has links", v.TypeName())
		}
		// The JSON form converts back to the same payload.
		j, err := object.ToJSON(p, false)
		if err != nil {
			t.Fatal(err)
		}
		if q, err := r.FromJSON(j); err != nil || string(q) != string(p) {
			t.Errorf("%s: FromJSON(ToJSON(p)) = %v", v.TypeName(), err)
		}
	}
}

// TestDecodeRejects checks the encoding rules of FORMAT.md §4.1 on the
// new types: required fields, optional ones present but empty.
func TestDecodeRejects(t *testing.T) {
	r, err := object.NewRegistry(Types()...)
	if err != nil {
		t.Fatal(err)
	}
	// The control: raw payloads that keep the rules decode.
	for _, ok := range []string{
		`{"build_snapshot": {"entries": []}}`,
		`{"go_packages": {"modules": [{"path": "a", "main": true}], "packages": [{"import_path": "a", "dir": ".", "go_files": ["a.go"]}]}}`,
		`{"cargo_metadata": {"workspace_root": ".", "packages": [], "resolve": []}}`,
	} {
		if _, err := r.Decode(rawPayload(t, ok)); err != nil {
			t.Fatalf("Decode(%s): %v", ok, err)
		}
	}
	for _, c := range []struct{ name, json string }{
		{"go_packages without packages", `{"go_packages": {"modules": []}}`},
		{"empty optional dir", `{"go_packages": {"modules": [], "packages": [{"import_path": "a", "dir": ""}]}}`},
		{"main false present", `{"go_packages": {"modules": [{"path": "a", "main": false}], "packages": []}}`},
		{"empty optional list", `{"go_packages": {"modules": [], "packages": [{"import_path": "a", "dir": ".", "go_files": []}]}}`},
		{"cargo without resolve", `{"cargo_metadata": {"workspace_root": ".", "packages": []}}`},
		{"target without crate_types", `{"cargo_metadata": {"workspace_root": ".", "resolve": [], "packages": [{"package_id": "a", "name": "a", "version": "1", "edition": "", "targets": [{"name": "a", "kind": "lib"}]}]}}`},
		{"unknown dep kind", `{"cargo_metadata": {"workspace_root": ".", "packages": [{"package_id": "a", "name": "a", "version": "1", "edition": "", "targets": []}], "resolve": [{"from_package_id": "a", "to_package_id": "a", "dep_kind": "runtime"}]}}`},
		{"build_snapshot without entries", `{"build_snapshot": {}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if v, err := r.Decode(rawPayload(t, c.json)); err == nil {
				t.Fatalf("accepted %s as %+v", c.json, v)
			} else if !errors.Is(err, object.ErrDecode) {
				t.Fatalf("Decode = %v, not ErrDecode", err)
			}
		})
	}
}
