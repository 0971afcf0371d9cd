// Package repo opens, creates and checks a ctx store: the .ctx directory
// with its object store, refs, configuration and writer lock.
//
// # Nouns
//
//   - Repo: an open store. Reading through a Repo takes no lock.
//   - Writer: a Repo with its writer lock held (Repo.Lock); every ref
//     update goes through a Writer, so compare-and-swap updates of refs are
//     atomic with respect to other writers.
//   - Config: .ctx/config.toml.
//   - Rev: a string naming an object: a ref ("main", "refs/main", "HEAD",
//     "STAGE"), a full or abbreviated object ID, either followed by
//     "^", "^N" (N-th parent) or "~N" (N-th first-parent ancestor).
//   - Effective heads: the heads of a ref that are not ancestors of another
//     of its heads. After a git merge of two clones a ref has several;
//     Reconcile replaces them by one merge commit.
//   - Report: what Verify found.
//
// repo sits above object, refs and graph and below index, pack, staging and
// gc; see docs/ARCHITECTURE.md.
package repo
