// Package refs stores refs: tiny files that name objects.
//
// # Nouns
//
//   - Name: a ref's name. "HEAD" and "STAGE" are special; every other name
//     lives under .ctx/refs/ ("main", "feature/x"). "refs/main" and "main"
//     are the same name.
//   - Head: one value of a shared ref. A shared ref is a directory,
//     .ctx/refs/<name>/, holding one file per head, named by the head's
//     64-hex object ID and containing that ID and a newline. Usually a ref
//     has one head. Moving a ref writes the new head's file and then removes
//     the old one; two clones that moved the same ref independently and are
//     merged with git end up with both heads, never with a conflict, because
//     no file is ever modified in place: git sees only adds and deletes of
//     distinct names. The repo package reconciles several heads into one.
//   - HEAD: the file .ctx/HEAD, "ref: refs/main\n", naming the current
//     ref. It never changes in normal use, so it never conflicts either.
//   - STAGE: the file .ctx/STAGE holding one ID and a newline: the staging
//     head of the current session. It is local state and not tracked.
//
// # Layout
//
//	.ctx/HEAD                     ref: refs/main⏎
//	.ctx/STAGE                    <64 hex>⏎            (local, gitignored)
//	.ctx/refs/main/<64 hex>       <64 hex>⏎            (one file per head)
//	.ctx/refs/feature/x/<64 hex>  <64 hex>⏎
//
// Every file is written with the atomic protocol of internal/atomicfile, so
// a reader sees a whole head file or none. Writers must hold the store's
// lock (see the repo package); readers take no lock.
package refs
