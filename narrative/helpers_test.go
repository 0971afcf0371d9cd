package narrative

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/clock"
)

// t0 is the fixed time most tests run at.
var t0 = time.Date(2026, 11, 22, 11, 30, 0, 0, time.UTC)

// seededRand is a deterministic source of IDs.
func seededRand(seed byte) io.Reader {
	var s [32]byte
	s[0] = seed
	return rand.NewChaCha8(s)
}

// idBytes returns the bytes NewID turns into the given IDs, in order, so
// that a test can choose the IDs a Space hands out.
func idBytes(tb testing.TB, ids ...string) []byte {
	tb.Helper()
	var b []byte
	for _, id := range ids {
		if len(id) != IDLen {
			tb.Fatalf("idBytes: %q is not %d characters", id, IDLen)
		}
		for i := 0; i < len(id); i++ {
			k := strings.IndexByte(idAlphabet, id[i])
			if k < 0 {
				tb.Fatalf("idBytes: %q has %q, not in the alphabet", id, id[i])
			}
			b = append(b, byte(k))
		}
	}
	return b
}

// newSpace returns a Space in a temporary directory at time t0, with
// deterministic IDs: first ids (in order), then a seeded stream.
func newSpace(tb testing.TB, ids ...string) *Space {
	tb.Helper()
	return &Space{
		Root:  tb.TempDir(),
		Clock: clock.Fixed(t0),
		Rand:  io.MultiReader(bytes.NewReader(idBytes(tb, ids...)), seededRand(1)),
	}
}

// at sets the space's clock.
func (s *Space) at(t time.Time) *Space {
	s.Clock = clock.Fixed(t)
	return s
}

func mustAdd(tb testing.TB, s *Space, in NewNode) *Node {
	tb.Helper()
	n, err := s.Add(in)
	if err != nil {
		tb.Fatalf("Add(%+v): %v", in, err)
	}
	return n
}

func mustChange(tb testing.TB, s *Space, n *Node, op Op, arg string) Event {
	tb.Helper()
	e, err := s.Change(n, op, arg)
	if err != nil {
		tb.Fatalf("Change(%s, %s, %q): %v", n.ID, op, arg, err)
	}
	return e
}

// mustLoad loads the space and fails on any problem.
func mustLoad(tb testing.TB, s *Space) *Catalog {
	tb.Helper()
	c, err := s.Load()
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	if len(c.Problems) > 0 {
		tb.Fatalf("Load: unexpected problems: %v", c.Problems)
	}
	return c
}

// reload loads the space and returns the node with id.
func reload(tb testing.TB, s *Space, id ID) *Node {
	tb.Helper()
	n, ok := mustLoad(tb, s).Nodes[id]
	if !ok {
		tb.Fatalf("Load: node %s is missing", id)
	}
	return n
}

func readFile(tb testing.TB, s *Space, rel string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(s.Root, filepath.FromSlash(rel)))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func writeFile(tb testing.TB, s *Space, rel, data string) {
	tb.Helper()
	p := filepath.Join(s.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// listFiles returns every file under the space's root, '/'-separated.
func listFiles(tb testing.TB, s *Space) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir(s.Root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(s.Root, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// state is the part of a node that its file determines, for comparing a
// node as Add or Change left it with the node Load reads back.
type state struct {
	ID           ID
	Type         Type
	Title        string
	Content      string
	Tags         []string
	Meta         map[string]string
	Created      time.Time
	Updated      time.Time
	SupersededBy ID
	Deleted      bool
	DerivedFrom  []ID
	Path         string
}

func stateOf(n *Node) state {
	st := state{
		ID: n.ID, Type: n.Type, Title: n.Title, Content: n.Content,
		Tags: n.Tags, Meta: n.Meta, Created: n.Created, Updated: n.Updated,
		SupersededBy: n.SupersededBy, Deleted: n.Deleted, DerivedFrom: n.DerivedFrom, Path: n.Path,
	}
	if len(st.Tags) == 0 {
		st.Tags = nil
	}
	if len(st.Meta) == 0 {
		st.Meta = nil
	}
	if len(st.DerivedFrom) == 0 {
		st.DerivedFrom = nil
	}
	return st
}

func sameState(tb testing.TB, what string, got, want *Node) {
	tb.Helper()
	if g, w := stateOf(got), stateOf(want); !reflect.DeepEqual(g, w) {
		tb.Errorf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

// problemAt reports whether probs has a problem at path:line whose
// message contains substr.
func problemAt(probs []Problem, path string, line int, substr string) bool {
	for _, p := range probs {
		if p.Path == path && p.Line == line && strings.Contains(p.Msg, substr) {
			return true
		}
	}
	return false
}
