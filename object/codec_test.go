package object

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Hand-written CBOR, for inputs the encoder would never produce.

// head returns a CBOR head of the major type with argument n in its
// shortest form.
func head(major byte, n uint64) []byte {
	m := major << 5
	switch {
	case n < 24:
		return []byte{m | byte(n)}
	case n < 1<<8:
		return []byte{m | 24, byte(n)}
	case n < 1<<16:
		return []byte{m | 25, byte(n >> 8), byte(n)}
	case n < 1<<32:
		return []byte{m | 26, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	}
	return []byte{m | 27, byte(n >> 56), byte(n >> 48), byte(n >> 40), byte(n >> 32), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

func cText(s string) []byte { return append(head(3, uint64(len(s))), s...) }

func cBytes(b []byte) []byte { return append(head(2, uint64(len(b))), b...) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// cMap encodes a map of the given key-value pairs in the order given.
func cMap(kvs ...[]byte) []byte { return cat(head(5, uint64(len(kvs)/2)), cat(kvs...)) }

func cArray(items ...[]byte) []byte { return cat(head(4, uint64(len(items))), cat(items...)) }

// typedPayload wraps an encoded body as a typed payload named name.
func typedPayload(name string, body []byte) []byte { return cat([]byte{0xa1}, cText(name), body) }

// encodeUnchecked encodes v like Encode but without validating it, to
// build payloads that decode but fail Validate.
func encodeUnchecked(t testing.TB, v Typed) []byte {
	t.Helper()
	body, err := encMode.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return typedPayload(v.TypeName(), body)
}

func mustEncode(t testing.TB, v Typed) []byte {
	t.Helper()
	b, err := Encode(v)
	if err != nil {
		t.Fatalf("Encode(%s): %v", v.TypeName(), err)
	}
	return b
}

func TestEncodeExact(t *testing.T) {
	id := testID("x")
	tests := []struct {
		name string
		v    Typed
		want []byte
	}{
		{"EmptyTree", &Tree{}, typedPayload("tree", cMap(cText("entries"), cArray()))},
		{"EmptyTreeNonNil", &Tree{Entries: []TreeEntry{}}, typedPayload("tree", cMap(cText("entries"), cArray()))},
		{"TreeOneEntry", &Tree{Entries: []TreeEntry{{Name: "a", Kind: EntryBlob, ID: id}}},
			typedPayload("tree", cMap(cText("entries"), cArray(cMap(
				cText("id"), cBytes(id[:]),
				cText("kind"), cText("blob"),
				cText("name"), cText("a"),
			))))},
		// Map keys are sorted bytewise by their encoding, which puts shorter
		// keys first; optional fields are omitted.
		{"RootCommit", &Commit{RootTree: id, TimestampUnix: -1, Message: "m"},
			typedPayload("commit", cMap(
				cText("message"), cText("m"),
				cText("parents"), cArray(),
				cText("root_tree"), cBytes(id[:]),
				cText("edge_batches"), cArray(),
				cText("narrative_refs"), cArray(),
				cText("timestamp_unix"), []byte{0x20},
			))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustEncode(t, tt.v)
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("Encode =\n%x\nwant\n%x", got, tt.want)
			}
			if err := CheckCanonical(got); err != nil {
				t.Errorf("CheckCanonical(Encode(v)): %v", err)
			}
			if name, err := TypeOf(got); err != nil || name != tt.v.TypeName() {
				t.Errorf("TypeOf = %q, %v; want %q", name, err, tt.v.TypeName())
			}
		})
	}
}

// badName is a Typed whose type name Encode and NewRegistry refuse.
type badName struct{ name string }

func (b *badName) TypeName() string { return b.name }
func (*badName) Links() []Link      { return nil }

func TestEncodeRefusesBadTypeName(t *testing.T) {
	for _, name := range []string{"", "blob", "Tree", "a-b", "a b", "é", strings.Repeat("a", 65)} {
		if _, err := Encode(&badName{name}); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Encode with type name %q: error = %v, want ErrInvalidArgument", name, err)
		}
	}
	if b, err := Encode(&badName{strings.Repeat("a", 64)}); err != nil || !bytes.HasPrefix(b, cat([]byte{0xa1, 0x78, 64})) {
		t.Errorf("Encode with a 64-letter type name = %x, %v", b, err)
	}
}

func TestRoundTrip(t *testing.T) {
	r := mustRegistry(t)
	for _, v := range testObjects() {
		t.Run(v.TypeName(), func(t *testing.T) {
			p := mustEncode(t, v)
			got, err := r.Decode(p)
			if err != nil {
				t.Fatalf("Registry.Decode: %v", err)
			}
			if reflect.TypeOf(got) != reflect.TypeOf(v) {
				t.Fatalf("Registry.Decode returned a %T, want %T", got, v)
			}
			if re := mustEncode(t, got); !bytes.Equal(re, p) {
				t.Errorf("Encode(Decode(p)) =\n%x\nwant\n%x", re, p)
			}
			if !reflect.DeepEqual(got.Links(), v.Links()) {
				t.Errorf("Links after a round trip = %v, want %v", got.Links(), v.Links())
			}
		})
	}
}

func TestSplitTyped(t *testing.T) {
	emptyTree := typedPayload("tree", cMap(cText("entries"), cArray()))
	tests := []struct {
		name     string
		in       []byte
		wantName string // "" means SplitTyped fails with ErrDecode
	}{
		{"Tree", emptyTree, "tree"},
		{"EmptyBodyMap", typedPayload("anything_1", cMap()), "anything_1"},
		{"Empty", nil, ""},
		{"Array", cArray(cText("tree"), cMap()), ""},
		{"Integer", []byte{0x01}, ""},
		{"EmptyMap", cMap(), ""},
		{"TwoEntries", cMap(cText("tree"), cMap(), cText("zz"), cMap()), ""},
		{"TwoEntriesNonShortest", cat([]byte{0xb8, 0x02}, cText("tree"), cMap(), cText("zz"), cMap()), ""},
		{"OneEntryNonShortest", cat([]byte{0xb8, 0x01}, cText("tree"), cMap()), ""},
		{"IntegerKey", cat([]byte{0xa1, 0x01}, cMap()), ""},
		{"BytesKey", cat([]byte{0xa1}, cBytes([]byte("tree")), cMap()), ""},
		{"UpperName", typedPayload("Tree", cMap()), ""},
		{"EmptyName", typedPayload("", cMap()), ""},
		{"BlobName", typedPayload("blob", cMap()), ""},
		{"DashName", typedPayload("work-commit", cMap()), ""},
		{"LongName", typedPayload(strings.Repeat("a", 65), cMap()), ""},
		{"BodyArray", typedPayload("tree", cArray()), ""},
		{"BodyText", typedPayload("tree", cText("x")), ""},
		{"NoBody", []byte{0xa1, 0x64, 't', 'r', 'e', 'e'}, ""},
		{"TruncatedKey", []byte{0xa1, 0x64, 't', 'r'}, ""},
		{"TruncatedBody", emptyTree[:len(emptyTree)-1], ""},
		{"Trailing", cat(emptyTree, []byte{0x00}), ""},
		{"TrailingItem", cat(emptyTree, emptyTree), ""},
		{"IndefiniteBody", typedPayload("tree", cat([]byte{0xbf}, cText("entries"), cArray(), []byte{0xff})), ""},
		{"IndefiniteKey", cat([]byte{0xa1, 0x7f}, cText("tree"), []byte{0xff}, cMap()), ""},
		{"TagInBody", typedPayload("tree", cMap(cText("entries"), cat([]byte{0xc0}, cArray()))), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, body, err := SplitTyped(tt.in)
			if tt.wantName == "" {
				if !errors.Is(err, ErrDecode) {
					t.Fatalf("SplitTyped(%x) = %q, %v; want ErrDecode", tt.in, name, err)
				}
				if _, err := TypeOf(tt.in); !errors.Is(err, ErrDecode) {
					t.Errorf("TypeOf error = %v, want ErrDecode", err)
				}
				if err := CheckCanonical(tt.in); !errors.Is(err, ErrDecode) {
					t.Errorf("CheckCanonical error = %v, want ErrDecode", err)
				}
				if _, err := mustRegistry(t).Decode(tt.in); !errors.Is(err, ErrDecode) {
					t.Errorf("Registry.Decode error = %v, want ErrDecode", err)
				}
				return
			}
			if err != nil || name != tt.wantName {
				t.Fatalf("SplitTyped = %q, %v; want %q", name, err, tt.wantName)
			}
			if wantBody := tt.in[1+len(cText(name)):]; !bytes.Equal(body, wantBody) {
				t.Errorf("body = %x, want %x", body, wantBody)
			}
		})
	}
}

