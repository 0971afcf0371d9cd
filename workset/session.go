package workset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/regfile"
)

// Session is one agent session's working set, loaded from its state file.
// Its methods change the state in memory and store objects; Store.Update
// saves the state afterwards. A Session is not safe for concurrent use.
type Session struct {
	store *Store
	key   string
	State
	dirty bool
}

// Key returns the session's directory name under sessions/.
func (s *Session) Key() string { return s.key }

// Change reports what an operation did to one content object.
type Change struct {
	ID      ID      `json:"id"`
	Type    string  `json:"type"` // "file" or "toolcall"
	Path    string  `json:"path,omitempty"`
	Outcome Outcome `json:"outcome,omitempty"`
	// Note is "deleted", "orphaned" (source unreachable: latest version
	// kept), "collapsed", "stub" or "".
	Note string `json:"note,omitempty"`
}

func has(ids []ID, id ID) bool { return slices.Contains(ids, id) }

func (s *Session) addIndex(id ID) {
	if !has(s.Index, id) {
		s.Index = append(s.Index, id)
		s.dirty = true
	}
}

func (s *Session) addPool(id ID) {
	s.addIndex(id)
	if !has(s.Pool, id) {
		s.Pool = append(s.Pool, id)
		s.dirty = true
	}
}

func (s *Session) addActive(id ID) {
	s.addPool(id)
	if !has(s.Active, id) {
		s.Active = append(s.Active, id)
		s.dirty = true
	}
}

func (s *Session) removeActive(id ID) bool {
	i := slices.Index(s.Active, id)
	if i < 0 {
		return false
	}
	s.Active = slices.Delete(s.Active, i, i+1)
	s.dirty = true
	return true
}

// Resolved is an agent-visible path resolved to its source.
type Resolved struct {
	Source Source
	// Display is the path the agent sees.
	Display string
	// Host is true when this process can read the source from disk.
	Host bool
}

// Resolve translates an absolute agent-visible path through the session's
// mounts (seed §5.3): under a mount, the mount's canonical path and file
// system; under none, the host's file system, or, in a session that has
// mounts (a sandbox), the sandbox's own file system, which this process
// never reads.
func (s *Session) Resolve(agentPath string) (Resolved, error) {
	if !path.IsAbs(agentPath) || strings.ContainsRune(agentPath, 0) {
		return Resolved{}, fmt.Errorf("%w: path %q is not absolute", ErrInvalid, agentPath)
	}
	p := path.Clean(agentPath)
	canon, fsid, ok := s.Mounts.Forward(p)
	switch {
	case ok:
	case len(s.Mounts) > 0:
		fsid = sandboxFilesystemID(s.Session)
	default:
		fsid = s.store.host
	}
	host := fsid == s.store.host
	if host {
		canon = filepath.ToSlash(canonicalPath(filepath.FromSlash(canon)))
	}
	src := Source{Type: SourceFilesystem, FilesystemID: fsid, Path: canon}
	return Resolved{Source: src, Display: s.Mounts.Reverse(canon, fsid), Host: host}, nil
}

