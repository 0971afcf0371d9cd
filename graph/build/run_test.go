package build

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestToolEnviron(t *testing.T) {
	env := goTool.environ([]string{"HOME=/h", "GOFLAGS=-mod=vendor", "GOPROXY=https://proxy", "GOWORK=/w/go.work", "PWD=/elsewhere", "GOTOOLCHAIN=auto"}, "/p")
	want := []string{"HOME=/h", "GOWORK=/w/go.work", "GOPROXY=off", "GOTOOLCHAIN=local", "PWD=/p"}
	if !slices.Equal(env, want) {
		t.Errorf("environ = %q, want %q", env, want)
	}
}

func TestQuote(t *testing.T) {
	if got := quote(" \n"); got != "" {
		t.Errorf("quote(blank) = %q", got)
	}
	if got := quote("error: x\n"); got != "\n\terror: x" {
		t.Errorf("quote(one line) = %q", got)
	}
	var lines []string
	for i := range 15 {
		lines = append(lines, fmt.Sprint("line ", i))
	}
	got := quote(strings.Join(lines, "\n"))
	if !strings.Contains(got, "line 9") || strings.Contains(got, "line 10") || !strings.HasSuffix(got, "(5 more lines)") {
		t.Errorf("quote(15 lines) = %q", got)
	}
}

func TestLimitedBuffer(t *testing.T) {
	b := &limitedBuffer{max: 4}
	for _, s := range []string{"ab", "cdef", "gh"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if b.String() != "abcd" {
		t.Errorf("kept %q, want abcd", b.String())
	}
}
