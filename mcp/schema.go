package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// schema is the JSON Schema of a tool's arguments, derived from the Go
// struct the tool decodes them into (schemaOf), and the validator of
// those arguments (decodeArgs). It covers what the tools' structs use:
// objects of named properties, strings, booleans, integers, numbers,
// arrays, and null for a pointer or a slice (a nil slice is a JSON
// null). A struct field is required unless its json tag says omitempty;
// its `jsonschema:"…"` tag is the property's description; properties not
// in the struct are refused (additionalProperties: false).
type schema struct {
	Type        string
	Nullable    bool
	Description string
	Items       *schema      // arrays
	Properties  []property   // objects, in the struct's order
	Required    []string     // objects
	goType      reflect.Type // what a value decodes into
}

// property is one named property of an object schema.
type property struct {
	Name   string
	Schema *schema
	field  []int // index of the struct field (reflect.Value.FieldByIndex)
}

// schemaOf returns the schema of values of type t, or an error naming
// the first type it cannot describe.
func schemaOf(t reflect.Type) (*schema, error) {
	s := &schema{goType: t}
	if t.Kind() == reflect.Pointer {
		el, err := schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		el.Nullable, el.goType = true, t
		return el, nil
	}
	switch t.Kind() {
	case reflect.String:
		s.Type = "string"
	case reflect.Bool:
		s.Type = "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s.Type = "integer"
	case reflect.Float32, reflect.Float64:
		s.Type = "number"
	case reflect.Slice:
		items, err := schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		s.Type, s.Nullable, s.Items = "array", true, items
	case reflect.Struct:
		s.Type = "object"
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			ps, err := schemaOf(f.Type)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", t.Name(), f.Name, err)
			}
			ps.Description = f.Tag.Get("jsonschema")
			s.Properties = append(s.Properties, property{Name: name, Schema: ps, field: f.Index})
			if !slices.Contains(strings.Split(opts, ","), "omitempty") {
				s.Required = append(s.Required, name)
			}
		}
	default:
		return nil, fmt.Errorf("mcp: no JSON schema for Go type %s", t)
	}
	return s, nil
}

// MarshalJSON writes the schema as JSON Schema, properties in the
// struct's order.
func (s *schema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	if s.Nullable {
		fmt.Fprintf(&b, `["null",%q]`, s.Type)
	} else {
		fmt.Fprintf(&b, "%q", s.Type)
	}
	if s.Description != "" {
		d, err := marshal(s.Description)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"description":`)
		b.Write(d)
	}
	if s.Items != nil {
		items, err := s.Items.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"items":`)
		b.Write(items)
	}
	if s.Type == "object" {
		if len(s.Properties) > 0 {
			b.WriteString(`,"properties":{`)
			for i, p := range s.Properties {
				if i > 0 {
					b.WriteByte(',')
				}
				ps, err := p.Schema.MarshalJSON()
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(&b, "%q:", p.Name)
				b.Write(ps)
			}
			b.WriteByte('}')
		}
		if len(s.Required) > 0 {
			req, err := marshal(s.Required)
			if err != nil {
				return nil, err
			}
			b.WriteString(`,"required":`)
			b.Write(req)
		}
		b.WriteString(`,"additionalProperties":false`)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeArgs checks the JSON arguments raw against s, an object schema,
// and stores them in the struct dst points to. Absent arguments are an
// empty object. The error names the first argument that does not fit
// and why; nothing is stored then.
func (s *schema) decodeArgs(raw json.RawMessage, dst any) error {
	if isNull(raw) {
		raw = json.RawMessage("{}")
	}
	if !json.Valid(raw) {
		return fmt.Errorf("invalid arguments: not JSON")
	}
	if err := uniqueKeys(raw); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	out := reflect.New(s.goType).Elem()
	if err := s.assign(out, v, "arguments"); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	reflect.ValueOf(dst).Elem().Set(out)
	return nil
}

// assign checks v, a value json.Decoder gave with UseNumber, against s
// and stores it in out, a settable value of s.goType. where names v in
// an error: "arguments", "query", "tags[2]".
func (s *schema) assign(out reflect.Value, v any, where string) error {
	if v == nil {
		if !s.Nullable {
			return fmt.Errorf("%s: null, want %s", where, article(s.Type))
		}
		out.SetZero()
		return nil
	}
	if out.Kind() == reflect.Pointer {
		p := reflect.New(out.Type().Elem())
		if err := s.assign(p.Elem(), v, where); err != nil {
			return err
		}
		out.Set(p)
		return nil
	}
	wrong := func() error {
		return fmt.Errorf("%s: %s, want %s", where, describe(v), article(s.Type))
	}
	switch s.Type {
	case "string":
		x, ok := v.(string)
		if !ok {
			return wrong()
		}
		out.SetString(x)
	case "boolean":
		x, ok := v.(bool)
		if !ok {
			return wrong()
		}
		out.SetBool(x)
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return wrong()
		}
		return setInteger(out, n, where)
	case "number":
		n, ok := v.(json.Number)
		if !ok {
			return wrong()
		}
		f, err := n.Float64()
		if err != nil || out.OverflowFloat(f) {
			return fmt.Errorf("%s: %s is out of range", where, n)
		}
		out.SetFloat(f)
	case "array":
		a, ok := v.([]any)
		if !ok {
			return wrong()
		}
		sl := reflect.MakeSlice(out.Type(), len(a), len(a))
		for i, el := range a {
			if err := s.Items.assign(sl.Index(i), el, fmt.Sprintf("%s[%d]", where, i)); err != nil {
				return err
			}
		}
		out.Set(sl)
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return wrong()
		}
		return s.assignObject(out, m, where)
	}
	return nil
}

