package text

import (
	"reflect"
	"slices"
	"testing"
)

func cl(terms ...string) Clause {
	c := Clause{Terms: terms, Pos: make([]uint32, len(terms))}
	for i := range c.Pos {
		c.Pos[i] = uint32(i)
	}
	return c
}

func quoted(c Clause) Clause {
	c.Quoted = true
	return c
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		in   string
		want Query
	}{
		{"", Query{}},
		{"   \t\n", Query{}},
		{"exponential backoff", Query{Clauses: []Clause{cl("exponential"), cl("backoff")}}},
		{"HTTPClient", Query{Clauses: []Clause{cl("http", "client")}}},
		{"max_file_bytes Client.connect", Query{Clauses: []Clause{cl("max", "file", "bytes"), cl("client", "connect")}}},
		{"foo,bar(baz)", Query{Clauses: []Clause{cl("foo"), cl("bar"), cl("baz")}}},
		{"the retry of a request", Query{Clauses: []Clause{cl("retry"), cl("of"), cl("a"), cl("request")}}},
		{"retry retry Retry", Query{Clauses: []Clause{cl("retry")}}},
		{`"exponential backoff"`, Query{Clauses: []Clause{quoted(cl("exponential", "backoff"))}}},
		{`"Client.connect retries"`, Query{Clauses: []Clause{quoted(cl("client", "connect", "retries"))}}},
		{`"state of the art"`, Query{Clauses: []Clause{{Terms: []string{"state", "of", "art"}, Pos: []uint32{0, 1, 3}, Quoted: true}}}},
		{`"the art"`, Query{Clauses: []Clause{quoted(cl("art"))}}},
		{`"unterminated phrase`, Query{Clauses: []Clause{quoted(cl("unterminated", "phrase"))}}},
		{`"" "the"`, Query{}},
		{`a"b c"d`, Query{Clauses: []Clause{cl("a"), quoted(cl("b", "c")), cl("d")}}},
		{"backoff -jitter", Query{Clauses: []Clause{cl("backoff")}, Exclude: []Clause{cl("jitter")}}},
		{`backoff -"fixed delay"`, Query{Clauses: []Clause{cl("backoff")}, Exclude: []Clause{quoted(cl("fixed", "delay"))}}},
		{"--flag - -- x-y", Query{Clauses: []Clause{cl("flag"), cl("x", "y")}}},
		{"type:decision auth", Query{Clauses: []Clause{cl("auth")}, Filters: []Filter{{Field: "type", Value: "decision"}}}},
		{`Path:"my dir/" -tag:draft type:`, Query{Filters: []Filter{{Field: "path", Value: "my dir/"}, {Field: "tag", Value: "draft", Negated: true}, {Field: "type"}}}},
		{"tag:project:viberent", Query{Filters: []Filter{{Field: "tag", Value: "project:viberent"}}}},
		{"created:>24h", Query{Filters: []Filter{{Field: "created", Value: ">24h"}}}},
		{`path:"//x"`, Query{Filters: []Filter{{Field: "path", Value: "//x"}}}},
		{"core::net::Client http://x.io :: 9:30", Query{Clauses: []Clause{cl("core", "net", "client"), cl("http"), cl("x", "io"), cl("9"), cl("30")}}},
		{"Ünïcödé ΣΊΣΥΦΟΣ", Query{Clauses: []Clause{cl("ünïcödé"), cl("σίσυφοσ")}}},
		{"\xff\xfe", Query{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := ParseQuery(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseQuery(%q)\n got  %#v\n want %#v", tt.in, got, tt.want)
			}
			if again := ParseQuery(got.String()); !reflect.DeepEqual(again, got) {
				t.Errorf("ParseQuery(%q) = %#v, not the query it came from", got.String(), again)
			}
		})
	}
}

func TestQueryString(t *testing.T) {
	tests := []struct{ in, want string }{
		{`HTTPClient "state of the art" -jitter type:"a b" -tag:x`, `http_client "state of the art" -jitter type:"a b" -tag:x`},
		{`"isValid check"`, `"is_valid check"`},
		{`"x the isValid"`, `"x the is_valid"`},
	}
	for _, tt := range tests {
		if got := ParseQuery(tt.in).String(); got != tt.want {
			t.Errorf("ParseQuery(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNaturalQuery(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"How does the client retry?", []string{"how", "does", "client", "retry"}},
		{`type:decision "Fix" -x (parseHstore`, []string{"type", "decision", "fix", "x", "parsehstore", "parse", "hstore"}},
		{"net/http.Client.Do and Client", []string{"net/http.client.do", "net", "http.client.do", "http", "client", "do"}},
		{"", nil},
	} {
		q := NaturalQuery(tc.in)
		var got []string
		for _, c := range q.Clauses {
			if len(c.Terms) != 1 || c.Quoted || c.Weight != 0 {
				t.Errorf("%q: clause %+v is not one plain term", tc.in, c)
			}
			got = append(got, c.Terms[0])
		}
		if !slices.Equal(got, tc.want) || len(q.Exclude)+len(q.Filters) > 0 {
			t.Errorf("NaturalQuery(%q) = %q (%d excluded, %d filters), want %q", tc.in, got, len(q.Exclude), len(q.Filters), tc.want)
		}
	}
}
