package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/stamp"
	"github.com/ctx-dev/ctx/internal/storeloc"
)

// searchLine is a ctx search command line as the front end reads it.
type searchLine struct {
	json    bool
	dir     string
	session string
	hasDir  bool // --dir given (CTX_DIR is not read then)
	hasSess bool // --session given (CTX_SESSION is not read then)
	opts    reader.SearchOptions
	query   []string
}

// parseSearch reads args as ctx-core's parser would a search, for the
// flags the front end knows: the global --json, --dir and --session,
// and search's --type, -t/--tag, --include-superseded and -n/--limit,
// before and after the query's words (one run, as the parser wants: no
// word after a flag that follows them), and "--" before the words.
// Anything else, a flag given twice where once is the rule, or a value
// the full parser might read otherwise, is nil and why: ctx-core then
// reads the line and says what is wrong with it.
func parseSearch(args []string) (*searchLine, string) {
	l := &searchLine{opts: reader.SearchOptions{Limit: 10}}
	seenCmd, hasLimit := false, false
	wordsEnded := false // a flag after the query's words: no word may follow (the parser's rule)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if seenCmd && a == "--" {
			if len(l.query) > 0 {
				return nil, "-- after a query word" // the parser's error
			}
			l.query = append(l.query, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") {
			if !seenCmd {
				if a != "search" {
					return nil, "not a search"
				}
				seenCmd = true
				continue
			}
			if wordsEnded {
				return nil, "a word after a flag that follows the query"
			}
			l.query = append(l.query, a)
			continue
		}
		if len(l.query) > 0 {
			wordsEnded = true
		}
		name, val, hasVal := strings.Cut(a, "=")
		// A flag's value: after '=', or the next argument.
		value := func() (string, bool) {
			if hasVal {
				return val, true
			}
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return "", false
			}
			i++
			return args[i], true
		}
		var ok bool
		switch name {
		case "--json":
			l.json, ok = true, !hasVal
		case "--dir":
			if !l.hasDir {
				l.dir, ok = value()
				l.hasDir = ok
			}
		case "--session":
			if !l.hasSess {
				l.session, ok = value()
				l.hasSess = ok
			}
		case "--type", "-t", "--tag":
			if !seenCmd || name == "-t" && hasVal {
				break
			}
			var v string
			if v, ok = value(); ok && name == "--type" {
				l.opts.Kinds = append(l.opts.Kinds, v)
			} else if ok {
				l.opts.Tags = append(l.opts.Tags, v)
			}
		case "--include-superseded":
			l.opts.IncludeSuperseded, ok = true, !hasVal && seenCmd
		case "-n", "--limit":
			if name == "-n" && hasVal || hasLimit || !seenCmd {
				break
			}
			var v string
			if v, ok = value(); ok {
				l.opts.Limit, ok = plainCount(v)
				hasLimit = true
			}
		}
		if !ok {
			return nil, "a flag the front end does not read: " + a
		}
	}
	switch {
	case !seenCmd:
		return nil, "not a search"
	case len(l.query) == 0:
		return nil, "no query"
	}
	return l, ""
}

// plainCount parses a positive decimal number without a sign or leading
// zero, which every parser reads the same way.
func plainCount(s string) (int, bool) {
	if s == "" || len(s) > 9 || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// front answers args when they are a search the stamp lets it answer,
// writing to stdout and returning the exit status; otherwise why not,
// having written nothing. lookupEnv is os.LookupEnv.
func front(args []string, lookupEnv func(string) (string, bool), stdout io.Writer) (int, string) {
	l, why := parseSearch(args)
	if l == nil {
		return 0, why
	}
	return l.answer(lookupEnv, stdout)
}

// answer runs the search from the segments the stamp names: "" when it
// has written the answer (and the exit status), else why not.
func (l *searchLine) answer(lookupEnv func(string) (string, bool), stdout io.Writer) (int, string) {
	getenv := func(k string) string { v, _ := lookupEnv(k); return v }
	// What ctx-core reads from the environment and the front end does
	// not: a clock for tests and the lock timeout (set, even empty, its
	// parser reads it), each checked there; a profile to write.
	for _, v := range []string{"CTX_DATE", "CTX_CPUPROFILE"} {
		if getenv(v) != "" {
			return 0, v + " is set"
		}
	}
	if _, set := lookupEnv("CTX_LOCK_TIMEOUT"); set {
		return 0, "CTX_LOCK_TIMEOUT is set"
	}
	if !l.hasDir {
		l.dir = getenv("CTX_DIR")
	}
	if !l.hasSess {
		l.session = getenv("CTX_SESSION")
	}
	var root string
	var err error
	if l.dir != "" {
		root, err = storeloc.Locate(l.dir, false)
	} else if wd, werr := os.Getwd(); werr != nil {
		err = werr
	} else {
		root, err = storeloc.Locate(wd, true)
	}
	if err != nil {
		return 0, err.Error()
	}
	ix, why := stamp.Open(root, l.session)
	if ix == nil {
		return 0, why
	}
	// Not closed: the process exits once it has answered, and the kernel
	// drops the mappings as it ends faster than munmap does them one by
	// one (which here took a tenth of a search).
	q := strings.Join(l.query, " ")
	hits, matched, err := ix.Search(q, l.opts)
	if err != nil {
		return 0, err.Error()
	}
	var out []byte
	if l.json {
		if out, err = reader.AppendJSON(nil, reader.NewResult(q, matched, hits)); err != nil {
			return 0, err.Error()
		}
	} else {
		out = reader.AppendText(nil, q, matched, hits)
	}
	if n, err := stdout.Write(out); err != nil {
		if n == 0 {
			return 0, "writing the answer: " + err.Error() // ctx-core tries, and says why it cannot
		}
		fmt.Fprintf(os.Stderr, "ctx: %v\n", err) // part of it is out: not again
		return 1, ""
	}
	return 0, ""
}
