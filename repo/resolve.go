package repo

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// DivergedError reports a ref with several effective heads, as a git merge
// of two clones leaves it until the next write reconciles them.
type DivergedError struct {
	Name  refs.Name
	Heads []object.ID
}

// Error describes the failure.
func (e *DivergedError) Error() string {
	hs := make([]string, len(e.Heads))
	for i, h := range e.Heads {
		hs[i] = h.Short()
	}
	return fmt.Sprintf("%s has %d heads (%s)", e.Name, len(e.Heads), strings.Join(hs, ", "))
}

// Unwrap returns ErrDiverged.
func (e *DivergedError) Unwrap() error { return ErrDiverged }

// Resolve returns the object a revision names: a ref (HEAD, STAGE, main,
// refs/x), or a full or abbreviated object ID, followed by any number of
// "^", "^N" (N-th parent; ^0 is the commit itself) and "~N" (N-th
// first-parent ancestor). A ref with several effective heads fails with a
// *DivergedError.
//
// "REV:PATH" names the blob or tree at PATH in the tree of REV (a tree, or
// a commit's root tree).
func (r *Repo) Resolve(rev string) (object.ID, error) {
	if base, p, ok := strings.Cut(rev, ":"); ok {
		return r.resolvePath(rev, base, p)
	}
	i := strings.IndexAny(rev, "^~")
	if i < 0 {
		i = len(rev)
	}
	id, err := r.resolveBase(rev[:i])
	if err != nil {
		return object.Zero, err
	}
	for s := rev[i:]; s != ""; {
		op := s[0]
		j := 1
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		n := 1
		if j > 1 {
			if n, err = strconv.Atoi(s[1:j]); err != nil || n > 1<<20 {
				return object.Zero, fmt.Errorf("%w: %q: bad number %q", ErrInvalidRev, rev, s[1:j])
			}
		}
		if j < len(s) && s[j] != '^' && s[j] != '~' {
			return object.Zero, fmt.Errorf("%w: %q: unexpected %q after %c", ErrInvalidRev, rev, s[j:], op)
		}
		s = s[j:]
		if id, err = r.walkParents(id, op, n, rev); err != nil {
			return object.Zero, err
		}
	}
	return id, nil
}

func (r *Repo) walkParents(id object.ID, op byte, n int, rev string) (object.ID, error) {
	if op == '^' {
		if n == 0 {
			return id, nil
		}
		e, err := r.ReadEntry(id)
		if err != nil {
			return object.Zero, err
		}
		ps := e.Parents()
		if n > len(ps) {
			return object.Zero, fmt.Errorf("%w: %q: %s has %d parent(s), no parent %d", ErrInvalidRev, rev, id.Short(), len(ps), n)
		}
		return ps[n-1], nil
	}
	for k := 0; k < n; k++ {
		e, err := r.ReadEntry(id)
		if err != nil {
			return object.Zero, err
		}
		ps := e.Parents()
		if len(ps) == 0 {
			return object.Zero, fmt.Errorf("%w: %q: %s is a root commit, %d generation(s) up", ErrInvalidRev, rev, id.Short(), k)
		}
		id = ps[0]
	}
	return id, nil
}

func (r *Repo) resolveBase(s string) (object.ID, error) {
	if s == "" {
		return object.Zero, fmt.Errorf("%w: empty revision", ErrInvalidRev)
	}
	name, nameErr := refs.ParseName(s)
	if nameErr == nil {
		heads, err := r.Heads(name)
		switch {
		case err == nil && len(heads) == 1:
			return heads[0], nil
		case err == nil:
			if name == refs.HEAD {
				name, _ = r.Refs.Target()
			}
			return object.Zero, &DivergedError{Name: name, Heads: heads}
		case !errors.Is(err, refs.ErrNotFound):
			return object.Zero, err
		}
	}
	lower := strings.ToLower(s)
	if object.IsHex(lower) && len(lower) >= object.MinPrefix && len(lower) <= 2*object.IDSize {
		return r.Objects.Resolve(lower)
	}
	if nameErr == nil {
		return object.Zero, fmt.Errorf("%w: %s", refs.ErrNotFound, name)
	}
	return object.Zero, fmt.Errorf("%w: %q is neither a ref name nor an object id (prefix of at least %d hex digits)", ErrInvalidRev, s, object.MinPrefix)
}

// resolvePath resolves "REV:PATH".
func (r *Repo) resolvePath(rev, base, p string) (object.ID, error) {
	id, err := r.Resolve(base)
	if err != nil {
		return object.Zero, err
	}
	tree, err := r.TreeOf(id)
	if err != nil {
		return object.Zero, err
	}
	p = strings.Trim(p, "/")
	if p == "" {
		return tree, nil
	}
	if err := object.CheckRelPath(p); err != nil {
		return object.Zero, fmt.Errorf("%w: %q: %w", ErrInvalidRev, rev, err)
	}
	id = tree
	for _, el := range strings.Split(p, "/") {
		t := new(object.Tree)
		if err := object.GetTyped(r.Objects, id, t); err != nil {
			return object.Zero, fmt.Errorf("%q: %w", rev, err)
		}
		e, ok := t.Lookup(el)
		if !ok {
			return object.Zero, fmt.Errorf("%w: %q: no %q in the tree", object.ErrNotFound, rev, el)
		}
		id = e.ID
	}
	return id, nil
}

// TreeOf returns id if it is a tree, or its root tree if it is a commit.
func (r *Repo) TreeOf(id object.ID) (object.ID, error) {
	kind, payload, err := r.Objects.Get(id)
	if err != nil {
		return object.Zero, err
	}
	if kind == object.KindTyped {
		switch name, _ := object.TypeOf(payload); name {
		case "tree":
			return id, nil
		case "commit":
			c, err := r.ReadCommit(id)
			if err != nil {
				return object.Zero, err
			}
			return c.RootTree, nil
		}
	}
	return object.Zero, fmt.Errorf("%w: %s is not a tree or a commit", object.ErrDecode, id.Short())
}
