package object

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/fxamacker/cbor/v2"
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
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var m map[string]cbor.RawMessage
	if err := decMode.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("%s: not a map with text keys: %w", strings.TrimSuffix(path, "."), err)
	}
	fs := fieldsOf(t)
	for _, f := range fs {
		raw, ok := m[f.key]
		if !ok || len(raw) == 1 && raw[0] == 0xf6 { // absent or null
			if f.required {
				return fmt.Errorf("missing required field %s%s", path, f.key)
			}
			continue
		}
		if !f.required && f.typ.Kind() == reflect.String && raw[0] == 0x60 {
			// An absent value has one encoding: no key (FORMAT.md §4.1).
			return fmt.Errorf("optional field %s%s is present but empty", path, f.key)
		}
		if err := checkValue(raw, f.typ, path+f.key, unknown); err != nil {
			return err
		}
	}
	if unknown != nil {
		for k := range m {
			known := false
			for _, f := range fs {
				if f.key == k {
					known = true
					break
				}
			}
			if !known {
				*unknown = append(*unknown, path+k)
			}
		}
	}
	return nil
}

func checkValue(raw []byte, t reflect.Type, path string, unknown *[]string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkSchema(raw, t, path+".", unknown)
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Struct {
			return nil
		}
		var items []cbor.RawMessage
		if err := decMode.Unmarshal(raw, &items); err != nil {
			return fmt.Errorf("%s: not an array: %w", path, err)
		}
		for i, it := range items {
			if err := checkSchema(it, t.Elem(), fmt.Sprintf("%s[%d].", path, i), unknown); err != nil {
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