// TestCanonicalEncoding covers payloads that are well formed but not all
// in Core Deterministic Encoding. Decode is tolerant of some of them (it
// reads what a careless writer wrote); CheckCanonical accepts none.
func TestCanonicalEncoding(t *testing.T) {
	id := testID("x")
	entry := func(kvs ...[]byte) []byte { return cArray(cMap(kvs...)) }
	goodEntry := entry(cText("id"), cBytes(id[:]), cText("kind"), cText("blob"), cText("name"), cText("a"))
	tests := []struct {
		name      string
		in        []byte
		canonical bool
	}{
		{"Canonical", typedPayload("tree", cMap(cText("entries"), goodEntry)), true},
		{"UnknownKey", typedPayload("tree", cMap(cText("zzz"), []byte{0x01}, cText("entries"), goodEntry)), true},
		{"UnknownKeyNested", typedPayload("tree", cMap(cText("entries"), entry(
			cText("id"), cBytes(id[:]), cText("kind"), cText("blob"), cText("mode"), cText("0644"), cText("name"), cText("a")))), true},
		{"UnsortedTopKeys", typedPayload("tree", cMap(cText("entries"), goodEntry, cText("zzz"), []byte{0x01})), false},
		{"UnsortedEntryKeys", typedPayload("tree", cMap(cText("entries"), entry(
			cText("name"), cText("a"), cText("id"), cBytes(id[:]), cText("kind"), cText("blob")))), false},
		// Lexical order of the key text is not the canonical order: the
		// encoded length comes first.
		{"LexicalKeyOrder", typedPayload("tree", cMap(cText("entries"), goodEntry, cText("zz"), []byte{0x01})), false},
		{"NonShortestInt", typedPayload("tree", cMap(cText("zzz"), []byte{0x18, 0x01}, cText("entries"), goodEntry)), false},
		{"NonShortestNegInt", typedPayload("tree", cMap(cText("zzz"), []byte{0x39, 0x00, 0x00}, cText("entries"), goodEntry)), false},
		{"NonShortestFloat", typedPayload("tree", cMap(cText("zzz"), []byte{0xfb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, cText("entries"), goodEntry)), false},
		{"NonShortestArrayLen", typedPayload("tree", cMap(cText("entries"), cat([]byte{0x98, 0x00}))), false},
		{"NonShortestTextLen", typedPayload("tree", cMap(cat([]byte{0x78, 0x07}, []byte("entries")), cArray())), false},
		{"NonShortestMapLen", typedPayload("tree", cat([]byte{0xb8, 0x01}, cText("entries"), cArray())), false},
		{"NonShortestIDLen", typedPayload("tree", cMap(cText("entries"), entry(
			cText("id"), cat([]byte{0x59, 0x00, 0x20}, id[:]), cText("kind"), cText("blob"), cText("name"), cText("a")))), false},
		{"NonShortestTypeName", cat([]byte{0xa1, 0x78, 0x04}, []byte("tree"), cMap(cText("entries"), cArray())), false},
		{"IndefiniteArray", typedPayload("tree", cMap(cText("entries"), []byte{0x9f, 0xff})), false},
		{"IndefiniteText", typedPayload("tree", cMap(cText("zzz"), []byte{0x7f, 0x61, 'a', 0xff}, cText("entries"), cArray())), false},
		{"DuplicateKey", typedPayload("tree", cMap(cText("entries"), cArray(), cText("entries"), cArray())), false},
		// Decode skips unknown fields without looking inside them.
		{"InvalidUTF8InUnknownField", typedPayload("tree", cMap(cText("zzz"), []byte{0x61, 0xff}, cText("entries"), cArray())), false},
		{"InvalidUTF8", typedPayload("tree", cMap(cText("entries"), cArray(cMap(
			cText("id"), cBytes(id[:]), cText("kind"), cText("blob"), cText("name"), []byte{0x61, 0xff})))), false},
		{"Undefined", typedPayload("tree", cMap(cText("zzz"), []byte{0xf7}, cText("entries"), cArray())), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckCanonical(tt.in)
			if tt.canonical && err != nil {
				t.Errorf("CheckCanonical: %v", err)
			}
			if !tt.canonical && !errors.Is(err, ErrDecode) {
				t.Errorf("CheckCanonical error = %v, want ErrDecode", err)
			}
			// Decode accepts exactly the canonical payloads (FORMAT.md §4.1).
			var tr Tree
			err = Decode(tt.in, &tr)
			if tt.canonical && err != nil {
				t.Errorf("Decode: %v", err)
			}
			if !tt.canonical && !errors.Is(err, ErrDecode) {
				t.Errorf("Decode error = %v, want ErrDecode", err)
			}
		})
	}
}

