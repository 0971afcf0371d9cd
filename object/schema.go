package object

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// field describes one field of a typed object's Go struct, from its json
// tag: the CBOR key, and whether it is required (no omitempty).
type field struct {
	key      string
	required bool
	typ      reflect.Type
}

var fieldCache sync.Map // reflect.Type → []field

func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fs = append(fs, field{key: name, required: !strings.Contains(opts, "omitempty"), typ: f.Type})
	}
	fieldCache.Store(t, fs)
	return fs
}

// checkSchema checks a CBOR map against the struct type t: every required
// field is present and not null, float fields hold floats, and the same
// holds for nested structs and lists of structs. Keys t does not know are
// appended to unknown (with their dotted paths), if unknown is not nil;
// they are not an error (FORMAT.md §4.1).
func checkSchema(body []byte, t reflect.Type, path string, unknown *[]string) error {
	p := &schemaPath{root: strings.TrimSuffix(path, ".")}
	end, err := checkMap(body, 0, t, p, unknown, 0)
	if err != nil {
		return err
	}
	if end != len(body) {
		return fmt.Errorf("%s: %d bytes after the map", p, len(body)-end)
	}
	return nil
}

// schemaPath is where in an object the check is: a stack of keys and
// array indices that becomes a dotted path ("edges[3].evidence.tool")
// only when an error or an unknown key needs it, so that checking
// allocates nothing.
type schemaPath struct {
	root  string
	parts []pathPart
}

type pathPart struct {
	key   string
	index int // -1: a key; else an array index
}

func (p *schemaPath) push(key string, index int) { p.parts = append(p.parts, pathPart{key, index}) }
func (p *schemaPath) pop()                       { p.parts = p.parts[:len(p.parts)-1] }

// String returns the dotted path.
func (p *schemaPath) String() string {
	var b strings.Builder
	b.WriteString(p.root)
	for _, x := range p.parts {
		if x.index >= 0 {
			fmt.Fprintf(&b, "[%d]", x.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(x.key)
	}
	return b.String()
}

// child returns the path of a key below p, for messages.
func (p *schemaPath) child(key string) string {
	if s := p.String(); s != "" {
		return s + "." + key
	}
	return key
}

// checkMap checks the CBOR map at b[off] against the struct type t, as
// checkSchema describes, and returns the offset after it. It walks the
// encoded bytes once, without decoding them: reading objects is the hot
// path of every history walk.
func checkMap(b []byte, off int, t reflect.Type, path *schemaPath, unknown *[]string, depth int) (int, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	major, n, off, err := cborHead(b, off)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if major != 5 {
		return 0, fmt.Errorf("%s: not a map with text keys", path)
	}
	fs := fieldsOf(t)
	var present [64]bool
	if len(fs) > len(present) {
		return 0, fmt.Errorf("%s: type %s has more than %d fields", path, t, len(present))
	}
	for i := uint64(0); i < n; i++ {
		kmajor, klen, koff, err := cborHead(b, off)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		if kmajor != 3 {
			return 0, fmt.Errorf("%s: not a map with text keys", path)
		}
		if klen > uint64(len(b)-koff) {
			return 0, fmt.Errorf("%s: %w", path, errTruncated)
		}
		key := b[koff : koff+int(klen)]
		vstart := koff + int(klen)
		vend, err := cborSkip(b, vstart, depth+1)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path.child(string(key)), err)
		}
		off = vend
		fi := -1
		for j := range fs {
			if fs[j].key == string(key) {
				fi = j
				break
			}
		}
		if fi < 0 {
			if unknown != nil {
				*unknown = append(*unknown, path.child(string(key)))
			}
			continue
		}
		f := &fs[fi]
		raw := b[vstart:vend]
		if len(raw) == 1 && raw[0] == 0xf6 { // null: as if absent
			continue
		}
		present[fi] = true
		if !f.required && f.typ.Kind() == reflect.String && raw[0] == 0x60 {
			// An absent value has one encoding: no key (FORMAT.md §4.1).
			return 0, fmt.Errorf("optional field %s is present but empty", path.child(f.key))
		}
		path.push(f.key, -1)
		err = checkValue(raw, f.typ, path, unknown, depth+1)
		path.pop()
		if err != nil {
			return 0, err
		}
	}
	for j := range fs {
		if fs[j].required && !present[j] {
			return 0, fmt.Errorf("missing required field %s", path.child(fs[j].key))
		}
	}
	return off, nil
}

