package directive

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		want  []Directive // Offset and Line are not compared when zero
		probs []string    // substrings of the problems, in order
	}{
		{name: "none", text: "nothing to see here"},
		{
			name: "remember with both quote styles, content trimmed",
			text: "Done.\n<ctx:remember type=\"fact\" tags='tier:reference,project:x'>\n  Retries use backoff.\n</ctx:remember>\n",
			want: []Directive{{Name: Remember, Attrs: map[string]string{"type": "fact", "tags": "tier:reference,project:x"}, Content: "Retries use backoff.", Line: 2}},
		},
		{
			name: "self-closing commands",
			text: `<ctx:recall query="type:decision AND tag:x"/> then <ctx:status/> and <ctx:task name="auth" action="start" />`,
			want: []Directive{
				{Name: Recall, Attrs: map[string]string{"query": "type:decision AND tag:x"}},
				{Name: Status, Attrs: map[string]string{}},
				{Name: Task, Attrs: map[string]string{"name": "auth", "action": "start"}},
			},
		},
		{
			name: "a value holding > and the other quote",
			text: `<ctx:recall query='created:>7d tag:"a"'/>`,
			want: []Directive{{Name: Recall, Attrs: map[string]string{"query": `created:>7d tag:"a"`}}},
		},
		{
			name: "fenced code is skipped",
			text: "Use it like this:\n```xml\n<ctx:remember type=\"fact\">example</ctx:remember>\n```\n<ctx:status/>",
			want: []Directive{{Name: Status, Attrs: map[string]string{}, Line: 5}},
		},
		{
			name: "tilde fence, unclosed to the end",
			text: "~~~\n<ctx:status/>\n",
		},
		{
			name: "a shorter fence does not close a longer one",
			text: "````\n```\n<ctx:status/>\n```\n````\n<ctx:expand node=\"abcd\"/>",
			want: []Directive{{Name: Expand, Attrs: map[string]string{"node": "abcd"}}},
		},
		{
			name: "inline code is skipped",
			text: "Write `<ctx:status/>` or ``<ctx:recall query=\"x\"/>`` to ask. <ctx:recall query=\"y\"/>",
			want: []Directive{{Name: Recall, Attrs: map[string]string{"query": "y"}}},
		},
		{
			name: "an unmatched backtick is text",
			text: "a ` b <ctx:status/>",
			want: []Directive{{Name: Status, Attrs: map[string]string{}}},
		},
		{
			name: "content may hold code, and a closing tag in code does not close",
			text: "<ctx:remember type=\"pattern\">Call `</ctx:remember>` never.\n```\nx := 1\n```\n</ctx:remember>",
			want: []Directive{{Name: Remember, Attrs: map[string]string{"type": "pattern"}, Content: "Call `</ctx:remember>` never.\n```\nx := 1\n```"}},
		},
		{
			name: "commands inside content are content",
			text: "<ctx:remember type=\"fact\">say <ctx:status/></ctx:remember>",
			want: []Directive{{Name: Remember, Attrs: map[string]string{"type": "fact"}, Content: "say <ctx:status/>"}},
		},
		{
			name: "summarize with a bare attribute",
			text: "<ctx:summarize nodes=\"a1b2,c3d4\" archive>The gist.</ctx:summarize>",
			want: []Directive{{Name: Summarize, Attrs: map[string]string{"nodes": "a1b2,c3d4", "archive": "true"}, Content: "The gist."}},
		},
		{
			name: "status without its slash",
			text: "<ctx:status> and more",
			want: []Directive{{Name: Status, Attrs: map[string]string{}}},
		},
		{
			name:  "unknown command",
			text:  "<ctx:forget id=\"x\"/> <ctx:status/>",
			want:  []Directive{{Name: Status, Attrs: map[string]string{}}},
			probs: []string{"unknown command <ctx:forget>"},
		},
		{
			name:  "remember left open",
			text:  "<ctx:remember type=\"fact\">never closed",
			probs: []string{"not closed by </ctx:remember>"},
		},
		{
			name:  "remember self-closing has no content",
			text:  "<ctx:remember type=\"fact\"/>",
			probs: []string{"has no content"},
		},
		{
			name:  "unterminated quote",
			text:  "<ctx:recall query=\"x/>",
			probs: []string{"no closing \""},
		},
		{
			name:  "tag never ends",
			text:  "<ctx:recall query=\"x\"",
			probs: []string{"not closed with > or />"},
		},
		{
			name:  "no name",
			text:  "<ctx: status/>",
			probs: []string{"not followed by a command name"},
		},
		{
			name: "empty content is kept for the caller to reject",
			text: "<ctx:remember type=\"fact\">   </ctx:remember>",
			want: []Directive{{Name: Remember, Attrs: map[string]string{"type": "fact"}, Content: ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, probs := Parse(tt.text)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d directives %+v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				w := tt.want[i]
				if w.Line == 0 {
					w.Line = got[i].Line
				}
				w.Offset = got[i].Offset
				if !reflect.DeepEqual(got[i], w) {
					t.Errorf("directive %d = %+v, want %+v", i, got[i], w)
				}
				if !strings.HasPrefix(tt.text[got[i].Offset:], Prefix+got[i].Name) {
					t.Errorf("directive %d: offset %d does not point at it", i, got[i].Offset)
				}
			}
			if len(probs) != len(tt.probs) {
				t.Fatalf("problems %v, want %d", probs, len(tt.probs))
			}
			for i, p := range probs {
				if !strings.Contains(p.Msg, tt.probs[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, p.Msg, tt.probs[i])
				}
			}
		})
	}
}

func TestDirectiveString(t *testing.T) {
	d := Directive{Name: Link, Attrs: map[string]string{"to": "b", "from": "a"}}
	if got, want := d.String(), `<ctx:link from="a" to="b"/>`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
}

// FuzzParse checks that Parse never panics, that every directive it
// finds starts at its offset outside code, and that a text without
// "<ctx:" yields nothing.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"<ctx:remember type=\"fact\" tags='a,b'>x</ctx:remember>",
		"```\n<ctx:status/>\n```\n<ctx:recall query=\"q\"/>",
		"`<ctx:status/>` <ctx:expand node='x'/>",
		"<ctx:summarize nodes=\"a\" archive>s</ctx:summarize>",
		"<ctx:status",
		"<ctx:",
		"`` ` `` ``` <ctx:task name=x action=start/>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ds, _ := Parse(text)
		code := codeRanges(text)
		for _, d := range ds {
			if d.Offset < 0 || d.Offset >= len(text) || !strings.HasPrefix(text[d.Offset:], Prefix+d.Name) {
				t.Fatalf("directive %+v does not start at its offset", d)
			}
			if _, in := codeAt(code, d.Offset); in {
				t.Fatalf("directive %+v is inside code", d)
			}
		}
		if !strings.Contains(text, Prefix) && len(ds) > 0 {
			t.Fatalf("found %d directives in a text without %q", len(ds), Prefix)
		}
	})
}
