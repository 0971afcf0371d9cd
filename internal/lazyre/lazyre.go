// Package lazyre holds regular expressions compiled on first use, so that
// a package with many patterns costs nothing at process start: every ctx
// command pays for the initialisation of every package it links, and the
// hooks and searches that agents run many times must start in a few
// milliseconds.
package lazyre

import (
	"regexp"
	"sync"
)

// RE is a regular expression compiled when first used. The methods are
// those of regexp.Regexp that callers use; Regexp gives the rest.
type RE struct {
	once sync.Once
	expr string
	re   *regexp.Regexp
}

// New returns expr, to be compiled on first use. An invalid expr panics
// then, as regexp.MustCompile would at start: patterns are constants,
// and their tests use them.
func New(expr string) *RE { return &RE{expr: expr} }

// Regexp returns the compiled expression.
func (r *RE) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// MatchString is regexp.Regexp.MatchString.
func (r *RE) MatchString(s string) bool { return r.Regexp().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *RE) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *RE) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}

// Split is regexp.Regexp.Split.
func (r *RE) Split(s string, n int) []string { return r.Regexp().Split(s, n) }

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *RE) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}
