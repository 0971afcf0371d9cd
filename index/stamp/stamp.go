// Package stamp is the index's fast-path stamp, .ctx/index/STAMP
// (docs/INDEX.md, "The stamp"): the stat data of everything a reading
// command's freshness check depends on (the store directory, HEAD,
// config.toml, STAGE, the refs and sessions, the narrative's directories
// and files, CURRENT), as a ctx process saw them when it last found the
// index fresh, and the segments it answered from.
//
// While every entry still has that stat data, nothing the index derives
// from has changed, and a process may answer from those segments without
// reading the refs, the sessions, the configuration or the narrative
// files: ctx's lean front end (cmd/ctx) answers ctx search so. Any
// difference, a stamp that does not parse, or an entry too close in time
// to the stamp to tell (racy, as git says) sends the command the full
// way, which checks the index, brings it up to date and writes a new
// stamp. The stamp is derived data: deleting it loses nothing.
//
// The package imports only the standard library and x/sys.
package stamp

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/internal/atomicfile"
)

// Name is the stamp's file name in .ctx/index/.
const Name = "STAMP"

// header is the stamp's first line; it changes with the format.
const header = "ctx-index-stamp 1"

// The kinds of an entry.
const (
	Absent byte = '-' // nothing at the path
	File   byte = 'f' // a regular file
	Dir    byte = 'd' // a directory
	Other  byte = 'o' // anything else (a symbolic link, a FIFO, …)
)

// Stat is the stat data of a path: its kind, size, modification and
// change times (Unix nanoseconds) and inode. A system without change
// times or inodes leaves them 0.
type Stat struct {
	Kind       byte
	Size       int64
	ModNano    int64
	ChangeNano int64
	Ino        uint64
}

// Entry is a path's stat data.
type Entry struct {
	Path string // relative to the .ctx directory, slash-separated
	Stat Stat
}

// The segments a stamp names, by their directories under .ctx/index/:
// the code's, its delta's, the narrative's and its delta's ("" for no
// delta).
const (
	SegCode = iota
	SegCodeDelta
	SegNarrative
	SegNarrativeDelta
	NSegs
)

// Stamp is the content of the stamp file.
type Stamp struct {
	// Format names what reader and writer must agree on: the formats of
	// the index's files and the tokenizer (reader.Format). A stamp of
	// another format is not used.
	Format string
	// Session is the staging session the command was told to use
	// (--session, CTX_SESSION); "" for none (STAGE, an entry, decides).
	Session string
	// Since is the file system's time (Unix nanoseconds) before the
	// entries' stat data was last taken: when Write created the stamp's
	// temporary file. An entry changed at or after it could change again
	// in the same tick of the file system's clock without showing (racy,
	// as git says): a stamp with such an entry is neither written nor
	// used. Taking the time from the file system makes this hold for any
	// granularity of its timestamps and any clock of a network server.
	Since int64
	// Segs are the segment directories the process answered from.
	Segs    [NSegs]string
	Entries []Entry
}

// Racy reports whether stat data st is too recent for the stamp.
func (s *Stamp) Racy(st Stat) bool {
	return st.Kind != Absent && (st.ModNano >= s.Since || st.ChangeNano >= s.Since)
}

