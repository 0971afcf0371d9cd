package index

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/index/stamp"
	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/narrative"
)

// narrativeStats returns the stat data of every regular file under root
// that the narrative reads (symbolic links not followed; no hidden or
// temporary file or directory: narrative.ListedName), sorted by path,
// relative to root and slash-separated; none when root does not exist or
// is not a directory (a symbolic link included). A file removed while
// it is read is left out, as a listing a moment later would. Every
// reading command runs it: each file is one stat relative to its open
// directory, on every core when there are many.
func narrativeStats(root string) ([]FileStat, error) {
	// The narrative reads nothing under a root that is not a directory
	// (Space.Files does not follow a symbolic link there): nor does this.
	if st, err := os.Lstat(root); err != nil || !st.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	type file struct {
		dir  *os.File
		rel  string // slash-separated, relative to root
		name string
	}
	var files []file
	var dirs []*os.File
	defer func() {
		for _, d := range dirs {
			d.Close()
		}
	}()
	queue := []string{""}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		d, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since listed (or since the Lstat)
		}
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, d)
		entries, err := d.ReadDir(-1)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !narrative.ListedName(e.Name()) {
				continue // never read: a hidden or temporary file
			}
			p := path.Join(rel, e.Name())
			switch {
			case e.IsDir():
				queue = append(queue, p)
			case e.Type().IsRegular():
				files = append(files, file{d, p, e.Name()})
			}
		}
	}
	out := make([]FileStat, len(files))
	stat := func(i int) error {
		st, err := statAt(files[i].dir, files[i].name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed since listed: its entry keeps no path
		}
		st.Path = files[i].rel
		out[i] = st
		return err
	}
	const perWorker = 256
	if len(files) <= perWorker {
		for i := range files {
			if err := stat(i); err != nil {
				return nil, err
			}
		}
	} else if err := parallel.Do(context.Background(), (len(files)+perWorker-1)/perWorker, func(c int) error {
		for i := c * perWorker; i < min(len(files), (c+1)*perWorker); i++ {
			if err := stat(i); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out = slices.DeleteFunc(out, func(f FileStat) bool { return f.Path == "" })
	slices.SortFunc(out, func(a, b FileStat) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// statAt returns the size, modification and change times (Unix
// nanoseconds) and inode of the entry name of the open directory dir, not
// following a symbolic link (stamp.StatAt: one system call where the
// system has one, with no path to resolve).
func statAt(dir *os.File, name string) (FileStat, error) {
	st, err := stamp.StatAt(dir, name)
	return FileStat{Size: st.Size, ModNano: st.ModNano, ChangeNano: st.ChangeNano, Ino: st.Ino}, err
}
