package repo

import (
	"errors"

	"github.com/ctx-dev/ctx/internal/storeloc"
)

var (
	// ErrNotAStore means no .ctx directory was found.
	ErrNotAStore = storeloc.ErrNotAStore
	// ErrExists means init found a store already in place.
	ErrExists = errors.New("repo: store already exists")
	// ErrNotDirectory means a path that must be a directory is not one.
	ErrNotDirectory = errors.New("repo: not a directory")
	// ErrConfig means config.toml cannot be parsed or holds an invalid value.
	ErrConfig = errors.New("repo: invalid config.toml")
	// ErrNotCommit means an object that should be a commit is not one.
	ErrNotCommit = errors.New("repo: not a commit")
	// ErrInvalidRev means a string is not a revision.
	ErrInvalidRev = errors.New("repo: invalid revision")
	// ErrDiverged means a ref has several effective heads where one is
	// needed; see DivergedError.
	ErrDiverged = errors.New("repo: ref has several heads")
	// ErrDanglingLink means a typed object refers to an object that is
	// not in the store.
	ErrDanglingLink = errors.New("repo: dangling reference")
	// ErrOrphanCommit means a commit's parent is not in the store.
	ErrOrphanCommit = errors.New("repo: orphan commit")
	// ErrInvalidArgument means a caller passed a value the repo rejects.
	ErrInvalidArgument = errors.New("repo: invalid argument")
	// ErrWrongTarget means a typed object refers to an object of the wrong
	// kind or type (a commit whose root_tree is a blob, say).
	ErrWrongTarget = errors.New("repo: reference to the wrong type")
)

var (
	// ErrNodeNotFound means a name given for a graph node names none.
	ErrNodeNotFound = errors.New("repo: no such node")
	// ErrAmbiguousNode means a name given for a graph node could mean
	// several; see AmbiguousNodeError.
	ErrAmbiguousNode = errors.New("repo: ambiguous node name")
)