// readSource reads a host file for the indexing protocol.
func readSource(r Resolved) ([]byte, error) {
	if !r.Host {
		return nil, fmt.Errorf("%w: %s is on another file system (give its content)", ErrUnreadable, r.Display)
	}
	b, err := regfile.Read(filepath.FromSlash(r.Source.Path), MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return b, nil
}

// ReadFile indexes a file the agent read (full indexing, trigger "agent
// read"): content is what the read returned, or nil to read the file from
// disk. The file joins the session index, the pool and the active set.
func (s *Session) ReadFile(agentPath string, content []byte) (Change, error) {
	c, err := s.indexFile(agentPath, content)
	if err == nil {
		s.addActive(c.ID)
	}
	return c, err
}

// WriteFile indexes a file the agent wrote or edited: a new version when
// its bytes changed. It joins the index and the pool; whether it is active
// does not change.
func (s *Session) WriteFile(agentPath string, content []byte) (Change, error) {
	c, err := s.indexFile(agentPath, content)
	if err == nil {
		s.addPool(c.ID)
	}
	return c, err
}

// indexFile runs the indexing protocol on the file at agentPath, with
// content, or nil to read it from disk.
func (s *Session) indexFile(agentPath string, content []byte) (Change, error) {
	r, err := s.Resolve(agentPath)
	if err != nil {
		return Change{}, err
	}
	if content == nil {
		if content, err = readSource(r); err != nil {
			return Change{}, err
		}
	}
	f, out, err := s.store.Index(r.Source, content)
	if err != nil {
		return Change{}, err
	}
	return Change{ID: f.ID, Type: "file", Path: r.Display, Outcome: out}, nil
}

// DeleteFile records that a file is gone: a version with null content.
// The object keeps its place in every set (history is never erased).
func (s *Session) DeleteFile(agentPath string) (Change, error) {
	r, err := s.Resolve(agentPath)
	if err != nil {
		return Change{}, err
	}
	f, out, err := s.store.Tombstone(r.Source)
	if err != nil {
		return Change{}, err
	}
	s.addPool(f.ID)
	return Change{ID: f.ID, Type: "file", Path: r.Display, Outcome: out, Note: "deleted"}, nil
}

// Sync re-reads the session's host files from disk (seed §3.6, session
// resume, and §5.8, a watcher event): updated when the bytes changed, a
// deleted version when the file is gone, orphaned when it cannot be
// reached. Set membership does not change. With paths, only the files at
// those agent-visible paths.
func (s *Session) Sync(agentPaths []string) ([]Change, error) {
	want := map[ID]bool{}
	for _, p := range agentPaths {
		r, err := s.Resolve(p)
		if err != nil {
			return nil, err
		}
		id := FileID(r.Source)
		if !has(s.Index, id) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, r.Display)
		}
		want[id] = true
	}
	var changes []Change
	for _, id := range s.Index {
		if s.call(id) != nil || len(want) > 0 && !want[id] {
			continue
		}
		f, err := s.store.File(id)
		if err != nil {
			return nil, err
		}
		r := Resolved{Source: f.Source, Display: s.Mounts.Reverse(f.Source.Path, f.Source.FilesystemID), Host: f.Source.FilesystemID == s.store.host}
		c := Change{ID: id, Type: "file", Path: r.Display}
		b, err := readSource(r)
		switch {
		case err == nil:
			if f.Latest().Stub() {
				c.Outcome, c.Note = Unchanged, "stub" // never read: discovery does not read
				break
			}
			if _, c.Outcome, err = s.store.Index(f.Source, b); err != nil {
				return nil, err
			}
		case r.Host && errors.Is(err, fs.ErrNotExist):
			if _, c.Outcome, err = s.store.Tombstone(f.Source); err != nil {
				return nil, err
			}
			c.Note = "deleted"
		default:
			c.Outcome, c.Note = Unchanged, "orphaned"
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// SetSystem sets the session's system prompt.
func (s *Session) SetSystem(text string) error {
	id, err := s.store.putBlob([]byte(text))
	if err != nil {
		return err
	}
	if s.System == nil || *s.System != id {
		s.System = &id
		s.dirty = true
	}
	return nil
}

// Prompt starts a new turn with the user's prompt, and collapses the tool
// outputs the turn pushes out of the window.
func (s *Session) Prompt(text string) []Change {
	return s.moveWindow(func() {
		s.Turns = append(s.Turns, Turn{N: len(s.Turns) + 1, Entries: []Entry{{Role: RoleUser, Text: text}}})
		s.dirty = true
	})
}

// Reply adds the assistant's text to the current turn.
func (s *Session) Reply(text string) {
	t := s.turn()
	t.Entries = append(t.Entries, Entry{Role: RoleAssistant, Text: text})
	s.dirty = true
}

// turn returns the current turn, starting the first if there is none.
func (s *Session) turn() *Turn {
	if len(s.Turns) == 0 {
		s.Turns = append(s.Turns, Turn{N: 1})
	}
	return &s.Turns[len(s.Turns)-1]
}

// call returns the tool call object id, nil if id is not one.
func (s *Session) call(id ID) *Call {
	for i := range s.Calls {
		if s.Calls[i].ID == id {
			return &s.Calls[i]
		}
	}
	return nil
}

// ref resolves what a command names: a unique prefix (4 or more hex
// digits) of an id in the session index, a tool call's harness id, or an
// absolute agent-visible path of a file in the index.
func (s *Session) ref(name string) (ID, error) {
	if len(name) >= 4 && isHex(name) {
		var found []ID
		for _, id := range s.Index {
			if strings.HasPrefix(id.String(), name) {
				found = append(found, id)
			}
		}
		if len(found) == 1 {
			return found[0], nil
		}
		if len(found) > 1 {
			return ID{}, fmt.Errorf("%w: %s names %d objects", ErrAmbiguous, name, len(found))
		}
	}
	for _, c := range s.Calls {
		if c.CallID == name {
			return c.ID, nil
		}
	}
	if path.IsAbs(name) {
		r, err := s.Resolve(name)
		if err != nil {
			return ID{}, err
		}
		if id := FileID(r.Source); has(s.Index, id) {
			return id, nil
		}
	}
	return ID{}, fmt.Errorf("%w: %s", ErrNotFound, name)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (s *Session) describe(id ID) Change {
	if c := s.call(id); c != nil {
		return Change{ID: id, Type: "toolcall"}
	}
	c := Change{ID: id, Type: "file"}
	if f, err := s.store.File(id); err == nil {
		c.Path = s.Mounts.Reverse(f.Source.Path, f.Source.FilesystemID)
	}
	return c
}

// Activate loads an object's content into the context (seed §3.3). A
// discovery stub, or a file recorded as deleted, is read from its source
// and indexed first; when that fails nothing changes and the error wraps
// ErrUnreadable.
func (s *Session) Activate(name string) (Change, error) {
	id, err := s.ref(name)
	if err != nil {
		return Change{}, err
	}
	c := s.describe(id)
	if c.Type == "file" {
		f, err := s.store.File(id)
		if err != nil {
			return Change{}, err
		}
		if l := f.Latest(); l.Stub() || l.Deleted {
			r := Resolved{Source: f.Source, Display: c.Path, Host: f.Source.FilesystemID == s.store.host}
			b, err := readSource(r)
			if err != nil {
				return Change{}, err
			}
			if _, c.Outcome, err = s.store.Index(f.Source, b); err != nil {
				return Change{}, err
			}
		}
	}
	s.addActive(id)
	return c, nil
}

// Deactivate removes an object from the active set; it stays in the pool.
func (s *Session) Deactivate(name string) (Change, error) {
	id, err := s.ref(name)
	if err != nil {
		return Change{}, err
	}
	s.removeActive(id)
	s.addPool(id)
	return s.describe(id), nil
}

// Pin exempts an object from auto-collapse.
func (s *Session) Pin(name string) (Change, error) {
	id, err := s.ref(name)
	if err != nil {
		return Change{}, err
	}
	if !has(s.Pinned, id) {
		s.Pinned = append(s.Pinned, id)
		s.dirty = true
	}
	return s.describe(id), nil
}

// Unpin removes the pin.
func (s *Session) Unpin(name string) (Change, error) {
	id, err := s.ref(name)
	if err != nil {
		return Change{}, err
	}
	if i := slices.Index(s.Pinned, id); i >= 0 {
		s.Pinned = slices.Delete(s.Pinned, i, i+1)
		s.dirty = true
	}
	return s.describe(id), nil
}

// AddMount adds a mount mapping, replacing one with the same agent prefix.
// An empty file system id means the host's (a bind mount).
func (s *Session) AddMount(m Mount) error {
	if m.FilesystemID == "" {
		m.FilesystemID = s.store.host
	}
	if m.FilesystemID == s.store.host && path.IsAbs(m.Canonical) {
		m.Canonical = filepath.ToSlash(canonicalPath(filepath.FromSlash(path.Clean(m.Canonical))))
	}
	if err := m.Validate(); err != nil {
		return err
	}
	s.Mounts = slices.DeleteFunc(s.Mounts, func(o Mount) bool { return o.Agent == m.Agent })
	s.Mounts = append(s.Mounts, m)
	slices.SortFunc(s.Mounts, func(a, b Mount) int { return strings.Compare(a.Agent, b.Agent) })
	s.dirty = true
	return nil
}

// RemoveMount removes the mapping of an agent prefix.
func (s *Session) RemoveMount(agent string) error {
	n := len(s.Mounts)
	s.Mounts = slices.DeleteFunc(s.Mounts, func(o Mount) bool { return o.Agent == path.Clean(agent) })
	if len(s.Mounts) == n {
		return fmt.Errorf("%w: no mount at %s", ErrNotFound, agent)
	}
	s.dirty = true
	return nil
}

// isRegular reports whether a discovered host path is a regular file.
func isRegular(r Resolved) bool {
	if !r.Host {
		return false
	}
	st, err := os.Stat(filepath.FromSlash(r.Source.Path))
	return err == nil && st.Mode().IsRegular()
}

// Apply runs op (Activate, Deactivate, Pin, Unpin, …) on each object refs
// name, in order, and returns what each changed. A ref that names no
// object and is not an absolute path is taken as a path relative to dir,
// the agent's working directory.
func (s *Session) Apply(refs []string, dir string, op func(*Session, string) (Change, error)) ([]Change, error) {
	done := make([]Change, 0, len(refs))
	for _, ref := range refs {
		ch, err := op(s, ref)
		if errors.Is(err, ErrNotFound) && !strings.HasPrefix(ref, "/") {
			ch, err = op(s, path.Join(dir, ref))
		}
		if err != nil {
			return nil, err
		}
		done = append(done, ch)
	}
	return done, nil
}
