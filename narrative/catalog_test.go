package narrative

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time // zero means an error
	}{
		{"90m", now.Add(-90 * time.Minute)},
		{"1h", now.Add(-time.Hour)},
		{"1h30m", now.Add(-90 * time.Minute)},
		{"45s", now.Add(-45 * time.Second)},
		{"0h", now},
		{"7d", now.AddDate(0, 0, -7)},
		{"1d", now.AddDate(0, 0, -1)},
		{"0d", now},
		{"2w", now.AddDate(0, 0, -14)},
		{" 2w ", now.AddDate(0, 0, -14)},
		{"100000w", now.AddDate(0, 0, -700000)}, // beyond a time.Duration: no overflow
		{"2026-01-20", time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC)},
		{"2026-01-20T10:00:00Z", time.Date(2026, 1, 20, 10, 0, 0, 0, time.UTC)},
		{"2026-01-20T10:00:00+02:00", time.Date(2026, 1, 20, 8, 0, 0, 0, time.UTC)},

		{"", time.Time{}},
		{"garbage", time.Time{}},
		{"d", time.Time{}},
		{"7", time.Time{}},
		{"-1h", time.Time{}},
		{"-7d", time.Time{}},
		{"+7d", time.Time{}},
		{"7D", time.Time{}},
		{"1.5d", time.Time{}},
		{"7 d", time.Time{}},
		{"2026-13-01", time.Time{}},
		{"20/01/2026", time.Time{}},
		{"2026-01-20 10:00", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSince(tt.in, now)
			if tt.want.IsZero() {
				if err == nil {
					t.Fatalf("ParseSince(%q) = %v, want an error", tt.in, got)
				}
				if !strings.Contains(err.Error(), "90m") || !strings.Contains(err.Error(), "2026-01-20") {
					t.Errorf("error %q does not give examples", err)
				}
				return
			}
			if err != nil || !got.Equal(tt.want) {
				t.Errorf("ParseSince(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// catalogFixture adds nodes with chosen IDs at increasing times:
//
//	abcd000001 fact      t0      tags project:a tier:reference
//	abcd000002 decision  t0+1h   tags project:a
//	abce000003 task      t0+2h   tags project:b; superseded at t0+5h
//	zzzz000004 fact      t0+3h   tags project:a tier:pinned; deleted at t0+6h
//	m000000005 summary   t0+4h   derived from 1 and 3
//	m000000006 summary   t0+4h   derived from 1 (same time as 5: ties by ID)
func catalogFixture(t *testing.T) (*Space, map[string]*Node) {
	t.Helper()
	s := newSpace(t, "abcd000001", "abcd000002", "abce000003", "zzzz000004", "m000000005", "m000000006")
	nodes := map[string]*Node{}
	nodes["1"] = mustAdd(t, s.at(t0), NewNode{Type: Fact, Content: "One", Tags: []string{"project:a", "tier:reference"}})
	nodes["2"] = mustAdd(t, s.at(t0.Add(1*time.Hour)), NewNode{Type: Decision, Content: "Two", Tags: []string{"project:a"}})
	nodes["3"] = mustAdd(t, s.at(t0.Add(2*time.Hour)), NewNode{Type: Task, Content: "Three", Tags: []string{"project:b"}})
	nodes["4"] = mustAdd(t, s.at(t0.Add(3*time.Hour)), NewNode{Type: Fact, Content: "Four", Tags: []string{"project:a", "tier:pinned"}})
	nodes["5"] = mustAdd(t, s.at(t0.Add(4*time.Hour)), NewNode{Type: Summary, Content: "Five",
		DerivedFrom: []ID{"abcd000001", "abce000003"}})
	nodes["6"] = mustAdd(t, s, NewNode{Type: Summary, Content: "Six", DerivedFrom: []ID{"abcd000001"}})
	mustChange(t, s.at(t0.Add(5*time.Hour)), nodes["3"], OpSupersede, "abcd000002")
	mustChange(t, s.at(t0.Add(6*time.Hour)), nodes["4"], OpDelete, "")
	return s, nodes
}

func ids(nodes []*Node) []ID {
	out := make([]ID, len(nodes))
	for i, n := range nodes {
		out[i] = n.ID
	}
	return out
}

func TestResolve(t *testing.T) {
	s, _ := catalogFixture(t)
	c := mustLoad(t, s)
	tests := []struct {
		prefix string
		want   ID
		err    error
	}{
		{"abcd000001", "abcd000001", nil},
		{"ABCD000001", "abcd000001", nil},
		{"abce", "abce000003", nil},
		{"abce00", "abce000003", nil},
		{"zzzz", "zzzz000004", nil},       // deleted nodes resolve
		{"abce000003", "abce000003", nil}, // superseded nodes resolve
		{"m0000", "", ErrAmbiguous},
		{"abcd", "", ErrAmbiguous},
		{"abc", "", ErrInvalidID},
		{"a", "", ErrInvalidID},
		{"", "", ErrInvalidID},
		{"abcd00000i", "", ErrInvalidID},
		{"abcd0000011", "", ErrInvalidID},
		{"ab-d", "", ErrInvalidID},
		{"abcf", "", ErrNotFound},
		{"abcd000009", "", ErrNotFound},
		{"0000", "", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			n, err := c.Resolve(tt.prefix)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || n != nil {
					t.Fatalf("Resolve(%q) = %v, %v; want %v", tt.prefix, n, err, tt.err)
				}
				return
			}
			if err != nil || n.ID != tt.want {
				t.Fatalf("Resolve(%q) = %v, %v; want %s", tt.prefix, n, err, tt.want)
			}
		})
	}

	t.Run("AmbiguousError", func(t *testing.T) {
		_, err := c.Resolve("ABCD")
		var amb *AmbiguousError
		if !errors.As(err, &amb) {
			t.Fatalf("Resolve(ABCD) = %v, want *AmbiguousError", err)
		}
		if amb.Prefix != "abcd" || !slices.Equal(amb.Candidates, []ID{"abcd000001", "abcd000002"}) {
			t.Errorf("AmbiguousError = %+v", amb)
		}
		for _, want := range []string{"abcd", "2 nodes", "abcd000001", "abcd000002"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	})
}

func TestList(t *testing.T) {
	s, _ := catalogFixture(t)
	c := mustLoad(t, s)
	tests := []struct {
		name string
		f    Filter
		want []ID
	}{
		// Most recently updated first; 5 and 6 share a time and sort by ID.
		{"default: active only", Filter{}, []ID{"m000000005", "m000000006", "abcd000002", "abcd000001"}},
		{"with superseded", Filter{IncludeSuperseded: true},
			[]ID{"abce000003", "m000000005", "m000000006", "abcd000002", "abcd000001"}},
		{"with deleted", Filter{IncludeDeleted: true},
			[]ID{"zzzz000004", "m000000005", "m000000006", "abcd000002", "abcd000001"}},
		{"everything", Filter{IncludeDeleted: true, IncludeSuperseded: true},
			[]ID{"zzzz000004", "abce000003", "m000000005", "m000000006", "abcd000002", "abcd000001"}},
		{"one type", Filter{Types: []Type{Fact}}, []ID{"abcd000001"}},
		{"one type, deleted too", Filter{Types: []Type{Fact}, IncludeDeleted: true}, []ID{"zzzz000004", "abcd000001"}},
		{"two types", Filter{Types: []Type{Fact, Decision}}, []ID{"abcd000002", "abcd000001"}},
		{"no such type", Filter{Types: []Type{Hypothesis}}, nil},
		{"one tag", Filter{Tags: []string{"project:a"}}, []ID{"abcd000002", "abcd000001"}},
		{"all of two tags", Filter{Tags: []string{"project:a", "tier:reference"}}, []ID{"abcd000001"}},
		{"all of two tags, none has both", Filter{Tags: []string{"project:a", "project:b"}, IncludeSuperseded: true}, nil},
		{"type and tag", Filter{Types: []Type{Decision}, Tags: []string{"project:a"}}, []ID{"abcd000002"}},
		{"since", Filter{Since: t0.Add(time.Hour)}, []ID{"m000000005", "m000000006", "abcd000002"}},
		{"since is inclusive", Filter{Since: t0.Add(4 * time.Hour)}, []ID{"m000000005", "m000000006"}},
		{"since counts updates", Filter{Since: t0.Add(5 * time.Hour), IncludeSuperseded: true, IncludeDeleted: true},
			[]ID{"zzzz000004", "abce000003"}},
		{"since the future", Filter{Since: t0.Add(24 * time.Hour)}, nil},
		{"limit", Filter{Limit: 2}, []ID{"m000000005", "m000000006"}},
		{"limit above count", Filter{Limit: 10}, []ID{"m000000005", "m000000006", "abcd000002", "abcd000001"}},
		{"limit after filtering", Filter{Limit: 1, Types: []Type{Fact}, IncludeDeleted: true}, []ID{"zzzz000004"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(c.List(tt.f))
			if !slices.Equal(got, tt.want) {
				t.Errorf("List(%+v) = %v, want %v", tt.f, got, tt.want)
			}
		})
	}
}

func TestTags(t *testing.T) {
	s, _ := catalogFixture(t)
	c := mustLoad(t, s)
	tests := []struct {
		prefix string
		want   []TagCount
	}{
		// 3 (superseded) and 4 (deleted) do not count.
		{"", []TagCount{{"project:a", 2}, {"tier:reference", 1}}},
		{"project:", []TagCount{{"project:a", 2}}},
		{"tier:", []TagCount{{"tier:reference", 1}}},
		{"nothing", []TagCount{}},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			if got := c.Tags(tt.prefix); !slices.Equal(got, tt.want) {
				t.Errorf("Tags(%q) = %v, want %v", tt.prefix, got, tt.want)
			}
		})
	}
}

