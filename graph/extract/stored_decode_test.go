package extract

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"testing/quick"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/object"
)

// plainFileVersion is a FileVersion without its methods, so without
// DecodeLaxBody and Validate: object.DecodeLax decodes it with the
// reflective decoder alone. It encodes and decodes exactly like a
// FileVersion (the same struct type), and object.Encode does not validate
// it, so tests can encode values Validate rejects.
type plainFileVersion FileVersion

func (*plainFileVersion) TypeName() string     { return "file_version" }
func (*plainFileVersion) Links() []object.Link { return nil }

// checkedFileVersion is a plainFileVersion that validates: what
// object.DecodeLax gave for a FileVersion before DecodeLaxBody.
type checkedFileVersion FileVersion

func (*checkedFileVersion) TypeName() string     { return "file_version" }
func (*checkedFileVersion) Links() []object.Link { return nil }
func (v *checkedFileVersion) Validate() error    { return (*FileVersion)(v).Validate() }

// payloadOf returns the typed payload whose body is body.
func payloadOf(body []byte) []byte {
	return append([]byte("\xa1\x6cfile_version"), body...)
}

// bodyOf encodes v (without validating it) and returns the body.
func bodyOf(tb testing.TB, v *FileVersion) []byte {
	tb.Helper()
	payload, err := object.Encode((*plainFileVersion)(v))
	if err != nil {
		tb.Fatal(err)
	}
	_, body, err := object.SplitTyped(payload)
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

// checkLax decodes body with DecodeLaxBody and with the reflective
// decoder, fails tb if they disagree, and reports whether DecodeLaxBody
// decoded it (rather than declining).
func checkLax(tb testing.TB, body []byte) bool {
	tb.Helper()
	var fast FileVersion
	ok := fast.DecodeLaxBody(body)
	if !ok && !reflect.DeepEqual(fast, FileVersion{}) {
		tb.Fatalf("DecodeLaxBody declined but changed the receiver: %+v", fast)
	}
	var ref plainFileVersion
	refErr := object.DecodeLax(payloadOf(body), &ref)
	if ok && refErr != nil {
		tb.Fatalf("DecodeLaxBody decoded a body the reflective decoder rejects (%v): %+v", refErr, fast)
	}
	if ok && !reflect.DeepEqual(fast, FileVersion(ref)) {
		tb.Fatalf("DecodeLaxBody and the reflective decoder differ:\nfast %s\nref  %s", dumpFileVersion(&fast), dumpFileVersion((*FileVersion)(&ref)))
	}

	// Through object.DecodeLax, as the index reads: the same errors, the
	// same values.
	payload := payloadOf(body)
	var got FileVersion
	err := object.DecodeLax(payload, &got)
	var want checkedFileVersion
	wantErr := object.DecodeLax(payload, &want)
	// The reflective decoder's errors name the struct type.
	if fmt.Sprint(err) != strings.ReplaceAll(fmt.Sprint(wantErr), "checkedFileVersion", "FileVersion") {
		tb.Fatalf("object.DecodeLax: error %v, reflective %v", err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, FileVersion(want)) {
		tb.Fatalf("object.DecodeLax and the reflective decoder differ:\nfast %s\nref  %s", dumpFileVersion(&got), dumpFileVersion((*FileVersion)(&want)))
	}
	return ok
}

// dumpFileVersion prints v with its pointers followed and its nil and
// empty slices told apart.
func dumpFileVersion(v *FileVersion) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%#v", *v)
	if v.Module != nil {
		fmt.Fprintf(&b, " module=%#v", *v.Module)
	}
	for i, e := range v.Edges {
		if e.Span != nil {
			fmt.Fprintf(&b, " edges[%d].span=%#v", i, *e.Span)
		}
	}
	return b.String()
}

// The CBOR of the table's bodies, written out so that the table can hold
// what the encoder never writes.

func cborHdr(major byte, n uint64) []byte {
	switch {
	case n < 24:
		return []byte{major<<5 | byte(n)}
	case n <= math.MaxUint8:
		return []byte{major<<5 | 24, byte(n)}
	case n <= math.MaxUint16:
		return []byte{major<<5 | 25, byte(n >> 8), byte(n)}
	case n <= math.MaxUint32:
		return []byte{major<<5 | 26, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	}
	return []byte{major<<5 | 27, byte(n >> 56), byte(n >> 48), byte(n >> 40), byte(n >> 32), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

func cUint(n uint64) []byte      { return cborHdr(cborUint, n) }
func cText(s string) []byte      { return append(cborHdr(cborText, uint64(len(s))), s...) }
func cBytes(p []byte) []byte     { return append(cborHdr(cborBytes, uint64(len(p))), p...) }
func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func cArray(items ...[]byte) []byte {
	return cat(cborHdr(cborArray, uint64(len(items))), cat(items...))
}

// cMap encodes a map of text keys in the order given: key, value, key,
// value, … (string, []byte).
func cMap(kv ...any) []byte {
	out := cborHdr(cborMap, uint64(len(kv)/2))
	for i := 0; i < len(kv); i += 2 {
		out = append(out, cText(kv[i].(string))...)
		out = append(out, kv[i+1].([]byte)...)
	}
	return out
}

var testBlob = object.Sum(object.KindBlob, []byte("x"))

func cSpan(a, b, c, d uint64) []byte {
	return cMap("end_col", cUint(d), "end_line", cUint(c), "start_col", cUint(b), "start_line", cUint(a))
}

// The fields the encoder always writes, with small values, for with.
func spanFields() []any {
	return []any{"end_col", cUint(5), "end_line", cUint(300), "start_col", cUint(1), "start_line", cUint(299)}
}
func nodeFields() []any { return []any{"key", cText("p.F"), "kind", cText("item")} }
func itemFields() []any {
	return []any{"key", cText("p.F"), "kind", cText("function"), "name", cText("F"), "span", cMap(spanFields()...), "visibility", cText("public")}
}
func importFields() []any {
	return []any{"path", cText("fmt"), "span", cMap(spanFields()...), "target", cMap("key", cText("fmt"), "kind", cText("package"), "ecosystem", cText("go"))}
}
func edgeFields() []any {
	return []any{"to", cUint(1), "from", cUint(0), "label", cText("calls"), "confidence", cText("high")}
}

// with encodes the map of fields with kv's pairs: each replaces the value
// of a key fields has, or comes after them.
func with(fields []any, kv ...any) []byte {
	fields = append([]any(nil), fields...)
next:
	for i := 0; i < len(kv); i += 2 {
		for j := 0; j < len(fields); j += 2 {
			if fields[j] == kv[i] {
				fields[j+1] = kv[i+1]
				continue next
			}
		}
		fields = append(fields, kv[i], kv[i+1])
	}
	return cMap(fields...)
}

// TestFileVersionLaxTable decodes bodies at the edges of what the encoder
// writes, and beyond: DecodeLaxBody must decode the first exactly as the
// reflective decoder does and decline the rest, and object.DecodeLax must
// give the same value or error either way.
func TestFileVersionLaxTable(t *testing.T) {
	blob := cBytes(testBlob[:])
	item := with(itemFields(), "doc", cText("d"), "parent", cText("p"), "signature_hash", cBytes(bytes.Repeat([]byte{7}, 16)))
	node := cMap(nodeFields()...)
	imp := with(importFields(), "alias", cText("f"))
	edge := with(edgeFields(), "span", cSpan(4, 2, 4, 9))
	full := cMap("path", cText("p/p.go"), "blob", blob, "bytes", cUint(1000), "lines", cUint(40),
		"language", cText("go"), "binary", []byte{cborFalse}, "module", cMap("key", cText("p"), "kind", cText("module")),
		"syntax_errors", cUint(2), "items", cArray(item, item), "imports", cArray(imp),
		"nodes", cArray(node, node), "edges", cArray(edge, with(edgeFields(), "label", cText("references"), "confidence", cText("low"))))
	minimal := func(kv ...any) []byte { return cMap(append([]any{"path", cText("a.go"), "blob", blob}, kv...)...) }
	huge := []byte{0x9b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

	tests := []struct {
		name string
		body []byte
		fast bool // DecodeLaxBody decodes it
		err  bool // the reflective decoder rejects it
	}{
		{"every field", full, true, false},
		{"path and blob", minimal(), true, false},
		{"empty map", cMap(), true, false},
		{"keys in reverse order", cMap("blob", blob, "path", cText("a.go"), "lines", cUint(1), "bytes", cUint(2)), true, false},
		{"edge and span keys in another order", minimal("edges", cArray(cMap("confidence", cText("low"), "span",
			cMap("start_line", cUint(1), "end_col", cUint(2), "end_line", cUint(3), "start_col", cUint(4)), "from", cUint(1), "to", cUint(1), "label", cText("calls")))), true, false},
		{"edge keys in order but one", minimal("edges", cArray(cMap("to", cUint(1), "from", cUint(0), "span", cMap(spanFields()...),
			"confidence", cText("high"), "label", cText("calls")), edge)), true, false},
		{"integers wider than needed", cat([]byte{0xb8, 3}, cText("path"), cText("a.go"), cText("blob"), blob,
			cText("bytes"), []byte{0x1b, 0, 0, 0, 0, 0, 0, 0, 5}), true, false},
		{"lengths wider than needed", cat([]byte{0xb9, 0, 2}, []byte{0x78, 4}, []byte("path"), []byte{0x79, 0, 4}, []byte("a.go"),
			cText("blob"), []byte{0x5a, 0, 0, 0, 32}, testBlob[:]), true, false},
		{"largest integers", minimal("bytes", cUint(math.MaxUint64), "lines", cUint(math.MaxInt64+1),
			"edges", cArray(with(edgeFields(), "from", cUint(math.MaxUint32), "span", cSpan(math.MaxUint32, 0, 0, math.MaxUint32)))), true, false},
		{"empty arrays", minimal("items", cArray(), "imports", cArray(), "nodes", cArray(), "edges", cArray()), true, false},
		{"empty module", minimal("module", cMap()), true, false},
		{"empty strings", minimal("language", cText(""), "module", cMap("key", cText("")), "nodes", cArray(with(nodeFields(), "key", cText("")))), true, false},
		{"empty signature hash", minimal("items", cArray(with(itemFields(), "signature_hash", cBytes(nil)))), true, false},
		{"signature hashes of other lengths", minimal("items", cArray(with(itemFields(), "signature_hash", cBytes([]byte{1})),
			with(itemFields(), "signature_hash", cBytes(bytes.Repeat([]byte{2}, 40))), with(itemFields(), "signature_hash", cBytes(bytes.Repeat([]byte{3}, 16))))), true, false},
		{"binary true", minimal("binary", []byte{cborTrue}), true, false},
		{"unicode", cMap("path", cText("日本/ü🙂\u0000.go"), "nodes", cArray(with(nodeFields(), "key", cText("\uFFFD\u2028")))), true, false},
		{"long strings", minimal("items", cArray(with(itemFields(), "doc", cText(strings.Repeat("é", 40000)), "name", cText(strings.Repeat("x", 256))))), true, false},
		{"unknown enumeration values", minimal("items", cArray(with(itemFields(), "kind", cText("gadget"), "visibility", cText("ünï"))),
			"nodes", cArray(with(nodeFields(), "kind", cText("thing"))), "edges", cArray(with(edgeFields(), "label", cText("likes"), "confidence", cText("")))), true, false},
		{"edge spans on some edges", minimal("edges", cArray(with(edgeFields(), "from", cUint(1)), with(edgeFields(), "span", cSpan(1, 2, 3, 4)),
			cMap(edgeFields()...), with(edgeFields(), "span", cSpan(5, 6, 7, 8)))), true, false},

		// The reflective decoder decodes these; DecodeLaxBody declines.
		{"unknown key", minimal("zzz", cUint(1)), false, false},
		{"unknown key in a span", minimal("items", cArray(with(itemFields(), "span", with(spanFields(), "width", cUint(2))))), false, false},
		{"unknown key in a canonical edge", minimal("edges", cArray(cMap("to", cUint(1), "from", cUint(0), "span", cMap(spanFields()...),
			"label", cText("calls"), "zzzzzzzzzz", cText("high")))), false, false},
		{"key of other case", minimal("Lines", cUint(1)), false, false},
		{"null module", minimal("module", []byte{0xf6}), false, false},
		{"null items", minimal("items", []byte{0xf6}), false, false},
		{"undefined edge span", minimal("edges", cArray(with(edgeFields(), "span", []byte{0xf7}))), false, false},
		{"elements smaller than the encoder's", minimal("items", cArray(cMap()), "imports", cArray(cMap()), "nodes", cArray(cMap()),
			"edges", cArray(cMap("span", cMap()), cMap())), false, false},
		{"byte string key", cat([]byte{0xa1}, cBytes([]byte("path")), cText("a.go")), false, true},

		// The reflective decoder rejects these.
		{"duplicate key", minimal("path", cText("b.go")), false, true},
		{"duplicate key in an edge", minimal("edges", cArray(cMap(append(edgeFields(), "to", cUint(1))...))), false, true},
		{"duplicate edge span", minimal("edges", cArray(cMap(append(edgeFields(), "span", cSpan(1, 1, 1, 1), "span", cSpan(1, 1, 1, 1))...))), false, true},
		{"duplicate key in a span", minimal("items", cArray(with(itemFields(), "span", cMap(append(spanFields(), "end_col", cUint(1))...)))), false, true},
		{"negative integer", minimal("bytes", []byte{0x20}), false, true},
		{"float", minimal("lines", []byte{0xf9, 0x3c, 0x00}), false, true},
		{"uint32 overflow", minimal("edges", cArray(with(edgeFields(), "to", cUint(math.MaxUint32+1)))), false, true},
		{"span overflow", minimal("imports", cArray(with(importFields(), "span", cSpan(1, math.MaxUint32+1, 1, 1)))), false, true},
		{"bool as integer", minimal("binary", cUint(1)), false, true},
		{"two-byte simple false", minimal("binary", []byte{0xf8, 0x14}), false, true},
		{"text as integer", minimal("bytes", cText("1")), false, true},
		{"byte string as text", minimal("language", cBytes([]byte("go"))), false, true},
		{"invalid UTF-8", minimal("language", cText("g\xffo")), false, true},
		{"invalid UTF-8 in a node key", minimal("nodes", cArray(with(nodeFields(), "key", cText("\xc3")))), false, true},
		{"invalid UTF-8 in a label", minimal("edges", cArray(with(edgeFields(), "label", cText("call\xff")))), false, true},
		{"short blob", cMap("blob", cBytes(testBlob[:31])), false, true},
		{"long blob", cMap("blob", cBytes(append(testBlob[:], 0))), false, true},
		{"blob as text", cMap("blob", cText(strings.Repeat("a", 32))), false, true},
		{"blob as array", cMap("blob", cArray()), false, true},
		{"items as map", minimal("items", cMap()), false, true},
		{"item as array", minimal("items", cArray(cat(cborHdr(cborArray, minItemSize), make([]byte, minItemSize)))), false, true},
		{"signature hash as text", minimal("items", cArray(with(itemFields(), "signature_hash", cText("0123456789abcdef")))), false, true},
		{"tag", minimal("bytes", []byte{0xc1, 0x01}), false, true},
		{"self-described tag", cat([]byte{0xd9, 0xd9, 0xf7}, cMap()), false, true},
		{"indefinite map", []byte{0xbf, 0xff}, false, true},
		{"indefinite array", minimal("items", []byte{0x9f, 0xff}), false, true},
		{"indefinite text", minimal("language", []byte{0x7f, 0x62, 'g', 'o', 0xff}), false, true},
		{"reserved additional information", minimal("bytes", []byte{0x1c}), false, true},
		{"not a map", cArray(), false, true},
		{"truncated", full[:len(full)-1], false, true},
		{"trailing byte", append(minimal(), 0), false, true},
		{"empty", nil, false, true},
		{"map longer than its bytes", []byte{0xbb, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, false, true},
		{"array longer than its bytes", minimal("items", huge), false, true},
		{"text longer than its bytes", minimal("path", []byte{0x7b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), false, true},
		{"nested too deep", minimal("items", cArray(with(itemFields(), "span", with(spanFields(), "start_line", cArray(cArray()))))), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, refErr := reflectiveBody(tt.body)
			if (refErr != nil) != tt.err {
				t.Fatalf("reflective decoder: error %v, want error %v", refErr, tt.err)
			}
			if got := checkLax(t, tt.body); got != tt.fast {
				t.Errorf("DecodeLaxBody decoded it: %v, want %v", got, tt.fast)
			}
		})
	}

	// Nil and empty slices are different values: the fast decoder must give
	// what the reflective one gives, whatever DeepEqual thinks of them.
	var fv FileVersion
	if !fv.DecodeLaxBody(minimal("items", cArray(with(itemFields(), "signature_hash", cBytes(nil))), "edges", cArray())) {
		t.Fatal("declined")
	}
	if fv.Edges == nil || fv.Items[0].SignatureHash == nil || fv.Imports != nil {
		t.Errorf("edges %#v, signature hash %#v, imports %#v: want empty, empty, nil", fv.Edges, fv.Items[0].SignatureHash, fv.Imports)
	}
}

func reflectiveBody(body []byte) (FileVersion, error) {
	var v plainFileVersion
	err := object.DecodeLax(payloadOf(body), &v)
	return FileVersion(v), err
}

// TestFileVersionLaxDeclinesFull checks that DecodeLaxBody does not decode
// into a FileVersion that holds something, since the reflective decoder
// would merge into it.
func TestFileVersionLaxDeclinesFull(t *testing.T) {
	body := cMap("blob", cBytes(testBlob[:]), "path", cText("a.go"))
	for _, v := range []FileVersion{{Path: "x"}, {Lines: 1}, {Binary: true}, {Module: &Node{}}, {Items: []StoredItem{}}, {Edges: []StoredEdge{}}} {
		before := fmt.Sprintf("%#v", v)
		if v.DecodeLaxBody(body) {
			t.Errorf("decoded into %s", before)
		}
		if after := fmt.Sprintf("%#v", v); after != before {
			t.Errorf("changed %s to %s", before, after)
		}
	}
}

// TestFileVersionLaxMinSizes checks the smallest element sizes that
// DecodeLaxBody expects against the encoder: each is the size of a zero
// element, and a body full of them decodes.
func TestFileVersionLaxMinSizes(t *testing.T) {
	// The size of one element: the body with two less the body with one
	// (a length under 24 takes no more bytes).
	size := func(set func(v *FileVersion, n int)) int {
		var one, two FileVersion
		set(&one, 1)
		set(&two, 2)
		return len(bodyOf(t, &two)) - len(bodyOf(t, &one))
	}
	tests := []struct {
		name string
		set  func(v *FileVersion, n int)
		want int
	}{
		{"items", func(v *FileVersion, n int) { v.Items = make([]StoredItem, n) }, minItemSize},
		{"imports", func(v *FileVersion, n int) { v.Imports = make([]StoredImport, n) }, minImportSize},
		{"nodes", func(v *FileVersion, n int) { v.Nodes = make([]Node, n) }, minNodeSize},
		{"edges", func(v *FileVersion, n int) { v.Edges = make([]StoredEdge, n) }, minEdgeSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := size(tt.set); got != tt.want {
				t.Errorf("the encoder writes a zero element in %d bytes; DecodeLaxBody expects %d at least", got, tt.want)
			}
			var v FileVersion
			tt.set(&v, 1000)
			if !checkLax(t, bodyOf(t, &v)) {
				t.Errorf("DecodeLaxBody declined 1000 zero elements")
			}
		})
	}
	var s graph.Span
	if got := len(bodyOf(t, &FileVersion{Edges: []StoredEdge{{Span: &s}}})) - len(bodyOf(t, &FileVersion{Edges: []StoredEdge{{}}})) - len("\x64span"); got != minSpanSize {
		t.Errorf("the encoder writes a zero span in %d bytes; DecodeLaxBody expects %d at least", got, minSpanSize)
	}
}

// randomText returns a string from the edge cases of the format: empty,
// lengths at the limits of the CBOR head's widths, non-ASCII.
func randomText(r *rand.Rand) string {
	switch r.Intn(10) {
	case 0:
		return ""
	case 1:
		return strings.Repeat("a", []int{1, 23, 24, 255, 256, 65535, 65536}[r.Intn(7)])
	case 2:
		return []string{"é", "日本語", "🙂", "\u0000", "\uFFFD", "a\u2028b", "\U0010FFFF"}[r.Intn(7)]
	case 3:
		rs := make([]rune, r.Intn(40))
		for i := range rs {
			rs[i] = rune(r.Intn(utf8.MaxRune + 1)) // surrogates become U+FFFD
		}
		return string(rs)
	}
	b := make([]byte, r.Intn(60))
	for i := range b {
		b[i] = byte(' ' + r.Intn(95))
	}
	return string(b)
}

// randomUint returns a number up to max, often at the limits of the CBOR
// head's widths.
func randomUint(r *rand.Rand, max uint64) uint64 {
	edges := []uint64{0, 1, 23, 24, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64, math.MaxUint64}
	if r.Intn(2) == 0 {
		if n := edges[r.Intn(len(edges))]; n <= max {
			return n
		}
	}
	n := r.Uint64() >> r.Intn(64)
	if n > max {
		return max
	}
	return n
}

// randomLen returns the length of a slice and whether it is nil: nil,
// empty and full slices all occur.
func randomLen(r *rand.Rand) (int, bool) {
	switch r.Intn(4) {
	case 0:
		return 0, true
	case 1:
		return 0, false
	}
	return 1 + r.Intn(20), false
}

func randomSpan(r *rand.Rand) graph.Span {
	return graph.Span{StartLine: uint32(randomUint(r, math.MaxUint32)), StartCol: uint32(randomUint(r, math.MaxUint32)),
		EndLine: uint32(randomUint(r, math.MaxUint32)), EndCol: uint32(randomUint(r, math.MaxUint32))}
}

func randomNode(r *rand.Rand) Node {
	n := Node{Kind: graph.NodeKinds[r.Intn(len(graph.NodeKinds))], Key: randomText(r)}
	if r.Intn(3) == 0 {
		n.Kind = graph.NodeKind(randomText(r))
	}
	if r.Intn(2) == 0 {
		n.Ecosystem = randomText(r)
	}
	return n
}

// randomFileVersion returns a FileVersion with every field set or not,
// not necessarily valid.
func randomFileVersion(r *rand.Rand) *FileVersion {
	v := &FileVersion{Path: randomText(r), Bytes: randomUint(r, math.MaxUint64), Lines: randomUint(r, math.MaxUint64)}
	if r.Intn(8) > 0 {
		r.Read(v.Blob[:])
	}
	if r.Intn(2) == 0 {
		v.Language = randomText(r)
	}
	v.Binary = r.Intn(4) == 0
	if r.Intn(2) == 0 {
		m := randomNode(r)
		v.Module = &m
	}
	if r.Intn(2) == 0 {
		v.SyntaxErrors = randomUint(r, math.MaxUint64)
	}
	if n, isNil := randomLen(r); !isNil {
		v.Items = make([]StoredItem, n)
		for i := range v.Items {
			it := &v.Items[i]
			*it = StoredItem{Kind: ItemKinds[r.Intn(len(ItemKinds))], Name: randomText(r), Key: randomText(r),
				Visibility: []Visibility{Public, Package, Private, ""}[r.Intn(4)], Span: randomSpan(r)}
			if r.Intn(2) == 0 {
				it.Parent = randomText(r)
			}
			if r.Intn(2) == 0 {
				it.Doc = randomText(r)
			}
			switch r.Intn(4) {
			case 0:
				it.SignatureHash = SignatureHash(randomText(r) + "x")
			case 1:
				it.SignatureHash = []byte{}
			case 2:
				it.SignatureHash = make([]byte, r.Intn(300))
				r.Read(it.SignatureHash)
			}
		}
	}
	if n, isNil := randomLen(r); !isNil {
		v.Imports = make([]StoredImport, n)
		for i := range v.Imports {
			v.Imports[i] = StoredImport{Path: randomText(r), Target: randomNode(r), Span: randomSpan(r)}
			if r.Intn(2) == 0 {
				v.Imports[i].Alias = randomText(r)
			}
		}
	}
	if n, isNil := randomLen(r); !isNil {
		v.Nodes = make([]Node, n)
		for i := range v.Nodes {
			v.Nodes[i] = randomNode(r)
		}
	}
	if n, isNil := randomLen(r); !isNil {
		v.Edges = make([]StoredEdge, n)
		for i := range v.Edges {
			e := &v.Edges[i]
			*e = StoredEdge{From: uint32(randomUint(r, math.MaxUint32)), To: uint32(randomUint(r, math.MaxUint32)),
				Label: graph.Labels[r.Intn(len(graph.Labels))], Confidence: graph.Confidences[r.Intn(len(graph.Confidences))]}
			if r.Intn(5) == 0 {
				e.Label = graph.Label(randomText(r))
			}
			if r.Intn(4) > 0 {
				s := randomSpan(r)
				e.Span = &s
			}
		}
	}
	return v
}

// rewriteCBOR re-encodes one well-formed data item with the same meaning
// but not canonically: heads wider than needed, map pairs shuffled.
func rewriteCBOR(r *rand.Rand, b []byte) (out, rest []byte) {
	if b[0] == cborFalse || b[0] == cborTrue {
		return b[:1], b[1:]
	}
	major, arg, next, ok := cborHead(b, 0)
	if !ok {
		panic(fmt.Sprintf("rewriteCBOR: bad head %x", b[0]))
	}
	out, rest = wideHead(r, major, arg), b[next:]
	switch major {
	case cborBytes, cborText:
		return append(out, rest[:arg]...), rest[arg:]
	case cborArray:
		for range arg {
			var item []byte
			item, rest = rewriteCBOR(r, rest)
			out = append(out, item...)
		}
	case cborMap:
		pairs := make([][]byte, arg)
		for i := range pairs {
			var k, v []byte
			k, rest = rewriteCBOR(r, rest)
			v, rest = rewriteCBOR(r, rest)
			pairs[i] = append(k, v...)
		}
		r.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		out = append(out, bytes.Join(pairs, nil)...)
	}
	return out, rest
}

// wideHead encodes a head in a random width that holds arg.
func wideHead(r *rand.Rand, major byte, arg uint64) []byte {
	minimal := cborHdr(major, arg)
	if r.Intn(3) == 0 {
		return minimal
	}
	widths := []int{1, 2, 4, 8}[r.Intn(4):]
	for _, w := range widths {
		if len(minimal)-1 <= w && (w == 8 || arg < 1<<(8*w)) {
			h := []byte{major<<5 | byte(map[int]int{1: 24, 2: 25, 4: 26, 8: 27}[w])}
			for i := w - 1; i >= 0; i-- {
				h = append(h, byte(arg>>(8*i)))
			}
			return h
		}
	}
	return minimal
}

// TestFileVersionLaxRandom encodes random file versions, from a generator
// of the format's edge cases and from testing/quick (which also sets
// any field added to FileVersion later: DecodeLaxBody would then decline
// it, and this test fail), and checks that DecodeLaxBody decodes each,
// canonical and re-encoded non-canonically, to what the reflective decoder
// gives.
func TestFileVersionLaxRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		var v *FileVersion
		if i%2 == 0 {
			v = randomFileVersion(r)
		} else {
			q, ok := quick.Value(reflect.TypeFor[FileVersion](), r)
			if !ok {
				t.Fatal("quick.Value failed")
			}
			fv := q.Interface().(FileVersion)
			v = &fv
		}
		body := bodyOf(t, v)
		if !checkLax(t, body) {
			t.Fatalf("value %d: DecodeLaxBody declined the encoder's output %x", i, body)
		}
		wide, rest := rewriteCBOR(r, body)
		if len(rest) != 0 {
			t.Fatalf("rewriteCBOR left %d bytes", len(rest))
		}
		if !checkLax(t, wide) {
			t.Fatalf("value %d: DecodeLaxBody declined the non-canonical %x", i, wide)
		}
	}
}

// projectVersions extracts and resolves the files under root/dir with a
// DirProject of root, as ctx add code does, and returns their
// FileVersions sorted by path.
func projectVersions(tb testing.TB, root, dir string) []*FileVersion {
	tb.Helper()
	units, srcs := extractProject(tb, root, dir)
	var out []*FileVersion
	for _, rs := range units {
		for i, es := range Resolve(rs, ResolveOptions{}) {
			src := srcs[rs[i].Path]
			out = append(out, NewFileVersion(rs[i].Path, object.Sum(object.KindBlob, src), src, rs[i], es))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// testdataVersions returns the file versions of the fixture projects
// under testdata/, of every language.
func testdataVersions(tb testing.TB) []*FileVersion {
	var out []*FileVersion
	for _, lang := range []string{"go", "javascript", "python", "rust", "typescript"} {
		out = append(out, projectVersions(tb, filepath.Join("testdata", lang), ".")...)
	}
	if len(out) == 0 {
		tb.Fatal("no file versions under testdata/")
	}
	return out
}

// TestFileVersionLaxProjects decodes the file versions of the fixture
// projects, as ingestion stores them, and counts the allocations: a
// handful per file version, however many strings it holds.
func TestFileVersionLaxProjects(t *testing.T) {
	for _, v := range testdataVersions(t) {
		payload, err := object.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		_, body, _ := object.SplitTyped(payload)
		if !checkLax(t, body) {
			t.Fatalf("%s: DecodeLaxBody declined it", v.Path)
		}
		// The text and signature hash arenas, the four slices, the edge
		// spans and the module.
		const most = 8
		var fv FileVersion // allocated here, not in the runs: DecodeLax's callers allocate it
		allocs := testing.AllocsPerRun(20, func() {
			fv = FileVersion{}
			fv.DecodeLaxBody(body)
		})
		if allocs > most {
			t.Errorf("%s: %v allocations to decode %d items, %d nodes, %d edges; want %d at most", v.Path, allocs, len(v.Items), len(v.Nodes), len(v.Edges), most)
		}
	}
}

// FuzzFileVersionLax decodes any body with DecodeLaxBody and the reflective
// decoder: DecodeLaxBody must not panic, must leave the receiver alone
// when it declines, and must decode exactly what the reflective decoder
// decodes when it does not; object.DecodeLax must give the same value or
// error as the reflective decoder.
func FuzzFileVersionLax(f *testing.F) {
	for _, v := range testdataVersions(f) {
		body := bodyOf(f, v)
		f.Add(body)
		f.Add(body[:len(body)/2])
	}
	r := rand.New(rand.NewSource(2))
	for range 20 {
		f.Add(bodyOf(f, randomFileVersion(r)))
	}
	f.Add([]byte{})
	f.Add(cMap())
	f.Add(cMap("blob", cBytes(testBlob[:]), "path", cText("a.go"), "path", cText("b.go")))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkLax(t, body)
	})
}

// goVersion returns the stored form of a file of GOROOT/src/strings, as
// ingesting Go's source tree stores it: about the size of the average
// file version of that store (16 kB).
func goVersion(b *testing.B) *FileVersion {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT:", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	for _, v := range projectVersions(b, root, "strings") {
		if v.Path == "strings/strings.go" {
			return v
		}
	}
	b.Skip("no strings/strings.go in GOROOT")
	return nil
}

// BenchmarkFileVersionDecodeLax decodes a file version with
// object.DecodeLax, reflectively and with DecodeLaxBody.
func BenchmarkFileVersionDecodeLax(b *testing.B) {
	v := goVersion(b)
	payload, err := object.Encode(v)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: %d bytes, %d items, %d imports, %d nodes, %d edges", v.Path, len(payload), len(v.Items), len(v.Imports), len(v.Nodes), len(v.Edges))
	b.Run("reflective", func(b *testing.B) {
		b.SetBytes(int64(len(payload)))
		b.ReportAllocs()
		for b.Loop() {
			var fv checkedFileVersion
			if err := object.DecodeLax(payload, &fv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(payload)))
		b.ReportAllocs()
		for b.Loop() {
			var fv FileVersion
			if err := object.DecodeLax(payload, &fv); err != nil {
				b.Fatal(err)
			}
		}
	})
}
