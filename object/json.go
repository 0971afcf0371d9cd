package object

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"

	"github.com/fxamacker/cbor/v2"
)

// ToJSON renders a typed payload as JSON without knowing its Go type: maps
// become objects with their keys in the payload's (canonical) order, byte
// strings become lowercase hex strings (so object IDs read as IDs), and
// integers, floats, text, booleans and null map to their JSON forms.
// Non-finite floats become the strings "NaN", "Infinity" and "-Infinity".
func ToJSON(payload []byte, indent bool) ([]byte, error) {
	if _, _, err := SplitTyped(payload); err != nil {
		return nil, err
	}
	var v any
	if err := decMode.Unmarshal(payload, &v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		return nil, err
	}
	if !indent {
		return b.Bytes(), nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("object: json: %w", err)
	}
	return out.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		switch {
		case math.IsNaN(x):
			b.WriteString(`"NaN"`)
		case math.IsInf(x, 1):
			b.WriteString(`"Infinity"`)
		case math.IsInf(x, -1):
			b.WriteString(`"-Infinity"`)
		default:
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case big.Int:
		b.WriteString(x.String())
	case string:
		writeJSONString(b, x)
	case []byte:
		b.WriteByte('"')
		b.WriteString(hex.EncodeToString(x))
		b.WriteByte('"')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[any]any:
		type kv struct {
			enc []byte
			key string
			val any
		}
		kvs := make([]kv, 0, len(x))
		for k, val := range x {
			enc, err := encMode.Marshal(k)
			if err != nil {
				return fmt.Errorf("%w: map key: %w", ErrDecode, err)
			}
			key, ok := k.(string)
			if !ok {
				key = fmt.Sprint(k)
				if bs, isBytes := k.([]byte); isBytes {
					key = hex.EncodeToString(bs)
				}
			}
			kvs = append(kvs, kv{enc, key, val})
		}
		sort.Slice(kvs, func(i, j int) bool { return bytes.Compare(kvs[i].enc, kvs[j].enc) < 0 })
		b.WriteByte('{')
		for i, e := range kvs {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, e.key)
			b.WriteByte(':')
			if err := writeJSON(b, e.val); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case cbor.SimpleValue:
		fmt.Fprintf(b, `"simple(%d)"`, uint8(x))
	default:
		return fmt.Errorf("%w: cannot render %T as JSON", ErrDecode, v)
	}
	return nil
}

// Parse checks a typed payload given by a user and returns it: CBOR that
// must decode as a registered type (canonical, schema intact), or, with
// asJSON, the JSON form that ToJSON prints, which is encoded canonically.
func (r *Registry) Parse(data []byte, asJSON bool) ([]byte, error) {
	if asJSON {
		return r.FromJSON(data)
	}
	if _, err := r.Decode(data); err != nil {
		return nil, err
	}
	return data, nil
}

// writeJSONString writes s as a JSON string without escaping <, > and &,
// which are not special outside HTML.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode appends a newline
}

// FromJSON parses the JSON form of a typed object, {"<type>": {…}} as
// printed by ToJSON, into the registered Go type and returns its canonical
// typed payload. Unknown fields are an error.
func (r *Registry) FromJSON(data []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%w: json: %w", ErrInvalidArgument, err)
	}
	if len(top) != 1 {
		return nil, fmt.Errorf("%w: json: want an object with exactly one key, the type name (one of %v)", ErrInvalidArgument, r.Names())
	}
	var name string
	var body json.RawMessage
	for name, body = range top {
	}
	v, ok := r.New(name)
	if !ok {
		return nil, fmt.Errorf("%w: json: unknown type %q (want one of %v)", ErrInvalidArgument, name, r.Names())
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, fmt.Errorf("%w: json: %s: %w", ErrInvalidArgument, name, err)
	}
	return Encode(v)
}