// assignObject stores the properties of m in the struct out.
func (s *schema) assignObject(out reflect.Value, m map[string]any, where string) error {
	prefix := where + "."
	if where == "arguments" {
		prefix = "" // a tool's arguments are named alone: "query", not "arguments.query"
	}
	var unknown []string
	for name := range m {
		if !slices.ContainsFunc(s.Properties, func(p property) bool { return p.Name == name }) {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		known := make([]string, len(s.Properties))
		for i, p := range s.Properties {
			known[i] = p.Name
		}
		what := plural(len(unknown), "property", "properties") + " of " + where
		if where == "arguments" {
			what = plural(len(unknown), "argument", "arguments")
		}
		return fmt.Errorf("unknown %s %s (known: %s)", what, strings.Join(unknown, ", "), orNone(strings.Join(known, ", ")))
	}
	for _, name := range s.Required {
		if _, ok := m[name]; !ok {
			return fmt.Errorf("%s%s is required", prefix, name)
		}
	}
	for _, p := range s.Properties {
		v, ok := m[p.Name]
		if !ok {
			continue
		}
		if err := p.Schema.assign(out.FieldByIndex(p.field), v, prefix+p.Name); err != nil {
			return err
		}
	}
	return nil
}

// setInteger stores the JSON number n in the integer out: a whole
// number (2, 2.0 and 2e3 are; 2.5 and 1e-400 are not) in out's range,
// decided on the exact decimal value, not through a float64 that would
// round 12345678901234567.5 to a whole number.
func setInteger(out reflect.Value, n json.Number, where string) error {
	v, whole := wholeNumber(n.String())
	switch {
	case !whole:
		return fmt.Errorf("%s: %s is not a whole number, want an integer", where, n)
	case v == nil:
		return fmt.Errorf("%s: %s is out of range", where, n)
	}
	switch out.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if !v.IsUint64() || out.OverflowUint(v.Uint64()) {
			return fmt.Errorf("%s: %s is out of range", where, n)
		}
		out.SetUint(v.Uint64())
	default:
		if !v.IsInt64() || out.OverflowInt(v.Int64()) {
			return fmt.Errorf("%s: %s is out of range", where, n)
		}
		out.SetInt(v.Int64())
	}
	return nil
}

// wholeNumber is the exact value of the JSON number s if it is a whole
// number (whole), or nil for a whole number too large for any argument.
// An exponent beyond ±400 is judged without big.Rat, which would build
// the power (1e999999999 would take gigabytes): zero is whole, anything
// else is out of range or a fraction.
func wholeNumber(s string) (v *big.Int, whole bool) {
	if i, ok := new(big.Int).SetString(s, 10); ok {
		return i, true // the common case: written as an integer
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		e, err := strconv.Atoi(exp)
		if err != nil || e > 400 || e < -400 {
			switch {
			case strings.Trim(mant, "-+0.") == "":
				return new(big.Int), true
			case strings.HasPrefix(exp, "-"):
				return nil, false
			}
			return nil, true
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() {
		return nil, false
	}
	return r.Num(), true
}

// describe names the JSON type of v, a decoded value, for an error.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + x.String()
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

func article(typ string) string {
	switch typ {
	case "integer", "array", "object":
		return "an " + typ
	}
	return "a " + typ
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
