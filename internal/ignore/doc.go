// Package ignore decides which files of a project git ignores, so that
// ctx skips them too. It implements gitignore(5) as git 2.39's dir.c and
// wildmatch.c do, and is tested against git itself.
//
// Its nouns:
//
//   - A pattern is one line of an ignore file: a glob, possibly negated
//     ("!"), possibly for directories only (trailing "/"). A pattern with
//     no slash (a trailing one aside) matches a name at any depth below
//     its file's directory; any other is matched against the path
//     relative to that directory (its base), as if it started with "/".
//   - An ignore file is a list of patterns: the .gitignore of a
//     directory (its base is that directory), or .git/info/exclude (base
//     the root). Within a list, the last matching pattern decides.
//   - The extra patterns are the caller's (config.toml ignore_globs),
//     anchored at the root and ahead of every file, like git's
//     --exclude.
//   - A Matcher is the set of lists for one project root. It decides a
//     path by the first list with a matching pattern, in the order extra,
//     .gitignore files from the path's directory up to the root,
//     info/exclude; a path is ignored when that pattern is not a
//     negation, or when a parent directory is ignored (git never looks
//     inside an ignored directory, so nothing there can be re-included).
//
// The walk, Matcher.Walk, lists what is not ignored, reading each
// .gitignore as it enters a directory.
//
// Differences from git, on purpose: the user's core.excludesFile is not
// read (answers must not depend on the machine); directories named .git
// or .ctx and files named .git are always ignored; names are compared
// exactly (git's core.ignoreCase is not honoured); a nested repository is
// walked like any directory, where git would list it as one entry.
package ignore