func TestDerivedFrom(t *testing.T) {
	s, nodes := catalogFixture(t)
	tests := []struct {
		name string
		of   ID
		want []ID
	}{
		{"two", "abcd000001", []ID{"m000000005", "m000000006"}},
		{"one", "abce000003", []ID{"m000000005"}},
		{"none", "abcd000002", nil},
		{"unknown", "0000000000", nil},
	}
	c := mustLoad(t, s)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(c.DerivedFrom(tt.of)); !slices.Equal(got, tt.want) {
				t.Errorf("DerivedFrom(%s) = %v, want %v", tt.of, got, tt.want)
			}
		})
	}

	// A deleted node is left out; a superseded one stays (ctx delete
	// --cascade follows superseded summaries too).
	mustChange(t, s, nodes["6"], OpDelete, "")
	mustChange(t, s, nodes["5"], OpSupersede, "abcd000002")
	c = mustLoad(t, s)
	if got := ids(c.DerivedFrom("abcd000001")); !slices.Equal(got, []ID{"m000000005"}) {
		t.Errorf("after deleting 6 and superseding 5: DerivedFrom = %v, want [m000000005]", got)
	}
}

func TestLoadEmpty(t *testing.T) {
	for _, tt := range []struct {
		name string
		root func(t *testing.T) string
	}{
		{"missing directory", func(t *testing.T) string { return t.TempDir() + "/narrative" }},
		{"empty directory", func(t *testing.T) string { return t.TempDir() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &Space{Root: tt.root(t)}
			c, err := s.Load()
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Nodes) != 0 || len(c.Problems) != 0 || len(c.List(Filter{})) != 0 {
				t.Errorf("Load = %+v", c)
			}
			if _, err := c.Resolve("abcd"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Resolve on an empty catalog = %v", err)
			}
		})
	}
}