// Marshal encodes the stamp.
func (s *Stamp) Marshal() []byte {
	var b strings.Builder
	b.WriteString(header + "\n")
	fmt.Fprintf(&b, "format %s\n", s.Format)
	fmt.Fprintf(&b, "session %s\n", orDash(s.Session))
	fmt.Fprintf(&b, "since %d\n", s.Since)
	b.WriteString("segments")
	for _, d := range s.Segs {
		b.WriteString(" " + orDash(d))
	}
	b.WriteString("\n")
	for _, e := range s.Entries {
		st := e.Stat
		fmt.Fprintf(&b, "%c %d %d %d %d %s\n", st.Kind, st.Size, st.ModNano, st.ChangeNano, st.Ino, e.Path)
	}
	return []byte(b.String())
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fromDash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// maxSize bounds a stamp file: a line per narrative file.
const maxSize = 64 << 20

// errNotSmallFile is a stamp that is not a regular file of at most
// maxSize bytes.
var errNotSmallFile = errors.New("not a regular file of a stamp's size")

// ErrCorrupt is a stamp that does not parse.
var ErrCorrupt = errors.New("index: corrupt stamp")

// Parse decodes a stamp.
func Parse(data []byte) (*Stamp, error) {
	bad := func(n int, what string) error { return fmt.Errorf("%w: line %d: %s", ErrCorrupt, n, what) }
	text, ok := strings.CutSuffix(string(data), "\n")
	if !ok {
		return nil, fmt.Errorf("%w: no final newline", ErrCorrupt)
	}
	lines := strings.Split(text, "\n")
	if len(lines) < 5 || lines[0] != header {
		return nil, bad(1, "not a stamp of this version")
	}
	s := &Stamp{}
	var ok1, ok2 bool
	s.Format, ok1 = strings.CutPrefix(lines[1], "format ")
	sess, ok2 := strings.CutPrefix(lines[2], "session ")
	if !ok1 || !ok2 || s.Format == "" || sess == "" {
		return nil, bad(2, "no format or session")
	}
	s.Session = fromDash(sess)
	since, ok := strings.CutPrefix(lines[3], "since ")
	var err error
	if s.Since, err = strconv.ParseInt(since, 10, 64); !ok || err != nil || s.Since <= 0 {
		return nil, bad(4, "no time")
	}
	segs := strings.Fields(lines[4])
	if len(segs) != 1+NSegs || segs[0] != "segments" {
		return nil, bad(5, "no segments")
	}
	for i, d := range segs[1:] {
		d = fromDash(d)
		if d != "" && (!strings.HasPrefix(d, "seg-") || strings.ContainsAny(d, `/\`)) {
			return nil, bad(5, "bad segment name")
		}
		s.Segs[i] = d
	}
	if s.Segs[SegCode] == "" || s.Segs[SegNarrative] == "" {
		return nil, bad(5, "no code or narrative segment")
	}
	s.Entries = make([]Entry, 0, len(lines)-5)
	for i, l := range lines[5:] {
		e, err := parseEntry(l)
		if err != nil {
			return nil, bad(6+i, err.Error())
		}
		s.Entries = append(s.Entries, e)
	}
	return s, nil
}

// parseEntry decodes "KIND SIZE MOD CHANGE INO PATH".
func parseEntry(l string) (Entry, error) {
	var e Entry
	f := strings.SplitN(l, " ", 6)
	if len(f) != 6 || len(f[0]) != 1 || !strings.Contains("-fdo", f[0]) {
		return e, errors.New("bad entry")
	}
	e.Stat.Kind = f[0][0]
	var err [4]error
	e.Stat.Size, err[0] = strconv.ParseInt(f[1], 10, 64)
	e.Stat.ModNano, err[1] = strconv.ParseInt(f[2], 10, 64)
	e.Stat.ChangeNano, err[2] = strconv.ParseInt(f[3], 10, 64)
	e.Stat.Ino, err[3] = strconv.ParseUint(f[4], 10, 64)
	if errors.Join(err[:]...) != nil {
		return e, errors.New("bad number")
	}
	e.Path = f[5]
	if e.Path == "" || path.IsAbs(e.Path) || strings.Contains(e.Path, `\`) || path.Clean(e.Path) != e.Path ||
		e.Path == ".." || strings.HasPrefix(e.Path, "../") {
		return e, errors.New("bad path")
	}
	return e, nil
}

// ReadFile reads and parses the stamp of the store at root, without
// checking it.
func ReadFile(root string) (*Stamp, error) {
	data, err := readFile(Path(root), maxSize)
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// Write replaces the stamp of the store at root with s, crash-safely,
// and reports whether it did. Its temporary file gives the file system's
// time, Since; then every entry is taken again, and the stamp is written
// only if each still has the stat data s records (nothing changed since
// the caller took it, before it checked the index) and none is racy.
func Write(root string, s *Stamp) (bool, error) {
	written := false
	err := atomicfile.WriteFunc(Path(root), 0o644, func(tmp *os.File) ([]byte, error) {
		info, err := tmp.Stat()
		if err != nil {
			return nil, err
		}
		w := *s
		w.Since = info.ModTime().UnixNano()
		if w.Check(root) != "" {
			return nil, atomicfile.ErrSkip
		}
		data := w.Marshal()
		if _, err := Parse(data); err != nil {
			return nil, atomicfile.ErrSkip // a path a stamp cannot hold (a newline, a backslash)
		}
		written = true
		return data, nil
	})
	return written && err == nil, err
}

// Path is where the stamp of the store whose .ctx directory is root is.
func Path(root string) string { return filepath.Join(root, "index", Name) }

// Read reads the stamp of the store at root and checks it against the
// file system: it returns the stamp when every entry still has the stat
// data it records, none racy, and format and session are the stamp's;
// otherwise nil and why.
func Read(root, format, session string) (*Stamp, string) {
	s, err := ReadFile(root)
	switch {
	case errors.Is(err, ErrCorrupt):
		return nil, err.Error()
	case err != nil:
		return nil, "no stamp: " + err.Error()
	}
	if s.Format != format {
		return nil, "stamp of another format"
	}
	if s.Session != session {
		return nil, "stamp of another session"
	}
	if why := s.Check(root); why != "" {
		return nil, why
	}
	return s, ""
}

// Check compares every entry with the file system under root: "" when
// all match and none is racy, else why not. A stamp of many entries (a
// narrative of hundreds of notes) is checked on every core.
func (s *Stamp) Check(root string) string {
	const perWorker = 128
	n := len(s.Entries)
	if n <= 2*perWorker || runtime.GOMAXPROCS(0) == 1 {
		return s.check(root, s.Entries)
	}
	workers := min(runtime.GOMAXPROCS(0), (n+perWorker-1)/perWorker)
	whys := make([]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Go(func() { whys[w] = s.check(root, s.Entries[lo:hi]) })
	}
	wg.Wait()
	for _, why := range whys {
		if why != "" {
			return why
		}
	}
	return ""
}

// check is Check of some of the entries.
func (s *Stamp) check(root string, entries []Entry) string {
	for _, e := range entries {
		if s.Racy(e.Stat) {
			return e.Path + " changed just before the stamp"
		}
		st, err := Lstat(filepath.Join(root, filepath.FromSlash(e.Path)))
		if err != nil {
			return err.Error()
		}
		if st != e.Stat {
			return e.Path + " changed"
		}
	}
	return ""
}

// Open opens the segments the stamp of the store at root names, when the
// stamp holds for session (Read): the index as the process that wrote
// the stamp found it fresh. Otherwise it returns nil and why.
func Open(root, session string) (*reader.Index, string) {
	s, why := Read(root, reader.Format, session)
	if s == nil {
		return nil, why
	}
	dir := func(i int) string {
		if s.Segs[i] == "" {
			return ""
		}
		return filepath.Join(root, "index", s.Segs[i])
	}
	ix, err := reader.Open(dir(SegCode), dir(SegCodeDelta), dir(SegNarrative), dir(SegNarrativeDelta))
	if err != nil {
		return nil, err.Error()
	}
	return ix, ""
}