func TestDecodeIgnoresUnknownFields(t *testing.T) {
	want := testObjects()[2].(*Commit)
	body, err := encMode.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := decMode.Unmarshal(body, &fields); err != nil {
		t.Fatal(err)
	}
	fields["added_in_v9"] = map[string]any{"nested": []any{uint64(1), "two"}}
	fields["z"] = []byte{1, 2, 3}
	body, err = encMode.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	p := typedPayload("commit", body)
	if err := CheckCanonical(p); err != nil {
		t.Fatalf("CheckCanonical: %v", err)
	}
	var got Commit
	if err := Decode(p, &got); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if re := mustEncode(t, &got); !bytes.Equal(re, mustEncode(t, want)) {
		t.Errorf("Decode with unknown fields gave %+v, want %+v", got, want)
	}
	if j, err := ToJSON(p, false); err != nil || !strings.Contains(string(j), `"added_in_v9":{"nested":[1,"two"]}`) {
		t.Errorf("ToJSON = %s, %v; want the unknown field rendered", j, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	id := testID("x")
	tree := mustEncode(t, &Tree{})
	tests := []struct {
		name string
		in   []byte
		into Typed
	}{
		{"TreeAsCommit", tree, new(Commit)},
		{"TreeAsWorkCommit", tree, new(WorkCommit)},
		{"CommitAsTree", mustEncode(t, testObjects()[2]), new(Tree)},
		{"EntriesNotArray", typedPayload("tree", cMap(cText("entries"), cMap())), new(Tree)},
		{"EntryNotMap", typedPayload("tree", cMap(cText("entries"), cArray([]byte{0x01}))), new(Tree)},
		{"IDTooShort", typedPayload("tree", cMap(cText("entries"), cArray(cMap(
			cText("id"), cBytes(id[:31]), cText("kind"), cText("blob"), cText("name"), cText("a"))))), new(Tree)},
		{"IDTooLong", typedPayload("tree", cMap(cText("entries"), cArray(cMap(
			cText("id"), cBytes(append(id[:], 0)), cText("kind"), cText("blob"), cText("name"), cText("a"))))), new(Tree)},
		{"IDAsText", typedPayload("tree", cMap(cText("entries"), cArray(cMap(
			cText("id"), cText(id.String()), cText("kind"), cText("blob"), cText("name"), cText("a"))))), new(Tree)},
		{"NameAsBytes", typedPayload("tree", cMap(cText("entries"), cArray(cMap(
			cText("id"), cBytes(id[:]), cText("kind"), cText("blob"), cText("name"), cBytes([]byte("a")))))), new(Tree)},
		{"TimestampText", typedPayload("commit", cMap(cText("root_tree"), cBytes(id[:]), cText("timestamp_unix"), cText("1"))), new(Commit)},
		{"TimestampFloat", typedPayload("commit", cMap(cText("root_tree"), cBytes(id[:]), cText("timestamp_unix"), []byte{0xf9, 0x3c, 0x00})), new(Commit)},
		{"TimestampOverflow", typedPayload("commit", cMap(cText("root_tree"), cBytes(id[:]), cText("timestamp_unix"), head(0, 1<<63))), new(Commit)},
		{"MissingRootTree", typedPayload("commit", cMap(cText("message"), cText("m"))), new(Commit)},
		{"InvalidTree", encodeUnchecked(t, &Tree{Entries: []TreeEntry{{Name: "a", Kind: "file", ID: id}}}), new(Tree)},
		{"InvalidCommit", encodeUnchecked(t, &Commit{RootTree: id, Parents: []ID{id, id}}), new(Commit)},
		{"InvalidWorkCommit", encodeUnchecked(t, &WorkCommit{Base: id, SessionID: "s", StepKind: "dance"}), new(WorkCommit)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Decode(tt.in, tt.into); !errors.Is(err, ErrDecode) {
				t.Errorf("Decode into %T: error = %v, want ErrDecode", tt.into, err)
			}
		})
	}
}

// TestDecodeCaseSensitive checks that field names match exactly: "Message"
// is an unknown key, not the message.
func TestDecodeCaseSensitive(t *testing.T) {
	id := testID("x")
	// Every required field but "message", which is spelled "Message": keys
	// are case-sensitive, so the field is missing.
	p := typedPayload("commit", cMap(
		cText("Message"), cText("wrong"),
		cText("parents"), []byte{0x80},
		cText("root_tree"), cBytes(id[:]),
		cText("edge_batches"), []byte{0x80},
		cText("narrative_refs"), []byte{0x80},
		cText("timestamp_unix"), []byte{0x00},
	))
	var c Commit
	err := Decode(p, &c)
	if !errors.Is(err, ErrDecode) || !strings.Contains(err.Error(), "missing required field message") {
		t.Fatalf("Decode = %v, want a missing message", err)
	}
}

func TestDecodeRequiredFields(t *testing.T) {
	id := testID("x")
	full := func(skip string, null bool) []byte {
		var kv [][]byte
		for _, f := range []struct {
			k string
			v []byte
		}{
			{"message", cText("m")}, {"parents", []byte{0x80}}, {"root_tree", cBytes(id[:])},
			{"edge_batches", []byte{0x80}}, {"narrative_refs", []byte{0x80}}, {"timestamp_unix", []byte{0x00}},
		} {
			switch {
			case f.k == skip && null:
				kv = append(kv, cText(f.k), []byte{0xf6})
			case f.k != skip:
				kv = append(kv, cText(f.k), f.v)
			}
		}
		return typedPayload("commit", cMap(kv...))
	}
	if err := Decode(full("", false), new(Commit)); err != nil {
		t.Fatalf("complete commit: %v", err)
	}
	for _, k := range []string{"message", "parents", "root_tree", "edge_batches", "narrative_refs", "timestamp_unix"} {
		for _, null := range []bool{false, true} {
			err := Decode(full(k, null), new(Commit))
			if !errors.Is(err, ErrDecode) || !strings.Contains(err.Error(), "missing required field "+k) {
				t.Errorf("without %s (null %v): %v", k, null, err)
			}
		}
	}
}

func TestTreeValidate(t *testing.T) {
	a, b := testID("a"), testID("b")
	tests := []struct {
		name    string
		entries []TreeEntry
		ok      bool
	}{
		{"Empty", nil, true},
		{"One", []TreeEntry{{"a", EntryBlob, a}}, true},
		{"Sorted", []TreeEntry{{"B", EntryBlob, a}, {"a", EntryTree, b}, {"a.txt", EntryBlob, a}, {"a0", EntryBlob, a}, {"é", EntryBlob, b}}, true},
		{"OddNames", []TreeEntry{{" ", EntryBlob, a}, {"...", EntryBlob, a}, {"..a", EntryBlob, a}, {"a\\b", EntryBlob, a}}, true},
		{"Unsorted", []TreeEntry{{"b", EntryBlob, a}, {"a", EntryBlob, b}}, false},
		{"UnsortedBytewise", []TreeEntry{{"a", EntryBlob, a}, {"B", EntryBlob, b}}, false},
		{"DuplicateName", []TreeEntry{{"a", EntryBlob, a}, {"a", EntryBlob, b}}, false},
		{"DuplicateNameOtherKind", []TreeEntry{{"a", EntryBlob, a}, {"a", EntryTree, b}}, false},
		{"EmptyKind", []TreeEntry{{"a", "", a}}, false},
		{"BadKind", []TreeEntry{{"a", "file", a}}, false},
		{"UpperKind", []TreeEntry{{"a", "Blob", a}}, false},
		{"ZeroID", []TreeEntry{{"a", EntryBlob, Zero}}, false},
		{"EmptyName", []TreeEntry{{"", EntryBlob, a}}, false},
		{"Dot", []TreeEntry{{".", EntryTree, a}}, false},
		{"DotDot", []TreeEntry{{"..", EntryTree, a}}, false},
		{"Slash", []TreeEntry{{"a/b", EntryBlob, a}}, false},
		{"NUL", []TreeEntry{{"a\x00", EntryBlob, a}}, false},
		{"NotUTF8", []TreeEntry{{"\xff", EntryBlob, a}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkValidate(t, &Tree{Entries: tt.entries}, tt.ok)
		})
	}
}

// checkValidate checks that Validate, Encode and Decode agree on whether
// v is valid.
func checkValidate(t *testing.T, v interface {
	Typed
	Validator
}, ok bool) {
	t.Helper()
	err := v.Validate()
	if ok != (err == nil) {
		t.Fatalf("Validate() = %v, want ok=%v", err, ok)
	}
	_, err = Encode(v)
	if ok && err != nil {
		t.Errorf("Encode: %v", err)
	}
	if !ok && !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Encode error = %v, want ErrInvalidArgument", err)
	}
	p := encodeUnchecked(t, v)
	into := reflect.New(reflect.TypeOf(v).Elem()).Interface().(Typed)
	err = Decode(p, into)
	if ok && err != nil {
		t.Errorf("Decode: %v", err)
	}
	if !ok && !errors.Is(err, ErrDecode) {
		t.Errorf("Decode error = %v, want ErrDecode", err)
	}
}

