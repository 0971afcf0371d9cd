package repo

import (
	"path/filepath"

	"github.com/ctx-dev/ctx/narrative/view"
)

// Views returns the store's views (.ctx/views/, docs/FORMAT.md §17). Its
// write methods need the writer lock: call them through a Writer.
func (r *Repo) Views() *view.Store {
	return &view.Store{Dir: filepath.Join(r.Root, "views")}
}
