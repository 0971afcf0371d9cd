package extract

import (
	"os"
	"path/filepath"
	"sync"
)

// DirProject is a Project on a directory of the disk.
type DirProject struct {
	Root string
	memo sync.Map
}

// ReadFile reads a file of the project.
func (p *DirProject) ReadFile(path string) ([]byte, error) {
	return os.ReadFile(filepath.Join(p.Root, filepath.FromSlash(path)))
}

// Exists reports whether the project has a file or directory at path.
func (p *DirProject) Exists(path string) bool {
	_, err := os.Stat(filepath.Join(p.Root, filepath.FromSlash(path)))
	return err == nil
}

// Memo returns the value cached under key, computing it the first time.
func (p *DirProject) Memo(key string, compute func() any) any {
	if v, ok := p.memo.Load(key); ok {
		return v
	}
	v, _ := p.memo.LoadOrStore(key, compute())
	return v
}
