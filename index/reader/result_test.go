package reader

import "testing"

func TestAppendText(t *testing.T) {
	hits := []Hit{
		{Doc: Doc{Kind: DocItem, Title: "function net.dnsReadConfig", Path: "net/a.go", StartLine: 19, EndLine: 145}, Score: 23.4349},
		{Doc: Doc{Kind: "open-question", Title: "Why ünïcode?", Node: Node{Key: "q-1"}}, Score: -0.005},
		{Doc: Doc{Kind: DocFile, Title: "net/a.go", Path: "net/a.go"}, Score: 2.5},
	}
	hits[0].Snippet.Text = "  line one  \n\tline two\r\n\n"
	hits[1].Snippet.Text = "Why ünïcode?" // the title: not repeated
	want := "item        function net.dnsReadConfig  net/a.go:19-145  (23.43)\n" +
		"    line one\n" +
		"    \tline two\n" +
		"open-question Why ünïcode?  [q-1]  (-0.01)\n" +
		"file        net/a.go  (2.50)\n" +
		"(3 of 40 matching; -n for more)\n"
	if got := string(AppendText(nil, "q", 40, hits)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got, want := string(AppendText(nil, "\"a\" \x01", 0, nil)), "no hits for \"\\\"a\\\" \\x01\"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
