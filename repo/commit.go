package repo

import (
	"fmt"

	"github.com/ctx-dev/ctx/object"
)

// CommitTree writes a commit of tree with the given parents, message and
// author, timed by the repo's clock, and returns its ID. The tree must be a
// tree and every parent a commit. No ref moves.
func (r *Repo) CommitTree(tree object.ID, parents []object.ID, message, author string) (object.ID, error) {
	if err := object.GetTyped(r.Objects, tree, new(object.Tree)); err != nil {
		return object.Zero, fmt.Errorf("repo: commit-tree: tree %s: %w", tree.Short(), err)
	}
	for _, p := range parents {
		if _, err := r.ReadCommit(p); err != nil {
			return object.Zero, fmt.Errorf("repo: commit-tree: parent %s: %w", p.Short(), err)
		}
	}
	c := &object.Commit{
		Parents:       parents,
		TimestampUnix: r.Clock.Now().Unix(),
		Author:        author,
		Message:       message,
		RootTree:      tree,
	}
	id, err := object.PutTyped(r.Objects, c)
	if err != nil {
		return object.Zero, fmt.Errorf("repo: commit-tree: %w", err)
	}
	return id, nil
}