func TestTreeLookup(t *testing.T) {
	tr := &Tree{Entries: []TreeEntry{{"a", EntryBlob, testID("a")}, {"b", EntryTree, testID("b")}, {"c", EntryBlob, testID("c")}}}
	for _, e := range tr.Entries {
		if got, ok := tr.Lookup(e.Name); !ok || got != e {
			t.Errorf("Lookup(%q) = %v, %v; want %v", e.Name, got, ok, e)
		}
	}
	for _, name := range []string{"", "0", "aa", "bb", "d"} {
		if got, ok := tr.Lookup(name); ok || got != (TreeEntry{}) {
			t.Errorf("Lookup(%q) = %v, %v; want not found", name, got, ok)
		}
	}
	if _, ok := new(Tree).Lookup("a"); ok {
		t.Error("Lookup in an empty tree found something")
	}
}

func TestCommitValidate(t *testing.T) {
	a, b := testID("a"), testID("b")
	root := testID("root")
	ref := NarrativeRef{Path: "main/log.md", Stream: "main", Role: "log", BlobID: a}
	tests := []struct {
		name string
		c    Commit
		ok   bool
	}{
		{"Minimal", Commit{RootTree: root}, true},
		{"Full", *testObjects()[2].(*Commit), true},
		{"ZeroSnapshot", Commit{RootTree: root, SemanticSnapshot: &Zero}, false},
		{"ZeroRootTree", Commit{}, false},
		{"ZeroParent", Commit{RootTree: root, Parents: []ID{a, Zero}}, false},
		{"DuplicateParents", Commit{RootTree: root, Parents: []ID{a, b, a}}, false},
		{"ZeroEdgeBatch", Commit{RootTree: root, EdgeBatches: []ID{Zero}}, false},
		{"DuplicateEdgeBatches", Commit{RootTree: root, EdgeBatches: []ID{b, b}}, false},
		{"MessageNotUTF8", Commit{RootTree: root, Message: "\xc3"}, false},
		{"AuthorNotUTF8", Commit{RootTree: root, Author: "\xff"}, false},
		{"NarrativeUnclean", Commit{RootTree: root, NarrativeRefs: []NarrativeRef{ref, {Path: "a/../b", BlobID: a}}}, false},
		{"NarrativeZeroBlob", Commit{RootTree: root, NarrativeRefs: []NarrativeRef{{Path: "a"}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkValidate(t, &tt.c, tt.ok) })
	}
}

func TestWorkCommitValidate(t *testing.T) {
	a, b := testID("a"), testID("b")
	base := testID("base")
	tests := []struct {
		name string
		w    WorkCommit
		ok   bool
	}{
		{"Minimal", WorkCommit{Base: base, SessionID: "s", StepKind: StepNote}, true},
		{"Full", *testObjects()[3].(*WorkCommit), true},
		{"EmptyStepKind", WorkCommit{Base: base, SessionID: "s"}, false},
		{"UnknownStepKind", WorkCommit{Base: base, SessionID: "s", StepKind: "dance"}, false},
		{"UpperStepKind", WorkCommit{Base: base, SessionID: "s", StepKind: "Note"}, false},
		{"EmptySession", WorkCommit{Base: base, StepKind: StepNote}, false},
		{"SessionNotUTF8", WorkCommit{Base: base, SessionID: "\xff", StepKind: StepNote}, false},
		{"ZeroBase", WorkCommit{SessionID: "s", StepKind: StepNote}, false},
		{"ZeroParent", WorkCommit{Base: base, SessionID: "s", StepKind: StepNote, Parents: []ID{Zero}}, false},
		{"DuplicateParents", WorkCommit{Base: base, SessionID: "s", StepKind: StepNote, Parents: []ID{a, a}}, false},
		{"ZeroPayload", WorkCommit{Base: base, SessionID: "s", StepKind: StepNote, Payload: []ID{a, Zero}}, false},
		{"DuplicatePayload", WorkCommit{Base: base, SessionID: "s", StepKind: StepNote, Payload: []ID{a, b, b}}, false},
		{"NarrativeAbsolute", WorkCommit{Base: base, SessionID: "s", StepKind: StepNote, NarrativeRefs: []NarrativeRef{{Path: "/etc/passwd", BlobID: a}}}, false},
		{"NarrativeStreamNotUTF8", WorkCommit{Base: base, SessionID: "s", StepKind: StepNote, NarrativeRefs: []NarrativeRef{{Path: "a", Stream: "\xff", BlobID: a}}}, false},
	}
	for _, k := range stepKinds {
		tests = append(tests, struct {
			name string
			w    WorkCommit
			ok   bool
		}{"Step_" + string(k), WorkCommit{Base: base, SessionID: "s", StepKind: k}, true})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkValidate(t, &tt.w, tt.ok) })
	}
}

