package gc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

// TestRandomHistories builds random histories — chains of commits, some
// under a ref, some abandoned, and loose blobs no commit names — with
// random ages, then collects: no reachable object is removed, every
// unreachable one older than the margin is, younger ones stay, and the
// store verifies. Then it packs, and everything reachable still reads.
func TestRandomHistories(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 3))
			r := repo.NewTestRepo(t)
			ctx := context.Background()
			var tips []object.ID
			for c := range 2 + rng.IntN(4) {
				var parent []object.ID
				if len(tips) > 0 && rng.IntN(2) == 0 {
					parent = []object.ID{tips[rng.IntN(len(tips))]}
				}
				files := map[string]string{}
				for f := range 1 + rng.IntN(4) {
					files[fmt.Sprintf("d%d/f%d.txt", rng.IntN(3), f)] = fmt.Sprintf("content %d %d", rng.IntN(6), c)
				}
				tips = append(tips, repo.CommitFiles(t, r, now.Add(time.Duration(c)*time.Minute), files, fmt.Sprintf("c%d", c), parent...))
			}
			// Some tips become heads of main; the rest are abandoned.
			for i, tip := range tips {
				if i == 0 || rng.IntN(2) == 0 {
					repo.AddHead(t, r, refs.Main, tip)
				}
			}
			// Half the histories have a staging session with a few steps:
			// gc must keep all it needs.
			session := rng.IntN(2) == 0
			if session {
				w, err := r.Lock(ctx, repo.LockOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.StartSession(ctx, repo.StartOptions{Task: "t", ID: "s", Detach: true}); err != nil {
					t.Fatal(err)
				}
				r.Session = "s"
				for i := range 1 + rng.IntN(3) {
					if _, err := w.Commit(ctx, repo.CommitOptions{Message: fmt.Sprintf("step %d", i), AllowEmpty: true}); err != nil {
						t.Fatal(err)
					}
				}
				r.Session = ""
				w.Unlock()
			}
			for i := range rng.IntN(8) {
				if _, err := r.Objects.Put(object.KindBlob, []byte(fmt.Sprintf("stray %d %d", seed, i))); err != nil {
					t.Fatal(err)
				}
			}
			// Random ages.
			all, _, err := r.Objects.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			age := map[object.ID]time.Time{}
			for _, id := range all {
				at := now.AddDate(0, 0, -1-rng.IntN(20))
				age[id] = at
				if err := os.Chtimes(filepath.Join(r.Objects.Dir(), id.String()[:2], id.String()), at, at); err != nil {
					t.Fatal(err)
				}
			}
			roots, err := Roots(r)
			if err != nil {
				t.Fatal(err)
			}
			reachable, err := Mark(ctx, r, roots)
			if err != nil {
				t.Fatal(err)
			}
			// What young unreachable objects reach stays too.
			var young []object.ID
			for _, id := range all {
				if !reachable[id] && !age[id].Before(now.AddDate(0, 0, -7)) {
					young = append(young, id)
				}
			}
			keptToo, err := Mark(ctx, r, young)
			if err != nil {
				t.Fatal(err)
			}
			w, err := r.Lock(ctx, repo.LockOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Unlock()
			rep, err := Run(ctx, w, Options{KeepDays: 7, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			deleted := 0
			for _, id := range all {
				ok, err := r.Objects.Has(id)
				if err != nil {
					t.Fatal(err)
				}
				old := age[id].Before(now.AddDate(0, 0, -7))
				switch {
				case reachable[id] && !ok:
					t.Fatalf("reachable object %s removed", id.Short())
				case !reachable[id] && old && ok && !keptToo[id]:
					// Only a narrative blob of an abandoned commit may stay;
					// these histories have none.
					t.Fatalf("unreachable object %s, %v old, kept", id.Short(), now.Sub(age[id]))
				case !reachable[id] && (!old || keptToo[id]) && !ok:
					t.Fatalf("unreachable object %s younger than the margin removed", id.Short())
				}
				if !ok {
					deleted++
				}
			}
			if session {
				r.Session = "s"
				s, err := r.ActiveSession()
				if err == nil {
					_, err = r.SessionSteps(s)
				}
				r.Session = ""
				if err != nil {
					t.Fatalf("the session after gc: %v", err)
				}
			}
			if rep.Deleted != deleted || rep.Reachable != len(reachable) || rep.Scanned != len(all) {
				t.Fatalf("report %+v; %d deleted, %d reachable, %d scanned", rep, deleted, len(reachable), len(all))
			}
			vr, err := r.Verify(ctx, repo.VerifyOptions{})
			if err != nil || !vr.OK() {
				t.Fatalf("verify after gc: %v %+v", err, vr.Problems)
			}
			// Pack what is reachable: it all reads, nothing reachable is loose.
			rep, err = Run(ctx, w, Options{KeepDays: 7, Now: now, Pack: true})
			if err != nil {
				t.Fatal(err)
			}
			for id := range reachable {
				if _, err := os.Lstat(filepath.Join(r.Objects.Dir(), id.String()[:2], id.String())); err == nil {
					t.Fatalf("reachable %s still loose after --pack", id.Short())
				}
				if _, _, err := r.Objects.Get(id); err != nil {
					t.Fatalf("packed %s: %v", id.Short(), err)
				}
			}
			if vr, err := r.Verify(ctx, repo.VerifyOptions{}); err != nil || !vr.OK() {
				t.Fatalf("verify after pack: %v %+v", err, vr.Problems)
			}
		})
	}
}

