package workset

import (
	"path"
	"strings"
)

// Format is the shape of a tool's output, for discovery.
type Format int

// The formats; FormatNone (the zero value) discovers nothing.
const (
	FormatNone Format = iota
	// FormatLs: ls, short or long (-l), with "dir:" headers for several
	// directories.
	FormatLs
	// FormatGrep: "path:line:text", "path:text", "path" alone (-l, rg
	// --files, rg's heading) and "Binary file path matches"; grep, rg,
	// ag, git grep, Claude Code's Grep.
	FormatGrep
	// FormatFind: one path a line; find, fd, git ls-files, Claude Code's
	// Glob.
	FormatFind
)

// String returns the format's name.
func (f Format) String() string {
	switch f {
	case FormatLs:
		return "ls"
	case FormatGrep:
		return "grep"
	case FormatFind:
		return "find"
	}
	return "none"
}

// MaxDiscovered bounds the paths one output can yield, and so the stat
// calls discovery makes.
const MaxDiscovered = 1000

// shells are tools whose arguments are a command line.
var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "shell": true, "exec": true, "run": true, "terminal": true, "run_shell_command": true}

var formats = map[string]Format{
	"ls": FormatLs, "grep": FormatGrep, "egrep": FormatGrep, "fgrep": FormatGrep, "rg": FormatGrep, "ag": FormatGrep,
	"find": FormatFind, "fd": FormatFind, "fdfind": FormatFind, "glob": FormatFind,
}

// FormatOf returns the output format of a tool call: by the tool's name,
// or for a shell tool (bash, sh, …) by the command of its command line
// (args). "git grep" and "git ls-files" are recognised.
func FormatOf(tool, args string) Format {
	name := strings.ToLower(tool)
	words := commandWords(args)
	if shells[name] {
		if len(words) == 0 {
			return FormatNone
		}
		name, words = path.Base(words[0]), words[1:]
	}
	if name == "git" && len(words) > 0 {
		switch words[0] {
		case "grep":
			return FormatGrep
		case "ls-files":
			return FormatFind
		}
	}
	return formats[name]
}

// commandWords splits the first simple command of a command line into
// words: it stops at a pipe, ;, &&, || or a redirection, and drops quotes.
// It is no shell: enough to find a command's name and operands.
func commandWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			flush()
		case c == '|' || c == ';' || c == '&' || c == '>' || c == '<' || c == '\n':
			flush()
			return words
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

// operands returns the words of a command line after its command name that
// are not options.
func operands(args string, shell bool) []string {
	words := commandWords(args)
	if len(words) > 0 && (shell || words[0] == "ls") {
		words = words[1:]
	}
	var ops []string
	for _, w := range words {
		if !strings.HasPrefix(w, "-") || w == "-" {
			ops = append(ops, w)
		}
	}
	return ops
}

// Paths returns the absolute, clean agent-visible paths that a tool's
// output names, in order, without repeats, at most MaxDiscovered: the
// candidates of discovery, which keeps only those that are regular files.
// Relative paths are relative to cwd (absolute); for ls, to the directory
// listed (the command line's operand, or a "dir:" header).
func Paths(f Format, output, cwd, args string) []string {
	if !path.IsAbs(cwd) {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(dir, p string) {
		if p == "" || len(out) >= MaxDiscovered {
			return
		}
		if !path.IsAbs(p) {
			p = path.Join(dir, p)
		}
		p = path.Clean(p)
		if p == "/" || seen[p] || strings.ContainsRune(p, 0) {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	lines := strings.Split(strings.ReplaceAll(output, "\r\n", "\n"), "\n")
	switch f {
	case FormatFind:
		for _, l := range lines {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "find:") || strings.HasPrefix(l, "fd:") {
				continue
			}
			add(cwd, l)
		}
	case FormatGrep:
		for _, l := range lines {
			l = strings.TrimRight(l, " \t")
			if l == "" || l == "--" || strings.HasPrefix(l, "grep:") || strings.HasPrefix(l, "rg:") {
				continue
			}
			if rest, ok := strings.CutPrefix(l, "Binary file "); ok {
				if p, ok := strings.CutSuffix(rest, " matches"); ok {
					add(cwd, p)
				}
				continue
			}
			p, _, found := strings.Cut(l, ":")
			if found && isDigits(p) {
				continue // "12:text": a line of a single file, or under rg's heading
			}
			if !found && isDigits(strings.SplitN(l, "-", 2)[0]) {
				continue // "12-text": a context line
			}
			add(cwd, p)
		}
	case FormatLs:
		shell := shells[strings.ToLower(firstWord(args))]
		dirs := operands(args, shell)
		dir := ""
		for _, l := range lines {
			l = strings.TrimRight(l, " \t")
			if l == "" || strings.HasPrefix(l, "total ") || strings.HasPrefix(l, "ls:") {
				continue
			}
			if h, ok := strings.CutSuffix(l, ":"); ok && !strings.Contains(h, "  ") {
				dir = path.Join(cwd, h) // "src:" heads the listing of src
				continue
			}
			for _, name := range lsNames(l) {
				switch {
				case dir != "":
					add(dir, name)
				case len(dirs) == 1:
					add(path.Join(cwd, dirs[0]), name) // ls DIR lists names in DIR,
					add(cwd, name)                     // ls FILE prints FILE itself
				default:
					add(cwd, name)
				}
			}
		}
	}
	return out
}

func firstWord(s string) string {
	w := commandWords(s)
	if len(w) == 0 {
		return ""
	}
	return w[0]
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// lsNames returns the file names of one line of ls output: the name of a
// long-format line of a regular file or link (others: none), or the
// whitespace-separated names of a short-format line, -F's markers
// dropped and directories (a trailing /) left out.
func lsNames(l string) []string {
	fields := strings.Fields(l)
	if len(fields) >= 9 && isMode(fields[0]) {
		if fields[0][0] != '-' && fields[0][0] != 'l' {
			return nil
		}
		// The name is what follows the eighth field, spaces kept.
		rest := l
		for range 8 {
			rest = strings.TrimLeft(rest, " \t")
			i := strings.IndexAny(rest, " \t")
			if i < 0 {
				return nil
			}
			rest = rest[i:]
		}
		name := strings.TrimLeft(rest, " \t")
		if fields[0][0] == 'l' {
			name, _, _ = strings.Cut(name, " -> ")
		}
		return []string{name}
	}
	var names []string
	for _, f := range fields {
		if strings.HasSuffix(f, "/") {
			continue
		}
		names = append(names, strings.TrimRight(f, "*@|="))
	}
	return names
}

// isMode reports whether s looks like ls -l's mode column: "-rw-r--r--",
// "drwxr-xr-x.", "lrwxrwxrwx@".
func isMode(s string) bool {
	s = strings.TrimRight(s, ".+@")
	if len(s) != 10 || !strings.ContainsRune("-dlcbps", rune(s[0])) {
		return false
	}
	for i := 1; i < 10; i++ {
		if !strings.ContainsRune("rwxsStT-", rune(s[i])) {
			return false
		}
	}
	return true
}