func TestStepKind(t *testing.T) {
	want := []string{"session_start", "file_read", "file_write", "command_run", "note", "plan", "compact"}
	for i, k := range stepKinds {
		if k.String() != want[i] || !k.Valid() {
			t.Errorf("stepKinds[%d] = %q (valid %v), want %q", i, k, k.Valid(), want[i])
		}
	}
	for _, k := range []StepKind{"", "notes", "NOTE", "blob"} {
		if k.Valid() {
			t.Errorf("StepKind(%q).Valid() = true", k)
		}
	}
	if EntryBlob.String() != "blob" || EntryTree.String() != "tree" || EntryKind("").Valid() {
		t.Error("EntryKind String/Valid is wrong")
	}
}

func TestCheckRelPath(t *testing.T) {
	tests := []struct {
		path string
		ok   bool
	}{
		{"a", true},
		{"a/b.md", true},
		{"main/decisions/0001-x.md", true},
		{"..a", true},
		{"a..", true},
		{"a/..b", true},
		{"é/ü.md", true},
		{"", false},
		{".", false},
		{"..", false},
		{"../a", false},
		{"a/..", false},
		{"a/../b", false},
		{"./a", false},
		{"a/./b", false},
		{"/a", false},
		{"/", false},
		{"a/", false},
		{"a//b", false},
		{"a\\b", false},
		{"..\\a", false},
		{"a\x00b", false},
		{"\xff", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if err := CheckRelPath(tt.path); tt.ok != (err == nil) {
				t.Errorf("CheckRelPath(%q) = %v, want ok=%v", tt.path, err, tt.ok)
			}
			n := NarrativeRef{Path: tt.path, Stream: "main", Role: "log", BlobID: testID("n")}
			if err := n.Validate(); tt.ok != (err == nil) {
				t.Errorf("NarrativeRef.Validate with path %q = %v, want ok=%v", tt.path, err, tt.ok)
			}
		})
	}
}

