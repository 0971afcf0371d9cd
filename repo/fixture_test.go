package repo

import (
	"context"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/object"
)

// TestFrozenStores reads the store frozen for each format version in
// testdata/stores; every version of ctx must keep reading them.
func TestFrozenStores(t *testing.T) {
	r, err := Open("../testdata/stores/v1/.ctx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Verify(context.Background(), VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The store predates the narrative's merge attribute: verify says so,
	// and nothing else.
	for _, w := range rep.Warnings {
		if !strings.HasPrefix(w, ".gitattributes lacks") {
			t.Errorf("verify warning: %s", w)
		}
	}
	if !rep.OK() {
		t.Fatalf("verify: problems %v", rep.Problems)
	}
	if rep.Objects != 11 || rep.Blobs != 5 || rep.Typed["commit"] != 2 || rep.Typed["tree"] != 4 {
		t.Fatalf("verify counts: %+v", rep)
	}
	const head = "1b2c2b0704fe56c82f38f0b107bb9658276c630783a5f2a411678a439efa3ffa"
	id, err := r.Resolve("main")
	if err != nil || id.String() != head {
		t.Fatalf("main = %v, %v; want %s", id, err, head)
	}
	entries, err := r.Log(context.Background(), []object.ID{id}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range entries {
		msgs = append(msgs, e.Commit.Message)
	}
	if got := strings.Join(msgs, "|"); got != "Snapshot the demo project|Initialize ctx store" {
		t.Fatalf("log: %s", got)
	}
	blob, err := r.Resolve("main:retry/backoff.go")
	if err != nil {
		t.Fatal(err)
	}
	_, content, err := r.Objects.Get(blob)
	if err != nil || !strings.Contains(string(content), "func (b Backoff) Next") {
		t.Fatalf("main:retry/backoff.go: %v %q", err, content)
	}
}