// checkValue checks one field's encoded value against its Go type.
func checkValue(raw []byte, t reflect.Type, path *schemaPath, unknown *[]string, depth int) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		_, err := checkMap(raw, 0, t, path, unknown, depth)
		return err
	case reflect.Slice:
		elem := t.Elem()
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		if elem.Kind() != reflect.Struct {
			return nil
		}
		major, n, off, err := cborHead(raw, 0)
		if err != nil || major != 4 {
			return fmt.Errorf("%s: not an array", path)
		}
		for i := uint64(0); i < n; i++ {
			path.push("", int(i))
			off, err = checkMap(raw, off, elem, path, unknown, depth+1)
			path.pop()
			if err != nil {
				return err
			}
		}
	case reflect.Float32, reflect.Float64:
		if raw[0] != 0xf9 && raw[0] != 0xfa && raw[0] != 0xfb {
			return fmt.Errorf("%s: not a floating-point number", path)
		}
	}
	return nil
}

var errTruncated = errors.New("truncated CBOR")

// maxDepth bounds the nesting cborSkip follows; FORMAT.md §4.1 allows 64.
const maxDepth = 64

// cborHead reads the head of the data item at b[off]: its major type, its
// argument (a length, count or value) and the offset after the head.
// Indefinite lengths and reserved values are errors: canonical CBOR has
// neither.
func cborHead(b []byte, off int) (major byte, arg uint64, next int, err error) {
	if off >= len(b) {
		return 0, 0, 0, errTruncated
	}
	major, ai := b[off]>>5, b[off]&0x1f
	off++
	var size int
	switch {
	case ai < 24:
		return major, uint64(ai), off, nil
	case ai == 24:
		size = 1
	case ai == 25:
		size = 2
	case ai == 26:
		size = 4
	case ai == 27:
		size = 8
	default:
		return 0, 0, 0, fmt.Errorf("indefinite-length or reserved CBOR item (0x%02x)", b[off-1])
	}
	if len(b)-off < size {
		return 0, 0, 0, errTruncated
	}
	for _, c := range b[off : off+size] {
		arg = arg<<8 | uint64(c)
	}
	return major, arg, off + size, nil
}

// cborSkip returns the offset after the data item at b[off].
func cborSkip(b []byte, off int, depth int) (int, error) {
	if depth > maxDepth {
		return 0, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	major, arg, off, err := cborHead(b, off)
	if err != nil {
		return 0, err
	}
	rest := uint64(len(b) - off)
	switch major {
	case 2, 3: // byte and text strings
		if arg > rest {
			return 0, errTruncated
		}
		return off + int(arg), nil
	case 4, 5: // arrays and maps: every item takes at least one byte
		items := arg
		if major == 5 {
			if arg > rest/2 {
				return 0, errTruncated
			}
			items = 2 * arg
		}
		if items > rest {
			return 0, errTruncated
		}
		for i := uint64(0); i < items; i++ {
			if off, err = cborSkip(b, off, depth+1); err != nil {
				return 0, err
			}
		}
		return off, nil
	case 6: // a tag and its item; tags are refused when decoding
		return cborSkip(b, off, depth+1)
	}
	return off, nil // integers, simple values and floats: the head is all
}

// UnknownKeys returns the dotted paths of the keys of a typed payload that
// v's type does not know, such as optional fields added by a newer ctx.
func UnknownKeys(payload []byte, v Typed) []string {
	_, body, err := SplitTyped(payload)
	if err != nil {
		return nil
	}
	var unknown []string
	_ = checkSchema(body, reflect.TypeOf(v), "", &unknown)
	return unknown
}
