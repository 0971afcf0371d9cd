package repo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/object"
)

// The stat cache (.ctx/local/stat-cache) remembers, per project file, the
// stat data it had when ctx last hashed it and the blob it hashed to, as
// git's index does: a file whose size, modification time, inode and
// change time are unchanged is not read again. It is local state: losing
// it costs a re-read, never a wrong answer.
const statCacheFile = "local/stat-cache"

// statCacheVersion is the first line of the file.
const statCacheVersion = "ctx stat-cache 1"

// statEntry is what the cache knows of one file.
type statEntry struct {
	size, mtime, ctime int64 // nanoseconds for the times
	ino                uint64
	blob               object.ID
}

// statOf returns the cache entry fields of a file's stat data.
func statOf(info fs.FileInfo) statEntry {
	e := statEntry{size: info.Size(), mtime: info.ModTime().UnixNano()}
	e.ctime, e.ino = changeAndInode(info)
	return e
}

// same reports whether a file's stat data match the entry's.
func (e statEntry) same(o statEntry) bool {
	return e.size == o.size && e.mtime == o.mtime && e.ctime == o.ctime && e.ino == o.ino
}

// statCache is the loaded cache, and the time it was written: an entry
// whose file changed within the file system's timestamp granularity of
// that moment cannot be trusted (git's "racy" entries).
type statCache struct {
	entries map[string]statEntry
	written int64 // UnixNano
}

// racyWindow is how close to the cache's writing a change must be for the
// entry to be distrusted.
const racyWindow = int64(2 * time.Second)

// lookup returns the cached blob of a file if its stat data are unchanged
// and were not racy when cached.
func (c *statCache) lookup(path string, now statEntry) (object.ID, bool) {
	e, ok := c.entries[path]
	if !ok || !e.same(now) || e.mtime >= c.written-racyWindow || e.ctime >= c.written-racyWindow {
		return object.Zero, false
	}
	return e.blob, true
}

// loadStatCache reads the cache; a missing or damaged one is empty.
func (r *Repo) loadStatCache() *statCache {
	data, err := regfile.Read(filepath.Join(r.Root, filepath.FromSlash(statCacheFile)), 256<<20)
	if err != nil {
		return &statCache{entries: map[string]statEntry{}}
	}
	return parseStatCache(data)
}

// parseStatCache decodes a stat cache file; a damaged one is empty.
func parseStatCache(data []byte) *statCache {
	c := &statCache{entries: map[string]statEntry{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() || sc.Text() != statCacheVersion || !sc.Scan() {
		return c
	}
	written, err := strconv.ParseInt(strings.TrimPrefix(sc.Text(), "written "), 10, 64)
	if err != nil {
		return c
	}
	c.written = written
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 6 {
			return &statCache{entries: map[string]statEntry{}}
		}
		var e statEntry
		var errs [4]error
		e.size, errs[0] = strconv.ParseInt(f[1], 10, 64)
		e.mtime, errs[1] = strconv.ParseInt(f[2], 10, 64)
		e.ctime, errs[2] = strconv.ParseInt(f[3], 10, 64)
		e.ino, errs[3] = strconv.ParseUint(f[4], 10, 64)
		id, err := object.ParseID(f[5])
		if err != nil || errors.Join(errs[:]...) != nil {
			return &statCache{entries: map[string]statEntry{}}
		}
		e.blob = id
		c.entries[f[0]] = e
	}
	return c
}

// saveStatCache writes the cache crash-safely.
func (r *Repo) saveStatCache(c *statCache) error {
	var b bytes.Buffer
	if err := c.encode(&b); err != nil {
		return err
	}
	file := filepath.Join(r.Root, filepath.FromSlash(statCacheFile))
	if err := atomicfile.MkdirAll(filepath.Dir(file)); err != nil {
		return err
	}
	if err := atomicfile.Write(file, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("repo: stat cache: %w", err)
	}
	return nil
}

// encode writes the cache file: a version line, the time it was
// written, and a line per path. Paths with tabs or newlines are left out
// (they are hashed every time).
func (c *statCache) encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\nwritten %d\n", statCacheVersion, c.written)
	for p, e := range c.entries {
		if strings.ContainsAny(p, "\t\n\r") || p == "" {
			continue
		}
		fmt.Fprintf(bw, "%s\t%d\t%d\t%d\t%d\t%s\n", p, e.size, e.mtime, e.ctime, e.ino, e.blob)
	}
	return bw.Flush()
}

// fileStat lstats a project file.
func fileStat(root, rel string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
}