func TestLinks(t *testing.T) {
	objs := testObjects()
	tr, c, w := objs[1].(*Tree), objs[2].(*Commit), objs[3].(*WorkCommit)
	tests := []struct {
		name string
		v    Typed
		want []Link
	}{
		{"EmptyTree", &Tree{}, []Link{}},
		{"Tree", tr, []Link{
			{Field: "entries[README.md]", ID: tr.Entries[0].ID, Kind: KindBlob},
			{Field: "entries[src]", ID: tr.Entries[1].ID, Kind: KindTyped, Type: "tree"},
		}},
		{"Commit", c, []Link{
			{Field: "parents[0]", ID: c.Parents[0], Kind: KindTyped, Type: "commit"},
			{Field: "parents[1]", ID: c.Parents[1], Kind: KindTyped, Type: "commit"},
			{Field: "root_tree", ID: c.RootTree, Kind: KindTyped, Type: "tree"},
			{Field: "edge_batches[0]", ID: c.EdgeBatches[0], Kind: KindTyped, Type: "edge_batch"},
			{Field: "narrative_refs[0].blob_id", ID: c.NarrativeRefs[0].BlobID, Kind: KindBlob},
			{Field: "build_snapshot", ID: *c.BuildSnapshot, Kind: KindTyped, Type: "build_snapshot"},
		}},
		{"WorkCommit", w, []Link{
			{Field: "parents[0]", ID: w.Parents[0], Kind: KindTyped, Type: "work_commit"},
			{Field: "base", ID: w.Base, Kind: KindTyped, Type: "commit"},
			{Field: "payload[0]", ID: w.Payload[0]},
			{Field: "payload[1]", ID: w.Payload[1]},
			{Field: "narrative_refs[0].blob_id", ID: w.NarrativeRefs[0].BlobID, Kind: KindBlob},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.Links(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Links() =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestLinkWant(t *testing.T) {
	tests := []struct {
		l    Link
		want string
	}{
		{Link{}, "object"},
		{Link{Kind: KindBlob}, "blob"},
		{Link{Kind: KindTyped}, "typed object"},
		{Link{Kind: KindTyped, Type: "tree"}, "tree"},
		{Link{Kind: KindBlob, Type: "tree"}, "blob"},
	}
	for _, tt := range tests {
		if got := tt.l.Want(); got != tt.want {
			t.Errorf("%+v.Want() = %q, want %q", tt.l, got, tt.want)
		}
	}
}

func mustRegistry(t testing.TB) *Registry {
	t.Helper()
	r, err := NewRegistry(CoreTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRegistry(t *testing.T) {
	r := mustRegistry(t)
	if got, want := r.Names(), []string{"commit", "tree", "work_commit"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	for _, name := range r.Names() {
		v, ok := r.New(name)
		if !ok || v.TypeName() != name {
			t.Errorf("New(%q) = %v, %v", name, v, ok)
		}
		if w, _ := r.New(name); w == v {
			t.Errorf("New(%q) returned the same value twice", name)
		}
	}
	if v, ok := r.New("edge_batch"); ok || v != nil {
		t.Errorf("New of an unregistered type = %v, %v", v, ok)
	}

	t.Run("DuplicateType", func(t *testing.T) {
		ctors := append(CoreTypes(), func() Typed { return new(Tree) })
		if _, err := NewRegistry(ctors...); err == nil {
			t.Error("NewRegistry accepted two constructors of tree")
		}
	})
	t.Run("InvalidTypeName", func(t *testing.T) {
		if _, err := NewRegistry(func() Typed { return &badName{"Bad"} }); err == nil {
			t.Error("NewRegistry accepted type name Bad")
		}
	})
	t.Run("Empty", func(t *testing.T) {
		e, err := NewRegistry()
		if err != nil || len(e.Names()) != 0 {
			t.Fatalf("NewRegistry() = %v, %v", e, err)
		}
		if _, err := e.Decode(mustEncode(t, &Tree{})); !errors.Is(err, ErrDecode) {
			t.Errorf("Decode with an empty registry: %v, want ErrDecode", err)
		}
	})
	t.Run("DecodeUnknownType", func(t *testing.T) {
		p := typedPayload("edge_batch", cMap(cText("edges"), cArray()))
		if err := CheckCanonical(p); err != nil {
			t.Fatalf("CheckCanonical: %v", err)
		}
		v, err := r.Decode(p)
		if !errors.Is(err, ErrDecode) || v != nil {
			t.Errorf("Decode(edge_batch) = %v, %v; want nil, ErrDecode", v, err)
		}
	})
	t.Run("DecodeInvalid", func(t *testing.T) {
		p := encodeUnchecked(t, &Commit{})
		if v, err := r.Decode(p); !errors.Is(err, ErrDecode) || v != nil {
			t.Errorf("Decode(commit with zero root tree) = %v, %v; want nil, ErrDecode", v, err)
		}
	})
}

func TestToJSON(t *testing.T) {
	id := testID("x")
	h := id.String()
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"EmptyTree", mustEncode(t, &Tree{}), `{"tree":{"entries":[]}}`},
		{"Tree", mustEncode(t, &Tree{Entries: []TreeEntry{{"a", EntryBlob, id}}}),
			`{"tree":{"entries":[{"id":"` + h + `","kind":"blob","name":"a"}]}}`},
		{"RootCommit", mustEncode(t, &Commit{RootTree: id, TimestampUnix: -1, Message: "line\n\"q\""}),
			`{"commit":{"message":"line\n\"q\"","parents":[],"root_tree":"` + h + `","edge_batches":[],"narrative_refs":[],"timestamp_unix":-1}}`},
		{"Scalars", typedPayload("x", cMap(
			cText("a"), []byte{0xf5}, // true
			cText("b"), []byte{0xf4}, // false
			cText("c"), []byte{0xf6}, // null
			cText("d"), head(0, 1<<64-1),
			cText("e"), head(1, 1<<64-1), // -2^64
			cText("f"), []byte{0xf9, 0x3e, 0x00}, // 1.5
			cText("g"), []byte{0xf9, 0x7e, 0x00}, // NaN
			cText("h"), []byte{0xf9, 0x7c, 0x00}, // +Inf
			cText("i"), []byte{0xf9, 0xfc, 0x00}, // -Inf
			cText("j"), []byte{0xe0}, // simple(0)
			cText("k"), cBytes([]byte{0xde, 0xad}),
			cText("l"), cBytes(nil),
			cText("m"), cText("<&>"), // escaped as encoding/json does
		)), `{"x":{"a":true,"b":false,"c":null,"d":18446744073709551615,"e":-18446744073709551616,"f":1.5,"g":"NaN","h":"Infinity","i":"-Infinity","j":"simple(0)","k":"dead","l":"","m":"<&>"}}`},
		{"Nested", typedPayload("x", cMap(cText("a"), cArray(cArray(), cMap(), cArray(head(0, 1), head(1, 0))))),
			`{"x":{"a":[[],{},[1,-1]]}}`},
		// Integer keys come before text keys in canonical order.
		{"IntegerKeys", typedPayload("x", cMap(head(0, 1), cText("one"), head(1, 0), cText("minus one"), cText("a"), head(0, 2))),
			`{"x":{"1":"one","-1":"minus one","a":2}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ToJSON(tt.in, false)
			if err != nil {
				t.Fatalf("ToJSON: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("ToJSON =\n%s\nwant\n%s", got, tt.want)
			}
			indented, err := ToJSON(tt.in, true)
			if err != nil {
				t.Fatalf("ToJSON indented: %v", err)
			}
			var want bytes.Buffer
			if err := json.Indent(&want, got, "", "  "); err != nil {
				t.Fatalf("ToJSON output is not valid JSON: %v", err)
			}
			if !bytes.Equal(indented, want.Bytes()) {
				t.Errorf("ToJSON indented =\n%s\nwant\n%s", indented, want.Bytes())
			}
		})
	}
	for _, bad := range [][]byte{nil, {0x01}, cArray(), cat(mustEncode(t, &Tree{}), []byte{0})} {
		if j, err := ToJSON(bad, false); !errors.Is(err, ErrDecode) || j != nil {
			t.Errorf("ToJSON(%x) = %s, %v; want ErrDecode", bad, j, err)
		}
	}
}

func TestFromJSON(t *testing.T) {
	r := mustRegistry(t)
	for _, v := range testObjects() {
		t.Run("RoundTrip_"+v.TypeName(), func(t *testing.T) {
			p := mustEncode(t, v)
			for _, indent := range []bool{false, true} {
				j, err := ToJSON(p, indent)
				if err != nil {
					t.Fatal(err)
				}
				got, err := r.FromJSON(j)
				if err != nil {
					t.Fatalf("FromJSON(%s): %v", j, err)
				}
				if !bytes.Equal(got, p) {
					t.Errorf("FromJSON(ToJSON(p)) =\n%x\nwant\n%x", got, p)
				}
			}
		})
	}

	h := testID("x").String()
	// A JSON form with fields omitted and in any order gives the canonical
	// encoding.
	t.Run("Loose", func(t *testing.T) {
		got, err := r.FromJSON([]byte(`{"commit": {"timestamp_unix": 5, "root_tree": "` + h + `"}}`))
		if err != nil {
			t.Fatal(err)
		}
		want := mustEncode(t, &Commit{RootTree: testID("x"), TimestampUnix: 5})
		if !bytes.Equal(got, want) {
			t.Errorf("FromJSON = %x, want %x", got, want)
		}
	})

	tests := []struct {
		name string
		in   string
	}{
		{"NotJSON", `{"tree":`},
		{"Empty", ``},
		{"Null", `null`},
		{"Array", `[{"tree":{}}]`},
		{"NoKey", `{}`},
		{"TwoKeys", `{"tree":{"entries":[]},"commit":{}}`},
		{"UnknownType", `{"edge_batch":{}}`},
		{"Blob", `{"blob":{}}`},
		{"UnknownField", `{"tree":{"entries":[],"mode":1}}`},
		{"UnknownNestedField", `{"tree":{"entries":[{"name":"a","kind":"blob","id":"` + h + `","mode":1}]}}`},
		{"WrongFieldType", `{"tree":{"entries":{}}}`},
		{"BodyNotObject", `{"tree":[]}`},
		{"UpperHexID", `{"tree":{"entries":[{"name":"a","kind":"blob","id":"` + strings.ToUpper(h) + `"}]}}`},
		{"ShortID", `{"tree":{"entries":[{"name":"a","kind":"blob","id":"` + h[:10] + `"}]}}`},
		{"InvalidTree", `{"tree":{"entries":[{"name":"a/b","kind":"blob","id":"` + h + `"}]}}`},
		{"ZeroRootTree", `{"commit":{"message":"m"}}`},
		{"BadStepKind", `{"work_commit":{"base":"` + h + `","session_id":"s","step_kind":"dance"}}`},
		{"TrailingData", `{"tree":{"entries":[]}} {}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.FromJSON([]byte(tt.in))
			if !errors.Is(err, ErrInvalidArgument) || got != nil {
				t.Errorf("FromJSON(%s) = %x, %v; want ErrInvalidArgument", tt.in, got, err)
			}
		})
	}
}

// TestDecodeLax checks what DecodeLax still refuses (the wrong type, a
// value Validate rejects, CBOR that does not fit) and what it lets
// through that Decode does not (a missing required field, a non-canonical
// payload), and that both decode a good payload to the same value.
func TestDecodeLax(t *testing.T) {
	id := testID("x")
	good := mustEncode(t, testObjects()[2])
	var a, b Commit
	if err := Decode(good, &a); err != nil {
		t.Fatal(err)
	}
	if err := DecodeLax(good, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("DecodeLax = %+v, Decode = %+v", b, a)
	}
	refused := []struct {
		name string
		in   []byte
		into Typed
	}{
		{"WrongType", mustEncode(t, &Tree{}), new(Commit)},
		{"Invalid", encodeUnchecked(t, &Tree{Entries: []TreeEntry{{Name: "a", Kind: "file", ID: id}}}), new(Tree)},
		{"IDAsText", typedPayload("tree", cMap(cText("entries"), cArray(cMap(
			cText("id"), cText(id.String()), cText("kind"), cText("blob"), cText("name"), cText("a"))))), new(Tree)},
	}
	for _, tt := range refused {
		if err := DecodeLax(tt.in, tt.into); !errors.Is(err, ErrDecode) {
			t.Errorf("%s: DecodeLax = %v, want ErrDecode", tt.name, err)
		}
	}
	lax := typedPayload("commit", cMap(cText("root_tree"), cBytes(id[:]), cText("message"), []byte{0xf6}))
	if err := Decode(lax, new(Commit)); !errors.Is(err, ErrDecode) {
		t.Errorf("Decode of a commit with a null message = %v, want ErrDecode", err)
	}
	var c Commit
	if err := DecodeLax(lax, &c); err != nil || c.RootTree != id {
		t.Errorf("DecodeLax of a commit with a null message = %+v, %v; want its root tree", c, err)
	}
}
