package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// argsFixture has a field of every kind the schema knows.
type argsFixture struct {
	Name  string   `json:"name" jsonschema:"A name."`
	Count int64    `json:"count,omitempty"`
	Small int8     `json:"small,omitempty"`
	Size  uint64   `json:"size,omitempty"`
	Ratio float64  `json:"ratio,omitempty"`
	On    bool     `json:"on,omitempty"`
	Maybe *bool    `json:"maybe,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Grid  [][]int  `json:"grid,omitempty"`
	Inner *struct {
		Depth int `json:"depth"`
	} `json:"inner,omitempty"`
	hidden int
	Skip   string `json:"-"`
}

func TestSchemaJSON(t *testing.T) {
	s, err := schemaOf(reflect.TypeFor[argsFixture]())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{` +
		`"name":{"type":"string","description":"A name."},` +
		`"count":{"type":"integer"},"small":{"type":"integer"},"size":{"type":"integer"},` +
		`"ratio":{"type":"number"},"on":{"type":"boolean"},"maybe":{"type":["null","boolean"]},` +
		`"tags":{"type":["null","array"],"items":{"type":"string"}},` +
		`"grid":{"type":["null","array"],"items":{"type":["null","array"],"items":{"type":"integer"}}},` +
		`"inner":{"type":["null","object"],"properties":{"depth":{"type":"integer"}},"required":["depth"],"additionalProperties":false}},` +
		`"required":["name"],"additionalProperties":false}`
	if string(b) != want {
		t.Errorf("schema\n%s\nwant\n%s", b, want)
	}
	if _, err := schemaOf(reflect.TypeFor[struct{ F map[string]int }]()); err == nil {
		t.Error("a map got a schema")
	}
}