func TestConflictLine(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{"# T\n\nbody\n", 0},
		{"# T\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> main\n", 2},
		{"# T\r\n<<<<<<< HEAD\r\nmine\r\n=======\r\ntheirs\r\n>>>>>>> abc\r\n", 2},
		{"# T\n<<<<<<< HEAD\nmine\n", 0},               // no separator: not a conflict
		{"# T\n=======\n>>>>>>> x\n", 0},               // no start
		{"text <<<<<<< HEAD\n=======\n>>>>>>> x\n", 0}, // not at a line start
		{"# Setext\n=======\n", 0},
	} {
		if got := ConflictLine([]byte(tc.src)); got != tc.want {
			t.Errorf("ConflictLine(%q) = %d, want %d", tc.src, got, tc.want)
		}
	}
	c := CatalogOf([]FileSource{{Path: "log/2026-11-22.md", Src: []byte("# 2026-11-22\n<<<<<<< HEAD\n- 10:00 a\n=======\n- 10:00 b\n>>>>>>> x\n")}})
	if len(c.Problems) != 1 || c.Problems[0].Line != 2 || !strings.Contains(c.Problems[0].Msg, "conflict markers") {
		t.Errorf("problems = %+v", c.Problems)
	}
}

// TestLoadInPathOrder checks that Load, which parses files on every core,
// gives the catalog CatalogOf gives when it parses the same files one by
// one in path order: the same nodes, the same problems in the same order,
// and of two files with one node id the first by path wins.
func TestLoadInPathOrder(t *testing.T) {
	s := newSpace(t)
	var first *Node
	for i := range 300 {
		n := mustAdd(t, s, NewNode{Type: Fact, Content: fmt.Sprintf("Fact %d\n\nbody of fact %d", i, i), Tags: []string{fmt.Sprint("t", i%7)}})
		if i == 0 {
			first = n
		}
	}
	src, err := os.ReadFile(filepath.Join(s.Root, filepath.FromSlash(first.Path)))
	if err != nil {
		t.Fatal(err)
	}
	// Copies of the first node's file, before and after it by path, a
	// file with conflict markers, one whose comment is broken and one
	// that is not UTF-8.
	extra := map[string][]byte{
		"facts/0-copy.md":        src,
		"facts/zz-copy.md":       src,
		"facts/conflict.md":      []byte("# C\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n"),
		"facts/broken.md":        []byte("<!-- ctx:node id: -->\n# B\n"),
		"facts/not-utf8.md":      []byte("<!-- ctx:node \xff -->\n"),
		"facts/not-markdown.txt": []byte("<!-- ctx:node -->"),
	}
	for p, b := range extra {
		if err := os.WriteFile(filepath.Join(s.Root, filepath.FromSlash(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	var srcs []FileSource
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(s.Root, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, FileSource{Path: f.Path, Src: b})
	}
	want := CatalogOf(srcs)
	for range 3 {
		got, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.IDs(), want.IDs()) || len(got.IDs()) != 300 {
			t.Fatalf("Load has %d ids, CatalogOf %d (want 300)", len(got.IDs()), len(want.IDs()))
		}
		for _, id := range want.IDs() {
			if g, w := got.Nodes[id], want.Nodes[id]; g.Path != w.Path || g.Content != w.Content || !slices.Equal(g.Tags, w.Tags) {
				t.Fatalf("node %s: Load %s %q, CatalogOf %s %q", id, g.Path, g.Content, w.Path, w.Content)
			}
		}
		if got.Nodes[first.ID].Path != "facts/0-copy.md" {
			t.Errorf("node %s is read from %s, want the first file by path", first.ID, got.Nodes[first.ID].Path)
		}
		if !slices.Equal(got.Problems, want.Problems) || len(got.Problems) < 4 {
			t.Fatalf("problems:\nLoad     %+v\nCatalogOf %+v", got.Problems, want.Problems)
		}
		if d := got.Duplicated(); !slices.Equal(d, []ID{first.ID}) {
			t.Errorf("Duplicated = %v, want [%s]", d, first.ID)
		}
	}
	// LoadFiles: a subset, out of order, with a file missing, one that
	// is not Markdown, and copies Load does not list (hidden).
	for _, p := range []string{".drafts/a.md", "facts/.swap.md"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(s.Root, filepath.FromSlash(p))), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Root, filepath.FromSlash(p)), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.Load(); err != nil || !slices.Equal(got.Problems, want.Problems) {
		t.Fatalf("Load with hidden copies: problems %+v, %v", got.Problems, err)
	}
	sub := s.LoadFiles([]string{"facts/zz-copy.md", "facts/gone.md", "facts/not-markdown.txt", ".drafts/a.md", "facts/.swap.md", first.Path})
	if ids := sub.IDs(); !slices.Equal(ids, []ID{first.ID}) || sub.Nodes[first.ID].Path != first.Path {
		t.Errorf("LoadFiles: ids %v", ids)
	}
	if d := sub.Duplicated(); !slices.Equal(d, []ID{first.ID}) || len(sub.Problems) != 1 {
		t.Errorf("LoadFiles: duplicated %v, problems %+v", d, sub.Problems)
	}
	if d := CatalogOf(srcs[:1]).Duplicated(); len(d) != 0 {
		t.Errorf("one file: Duplicated = %v", d)
	}
}
