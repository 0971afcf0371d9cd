package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/regfile"
)

// StateDir is where the sessions' states live, relative to the .ctx
// directory: under local/, which .ctx/.gitignore keeps out of git.
const StateDir = "local/hooks"

// StateVersion is the version of a pending item's file, written as
// "version" in each. Readers skip items of other versions.
//
// Changes:
//   - 1: first version: kind, created, text, query, summary, nodes.
const StateVersion = 1

// The kinds of pending items.
const (
	KindRecall = "recall" // results of <ctx:recall>, rendered
	KindStatus = "status" // the answer to <ctx:status/>, rendered
	KindExpand = "expand" // the sources of a summary, rendered when injected
	KindNotice = "notice" // what the commands did or why they failed
)

// Item is one pending result, injected once by the next prompt-submit or
// session-start of the session.
type Item struct {
	Version int       `json:"version"`
	Kind    string    `json:"kind"`
	Created time.Time `json:"created"`
	// Text is the rendered result (recall, status, notice).
	Text string `json:"text,omitempty"`
	// Query is the recall's query.
	Query string `json:"query,omitempty"`
	// Summary and Nodes are an expansion: the summary and the nodes it
	// derives from, rendered when injected so that they are current.
	Summary string   `json:"summary,omitempty"`
	Nodes   []string `json:"nodes,omitempty"`
}

// State is the local state of one Claude Code session:
//
//	.ctx/local/hooks/<key>/
//	├── task          the current task: its name and "\n" (absent: none)
//	├── cursor        the uuid of the last transcript entry handled, "\n"
//	└── pending/
//	    └── <16 hex time>-<4 digits>-<8 hex>.json   one Item each
//
// <key> is the session id when it is 1-100 of A-Z a-z 0-9 . _ - starting
// with a letter or digit (Claude Code's are UUIDs), else "h-" and 32 hex
// digits of its SHA-256. Every file is written atomically (temp, fsync,
// rename, fsync dir). An item is claimed by renaming it to a name ending
// in ".tmp" before it is read and removed: two hooks racing for it cannot
// both get it, and a crash in between loses it rather than injecting it
// twice.
type State struct {
	// Dir is the session's directory.
	Dir string
	// Session is the session id.
	Session string
}

// OpenState returns the state of a session in the store at root (the
// .ctx directory). It creates nothing.
func OpenState(root, session string) *State {
	return &State{Dir: filepath.Join(root, filepath.FromSlash(StateDir), StateKey(session)), Session: session}
}

// StateKey returns the directory name of a session's state.
func StateKey(session string) string {
	if session == "" {
		return "unknown"
	}
	ok := len(session) <= 100 && isAlnum(session[0])
	for i := 0; ok && i < len(session); i++ {
		c := session[i]
		ok = isAlnum(c) || c == '.' || c == '_' || c == '-'
	}
	if ok {
		return session
	}
	sum := sha256.Sum256([]byte(session))
	return "h-" + hex.EncodeToString(sum[:16])
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Task returns the session's current task, "" for none.
func (s *State) Task() (string, error) { return s.readLine("task") }

// SetTask sets the current task; "" clears it.
func (s *State) SetTask(name string) error { return s.writeLine("task", name) }

// Cursor returns the uuid of the last transcript entry handled.
func (s *State) Cursor() (string, error) { return s.readLine("cursor") }

// SetCursor records the last transcript entry handled.
func (s *State) SetCursor(uuid string) error { return s.writeLine("cursor", uuid) }

func (s *State) readLine(name string) (string, error) {
	b, err := regfile.Read(filepath.Join(s.Dir, name), 4096)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrInvalidState, name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

func (s *State) writeLine(name, v string) error {
	p := filepath.Join(s.Dir, name)
	if v == "" {
		return atomicfile.Remove(p)
	}
	if strings.ContainsAny(v, "\n\r\x00") {
		return fmt.Errorf("%w: %s %q is not one line", ErrInvalidInput, name, v)
	}
	if err := atomicfile.MkdirAll(s.Dir); err != nil {
		return err
	}
	return atomicfile.Write(p, []byte(v+"\n"), 0o644)
}

// Push adds pending items, in order; now names them, seq tells apart
// items pushed at one instant (a fixed clock), rnd (8 hex digits) items
// pushed by two processes at one instant.
func (s *State) Push(now time.Time, rnd string, items ...Item) error {
	if len(items) == 0 {
		return nil
	}
	dir := filepath.Join(s.Dir, "pending")
	if err := atomicfile.MkdirAll(dir); err != nil {
		return err
	}
	for i, it := range items {
		it.Version = StateVersion
		if it.Created.IsZero() {
			it.Created = now.UTC()
		}
		b, err := json.Marshal(it)
		if err != nil {
			return fmt.Errorf("hook: encode pending item: %w", err)
		}
		name := fmt.Sprintf("%016x-%04d-%s.json", now.UnixNano(), i, rnd)
		if err := atomicfile.Write(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// HasPending reports whether the session has pending items, without
// claiming them: a cheap check.
func (s *State) HasPending() bool {
	names, _ := s.pendingNames()
	return len(names) > 0
}

func (s *State) pendingNames() ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(s.Dir, "pending"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hook: %w", err)
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".json") && e.Type().IsRegular() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Claim takes the session's pending items, oldest first, and removes
// them: each is returned by exactly one Claim. Items that do not decode
// are removed and reported in bad.
func (s *State) Claim() (items []Item, bad []string, err error) {
	names, err := s.pendingNames()
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(s.Dir, "pending")
	for _, n := range names {
		p := filepath.Join(dir, n)
		claimed := p + ".claimed.tmp"
		if err := os.Rename(p, claimed); err != nil {
			continue // another hook took it
		}
		b, rerr := regfile.Read(claimed, 16<<20)
		_ = os.Remove(claimed)
		var it Item
		if rerr != nil || json.Unmarshal(b, &it) != nil || it.Version != StateVersion {
			bad = append(bad, n)
			continue
		}
		items = append(items, it)
	}
	if len(names) > 0 {
		_ = atomicfile.SyncDir(dir)
	}
	return items, bad, nil
}

// GC removes the states of sessions not changed since before, and the
// temporary files of claims a crash interrupted. It stops after max
// sessions, so that it stays quick (SessionEnd is killed after ~1.5 s).
func GC(root string, before time.Time, max int) (removed int, err error) {
	base := filepath.Join(root, filepath.FromSlash(StateDir))
	ents, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("hook: %w", err)
	}
	for i, e := range ents {
		if i >= max {
			break
		}
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(base, e.Name())
		if newest(dir).Before(before) {
			if os.RemoveAll(dir) == nil {
				removed++
			}
		}
	}
	if removed > 0 {
		err = atomicfile.SyncDir(base)
	}
	return removed, err
}

// newest returns the latest modification time of dir and what it holds,
// one level down (pending/).
func newest(dir string) time.Time {
	var t time.Time
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(t) {
			t = info.ModTime()
		}
		return nil
	})
	return t
}