func TestDecodeArgs(t *testing.T) {
	s, err := schemaOf(reflect.TypeFor[argsFixture]())
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	for _, tc := range []struct {
		args string
		want argsFixture
		err  string // a part of the error; "" for none
	}{
		{args: `{"name":"a"}`, want: argsFixture{Name: "a"}},
		{args: `{"name":"a","count":3,"small":-128,"size":7,"ratio":0.5,"on":true,"maybe":true,"tags":["x","y"],"grid":[[1],null],"inner":{"depth":2}}`,
			want: argsFixture{Name: "a", Count: 3, Small: -128, Size: 7, Ratio: 0.5, On: true, Maybe: &yes, Tags: []string{"x", "y"}, Grid: [][]int{{1}, nil}, Inner: &struct {
				Depth int `json:"depth"`
			}{2}}},
		{args: `{"name":"a","count":2.0}`, want: argsFixture{Name: "a", Count: 2}},
		{args: `{"name":"a","count":2e3}`, want: argsFixture{Name: "a", Count: 2000}},
		{args: `{"name":"a","tags":null,"maybe":null,"inner":null}`, want: argsFixture{Name: "a"}},
		{args: `{"name":"a","tags":[]}`, want: argsFixture{Name: "a", Tags: []string{}}},
		{args: ``, err: "name is required"},
		{args: `null`, err: "name is required"},
		{args: `{}`, err: "name is required"},
		{args: `[]`, err: "arguments: an array, want an object"},
		{args: `"x"`, err: "arguments: a string, want an object"},
		{args: `{"name":5}`, err: "name: the number 5, want a string"},
		{args: `{"name":null}`, err: "name: null, want a string"},
		{args: `{"name":"a","count":2.5}`, err: "count: 2.5 is not a whole number"},
		// Decided on the decimal, not on a float64 that rounds.
		{args: `{"name":"a","count":12345678901234567.5}`, err: "is not a whole number"},
		{args: `{"name":"a","count":1.00000000000000000001}`, err: "is not a whole number"},
		{args: `{"name":"a","count":1e-400}`, err: "is not a whole number"},
		{args: `{"name":"a","count":1e-999999999}`, err: "is not a whole number"},
		{args: `{"name":"a","count":1e999999999}`, err: "is out of range"},
		{args: `{"name":"a","count":9223372036854775808}`, err: "is out of range"},
		{args: `{"name":"a","count":-9223372036854775808}`, want: argsFixture{Name: "a", Count: -9223372036854775808}},
		{args: `{"name":"a","count":0e999999999,"small":-0,"size":18446744073709551615}`, want: argsFixture{Name: "a", Size: 18446744073709551615}},
		{args: `{"name":"a","count":1.5e1}`, want: argsFixture{Name: "a", Count: 15}},
		{args: `{"name":"a","size":18446744073709551616}`, err: "is out of range"},
		// A key twice is refused, not decided.
		{args: `{"name":"a","name":"b"}`, err: `the key "name" twice`},
		{args: `{"name":"a","inner":{"depth":1,"depth":2}}`, err: `the key "depth" twice`},
		{args: `{"name":"a","grid":[[1]],"tags":[],"inner":{"depth":1},"x":{"name":1}}`, err: `unknown argument "x"`},
		{args: `{"name":"a","count":"2"}`, err: "count: a string, want an integer"},
		{args: `{"name":"a","count":1e30}`, err: "count: 1e30 is out of range"},
		{args: `{"name":"a","count":null}`, err: "count: null, want an integer"},
		{args: `{"name":"a","small":128}`, err: "small: 128 is out of range"},
		{args: `{"name":"a","size":-1}`, err: "size: -1 is out of range"},
		{args: `{"name":"a","ratio":1e400}`, err: "ratio: 1e400 is out of range"},
		{args: `{"name":"a","on":"true"}`, err: "on: a string, want a boolean"},
		{args: `{"name":"a","tags":"x"}`, err: "tags: a string, want an array"},
		{args: `{"name":"a","tags":["x",3]}`, err: "tags[1]: the number 3, want a string"},
		{args: `{"name":"a","grid":[[1,"2"]]}`, err: "grid[0][1]: a string, want an integer"},
		{args: `{"name":"a","inner":{}}`, err: "inner.depth is required"},
		{args: `{"name":"a","inner":{"depth":1,"x":1}}`, err: `unknown property of inner "x" (known: depth)`},
		{args: `{"name":"a","bogus":1,"Skip":"x","hidden":1}`, err: `unknown arguments "Skip", "bogus", "hidden" (known: name, count,`},
		{args: `{"name":"a"`, err: "invalid arguments"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			got := argsFixture{Name: "untouched"}
			err := s.decodeArgs(json.RawMessage(tc.args), &got)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one with %q", err, tc.err)
			case tc.err != "" && got.Name != "untouched":
				t.Fatalf("failed, but stored %+v", got)
			case tc.err == "" && !reflect.DeepEqual(got, tc.want):
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// FuzzDecodeArgs: any arguments are stored or refused with an error,
// never a panic; what is stored encodes to arguments that decode to the
// same value.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","count":3,"tags":["x"],"grid":[[1,2]],"inner":{"depth":1},"maybe":false}`,
		`{"name":"","ratio":-0.0,"size":18446744073709551615}`,
		`{"name":"a","count":-9223372036854775808}`, `null`, `[1]`, `{"name":{"x":1}}`,
	} {
		f.Add([]byte(s))
	}
	s, err := schemaOf(reflect.TypeFor[argsFixture]())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		var got argsFixture
		if s.decodeArgs(args, &got) != nil {
			return
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var again argsFixture
		if err := s.decodeArgs(b, &again); err != nil {
			t.Fatalf("re-decoding %s (from %q): %v", b, args, err)
		}
		if !reflect.DeepEqual(normal(got), normal(again)) {
			t.Fatalf("round trip of %q: %+v, want %+v", args, again, got)
		}
	})
}

// normal is a with its empty slices nil: omitempty drops them, so a
// round trip turns [] into absent.
func normal(a argsFixture) argsFixture {
	if len(a.Tags) == 0 {
		a.Tags = nil
	}
	if len(a.Grid) == 0 {
		a.Grid = nil
	}
	return a
}
