package index

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
)

// Racily clean narrative files (git's "racy" entries; docs/INDEX.md,
// "Freshness"). A file's stat data show every later change but one: a
// rewrite of the same size within the same tick of the file system's
// clock as the write the stat data recorded, after the build read the
// file. Such a rewrite keeps size, modification and change time (and a
// write in place, the inode). A build therefore distrusts the stat data of
// every file whose modification or change time is not before the moment
// it began, as the file system's clock tells it (the index lock's
// modification time, written as the lock is taken, before any file is
// stat or read): it records the hash of each such file's content as its
// parse reads it (FileStat.Sum, racyRead). A reading command then
// takes such a file as unchanged only when its content still has that
// hash; else the segment is stale. A file written in an earlier tick than
// the build's start changes its times with any later write.
//
// Only files the narrative parses are hashed (ending in .md, read):
// the content of the others never reaches the index. The comparison
// assumes that the lock and the narrative share a file system and its
// clock, as .ctx/index and .ctx/narrative do.

// statNarrative is narrativeStats; tests replace it to forge stat data
// that hide a change, as a racy rewrite does.
var statNarrative = narrativeStats

// racyCheck hashes narrative files for the comparison of a manifest taken
// now with a built one, each file once.
type racyCheck struct {
	root string // the narrative's root
	mu   sync.Mutex
	sums map[string]string // path → sum; "" when the file cannot be read
}

func newRacyCheck(root string) *racyCheck {
	return &racyCheck{root: root, sums: map[string]string{}}
}

// sum returns the hash of the content of the narrative file at path, as
// FileStat.Sum records it: unreadSum if it is there but cannot be read
// (too large, not regular, unreadable); false if it is gone.
func (c *racyCheck) sum(path string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sums[path]
	if !ok {
		switch data, err := regfile.Read(filepath.Join(c.root, filepath.FromSlash(path)), narrative.MaxFileBytes); {
		case err == nil:
			s = contentSum(data)
		case !errors.Is(err, fs.ErrNotExist):
			s = unreadSum
		}
		c.sums[path] = s
	}
	return s, s != ""
}

// unreadSum is FileStat.Sum of a file the parse found but could not
// read: the segment holds nothing of it, which stays true while it still
// cannot be read (a reading command tries). Its stat data may not show
// what made it readable again (a directory back in its path, a mode,
// which they do not record).
const unreadSum = "unread"

// sameFile reports whether two stat records of one narrative file, one
// built and one taken now (either way round), show the same content:
// equal stat data, and when either records a hash (a racy file), the
// content has it now. Without a check, a hash is taken as a change.
func sameFile(a, b FileStat, c *racyCheck) bool {
	if as, bs := withoutSum(a), withoutSum(b); as != bs {
		return false
	}
	want := a.Sum
	switch {
	case a.Sum == b.Sum:
		return true
	case a.Sum == "":
		want = b.Sum
	case b.Sum != "":
		return false // hashed twice, different content
	}
	if c == nil {
		return false
	}
	got, ok := c.sum(a.Path)
	return ok && got == want
}

func withoutSum(f FileStat) FileStat {
	f.Sum = ""
	return f
}

// contentSum is FileStat.Sum of a file's content: its object id as a blob,
// in hex. A build records it as it parses the file; a reading command
// compares it with the file's content then.
func contentSum(content []byte) string { return object.Sum(object.KindBlob, content).String() }

// narrativeEqual reports whether two manifests, one built and one taken
// now, record the same narrative files with the same content.
func narrativeEqual(a, b *Manifest) bool {
	if len(a.Narrative) != len(b.Narrative) {
		return false
	}
	c := checkOf(a, b)
	for i := range a.Narrative {
		if !sameFile(a.Narrative[i], b.Narrative[i], c) {
			return false
		}
	}
	return true
}

// checkOf returns the racy check of whichever of two manifests was taken
// now.
func checkOf(a, b *Manifest) *racyCheck {
	if a.racy != nil {
		return a.racy
	}
	return b.racy
}

// racyRead records, as one parse of the narrative reads them, the hash of
// each file whose stat data a build from m cannot trust: the bytes the
// index is built from, not a second read that a rewrite could fall
// between.
type racyRead struct {
	racy map[string]bool
	// only, if set, is the files the parse is given (a narrative
	// delta's); else it reads every file ending in .md.
	only map[string]bool
	mu   sync.Mutex
	sums map[string]string
	read map[string]bool // every file the parse read
	// kept are the files the parse found but could not read (too large,
	// not regular, unreadable): their lines stay, with unreadSum.
	kept map[string]bool
}

// newRacyRead returns the recorder of a build from m: it hashes the files
// the narrative parses (ending in .md) whose modification or change time
// is at or after m.since; none when m.since is 0 (a build not kept).
func newRacyRead(m *Manifest) *racyRead {
	rr := &racyRead{racy: map[string]bool{}, sums: map[string]string{}, read: map[string]bool{}, kept: map[string]bool{}}
	for _, f := range m.Narrative {
		if m.since != 0 && (f.ModNano >= m.since || f.ChangeNano >= m.since) && strings.HasSuffix(f.Path, ".md") {
			rr.racy[f.Path] = true
		}
	}
	return rr
}

// space returns sp, reporting its reads to rr.
func (rr *racyRead) space(sp *narrative.Space) *narrative.Space {
	sp.OnRead = func(path string, src []byte) {
		sum := ""
		if rr.racy[path] {
			sum = contentSum(src)
		}
		rr.mu.Lock()
		rr.read[path] = true
		if sum != "" {
			rr.sums[path] = sum
		}
		rr.mu.Unlock()
	}
	sp.OnUnread = func(path string, err error) {
		if !errors.Is(err, fs.ErrNotExist) {
			rr.mu.Lock()
			rr.kept[path] = true
			rr.mu.Unlock()
		}
	}
	return sp
}

// stats returns files, the stat data the build took, with the hashes of
// the racy ones the parse read, and unreadSum for the files it found but
// could not read, which a reading command takes as unchanged only while
// they still cannot be read. The other files the parse was to read but
// did not (gone when it came to them: removed, or a directory of their
// path moved, perhaps back by now) are left out: the segment holds
// nothing of them, so that the file there later, whatever its stat data,
// reads as added. That costs at most a second build: a file that stays
// is read by it.
func (rr *racyRead) stats(files []FileStat) []FileStat {
	out := slices.DeleteFunc(slices.Clone(files), func(f FileStat) bool {
		toRead := strings.HasSuffix(f.Path, ".md") && (rr.only == nil || rr.only[f.Path])
		return toRead && !rr.read[f.Path] && !rr.kept[f.Path]
	})
	for i := range out {
		out[i].Sum = rr.sums[out[i].Path]
		if rr.kept[out[i].Path] {
			out[i].Sum = unreadSum
		}
	}
	return out
}

// fsNow returns the modification time of the file at path (the index
// lock, just written), in Unix nanoseconds: the file system's clock at
// that write.
func fsNow(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.ModTime().UnixNano(), nil
}
