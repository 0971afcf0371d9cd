package object

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// laxProbe is a typed value with a LaxDecoder that records what it is
// given and decodes, when told to, to a value of its own, so that a test
// can see which decoder ran.
type laxProbe struct {
	Name string `json:"name"`

	fast  string // when set, DecodeLaxBody decodes, to this name
	calls int
	body  []byte
}

func (*laxProbe) TypeName() string { return "lax_probe" }
func (*laxProbe) Links() []Link    { return nil }

func (p *laxProbe) Validate() error {
	if p.Name == "bad" {
		return errors.New("the name is bad")
	}
	return nil
}

func (p *laxProbe) DecodeLaxBody(body []byte) bool {
	p.calls++
	p.body = append([]byte(nil), body...)
	if p.fast == "" {
		return false
	}
	p.Name = p.fast
	return true
}

var _ LaxDecoder = (*laxProbe)(nil)

func TestDecodeLaxDecoder(t *testing.T) {
	body := cMap(cText("name"), cText("reflective"))
	good := typedPayload("lax_probe", body)
	tests := []struct {
		name    string
		payload []byte
		strict  bool   // Decode rather than DecodeLax
		fast    string // what DecodeLaxBody decodes to; "" declines
		calls   int    // calls of DecodeLaxBody
		want    string // the name decoded
		err     string // a part of the error; "" for none
	}{
		{"fast", good, false, "fast", 1, "fast", ""},
		{"declined", good, false, "", 1, "reflective", ""},
		{"strict", good, true, "fast", 0, "reflective", ""},
		{"validated after the fast decoder", good, false, "bad", 1, "bad", "lax_probe: the name is bad"},
		{"validated after the reflective decoder", typedPayload("lax_probe", cMap(cText("name"), cText("bad"))), false, "", 1, "bad", "lax_probe: the name is bad"},
		{"declined, reflective error", typedPayload("lax_probe", cMap(cText("name"), cBytes([]byte("x")))), false, "", 1, "", "cannot unmarshal byte string"},
		{"another type", typedPayload("tree", body), false, "fast", 0, "", "object is a tree, not a lax_probe"},
		{"type name of a longer head", cat([]byte{0xa1, 0x78, 9}, []byte("lax_probe"), body), false, "fast", 0, "reflective", ""},
		{"two entries", cat([]byte{0xa2}, cText("lax_probe"), body, cText("x"), body), false, "fast", 0, "", "exactly one entry"},
		{"no body", typedPayload("lax_probe", nil), false, "fast", 0, "", "lax_probe"},
		{"body not a map", typedPayload("lax_probe", cArray()), false, "fast", 0, "", "body is not a CBOR map"},
		{"short type name", []byte{0xa1, 0x69, 'l', 'a', 'x'}, false, "fast", 0, "", "top-level key"},
		{"empty", nil, false, "fast", 0, "", "top level is not a CBOR map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &laxProbe{fast: tt.fast}
			decode := DecodeLax
			if tt.strict {
				decode = Decode
			}
			err := decode(tt.payload, p)
			if tt.err == "" && err != nil || tt.err != "" && (!errors.Is(err, ErrDecode) || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("error %v, want one with %q", err, tt.err)
			}
			if p.calls != tt.calls {
				t.Errorf("DecodeLaxBody called %d times, want %d", p.calls, tt.calls)
			}
			if p.calls > 0 && !bytes.Equal(p.body, tt.payload[2+len("lax_probe"):]) {
				t.Errorf("DecodeLaxBody given %x, want the body", p.body)
			}
			if err == nil || tt.want != "" {
				if p.Name != tt.want {
					t.Errorf("decoded %q, want %q", p.Name, tt.want)
				}
			}
		})
	}
}