// TestDryRun changes nothing.
func TestDryRun(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	r := repo.NewTestRepo(t)
	ctx := context.Background()
	id, err := r.Objects.Put(object.KindBlob, []byte("stray"))
	if err != nil {
		t.Fatal(err)
	}
	old := now.AddDate(0, -1, 0)
	if err := os.Chtimes(filepath.Join(r.Objects.Dir(), id.String()[:2], id.String()), old, old); err != nil {
		t.Fatal(err)
	}
	w, err := r.Lock(ctx, repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	rep, err := Run(ctx, w, Options{DryRun: true, Pack: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deleted != 1 || rep.Packed == nil || rep.Packed.Objects == 0 {
		t.Fatalf("dry run report %+v", rep)
	}
	if ok, _ := r.Objects.Has(id); !ok {
		t.Fatal("a dry run removed an object")
	}
	if packs, _ := r.Objects.Packs(); len(packs) != 0 {
		t.Fatal("a dry run wrote a pack")
	}
}

// TestDamagedRefs: a ref that does not read stops gc before it removes
// anything (List leaves such a ref out of the roots).
func TestDamagedRefs(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	r := repo.NewTestRepo(t)
	ctx := context.Background()
	id, err := r.Objects.Put(object.KindBlob, []byte("named only by STAGE"))
	if err != nil {
		t.Fatal(err)
	}
	old := now.AddDate(0, -1, 0)
	if err := os.Chtimes(filepath.Join(r.Objects.Dir(), id.String()[:2], id.String()), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Root, "STAGE"), []byte(id.String()+"\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := r.Lock(ctx, repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	if _, err := Run(ctx, w, Options{Now: now}); err == nil {
		t.Fatal("gc ran with a damaged STAGE")
	}
	if ok, _ := r.Objects.Has(id); !ok {
		t.Fatal("gc removed the object a damaged STAGE names")
	}
}

// TestPackedKeepsItsLinks: an unreachable packed object is kept, and so
// is the loose object it links to (a blob too large to pack), however
// old.
func TestPackedKeepsItsLinks(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	r := repo.NewTestRepo(t)
	ctx := context.Background()
	blob, err := r.Objects.Put(object.KindBlob, []byte("a big file, say"))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := object.WriteTree(r.Objects, map[string]object.ID{"big.bin": blob})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Objects.WritePack([]object.ID{tree}); err != nil { // the blob stays loose
		t.Fatal(err)
	}
	old := now.AddDate(0, -1, 0)
	if err := os.Chtimes(filepath.Join(r.Objects.Dir(), blob.String()[:2], blob.String()), old, old); err != nil {
		t.Fatal(err)
	}
	w, err := r.Lock(ctx, repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	if _, err := Run(ctx, w, Options{Now: now}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := r.Objects.Has(blob); !ok {
		t.Fatal("gc removed a blob a packed tree names")
	}
	if vr, err := r.Verify(ctx, repo.VerifyOptions{}); err != nil || !vr.OK() {
		t.Fatalf("verify: %v %+v", err, vr.Problems)
	}
}
