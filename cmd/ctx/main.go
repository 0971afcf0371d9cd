// Command ctx is ctx's front end: a small program that answers
// `ctx search` alone when the index's stamp shows the index fresh, and
// runs ctx-core, the whole of ctx, for everything else.
//
// A process that links the object store, the Markdown parser and
// tree-sitter (with its C runtime) takes three to four milliseconds to
// start; this one links only the index's reader (index/reader), its
// stamp (index/stamp) and the standard library, and starts like an empty
// Go program. It reads the stamp a full ctx process wrote when it last
// found the index fresh, checks its stat data, and searches the segments
// it names. Anything else, or any doubt (a command line it does not
// know, a stamp that does not hold, an error), runs ctx-core with the
// same arguments, which answers, brings the index up to date and writes a
// new stamp. Both print the same bytes (docs/CLI.md, "ctx and ctx-core").
//
// ctx-core is looked for beside this program, then on PATH. CTX_FRONT=off
// sends every command to it; CTX_FRONT=trace says on stderr which way a
// command went.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// coreName is the full ctx program's name.
const coreName = "ctx-core"

func main() {
	args := os.Args[1:]
	mode := os.Getenv("CTX_FRONT")
	if mode != "off" {
		if code, why := front(args, os.LookupEnv, os.Stdout); why == "" {
			if mode == "trace" {
				fmt.Fprintln(os.Stderr, "ctx: answered from the index")
			}
			os.Exit(code)
		} else if mode == "trace" {
			fmt.Fprintf(os.Stderr, "ctx: running %s: %s\n", coreName, why)
		}
	}
	core, err := corePath()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ctx: %v\nhint: install both programs into one directory: go install github.com/ctx-dev/ctx/cmd/...@latest (or go install ./cmd/... in a checkout)\n", err)
		os.Exit(1)
	}
	code, err := run(core, args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ctx: running %s: %v\n", core, err)
		os.Exit(1)
	}
	os.Exit(code)
}

// corePath finds ctx-core: beside this program, else on PATH; not this
// program under another name (a link), which would run itself for ever.
func corePath() (string, error) {
	name := coreName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	var tried []string
	var self os.FileInfo
	if exe, err := os.Executable(); err == nil {
		self, _ = os.Stat(exe)
		p := filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && (runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0) {
			if self != nil && os.SameFile(st, self) {
				return "", fmt.Errorf("%s is this program (ctx), not ctx-core", p)
			}
			return p, nil
		}
		tried = append(tried, p)
	}
	if p, err := lookPath(name); err == nil {
		if st, err := os.Stat(p); err == nil && self != nil && os.SameFile(st, self) {
			return "", fmt.Errorf("%s is this program (ctx), not ctx-core", p)
		}
		return p, nil
	}
	tried = append(tried, "PATH")
	return "", fmt.Errorf("%s, the rest of ctx, is not installed: not found in %v", coreName, tried)
}
