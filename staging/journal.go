package staging

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/object"
)

// DirName is the directory of the session journals inside .ctx/.
const DirName = "sessions"

// MaxIDLen bounds a session ID.
const MaxIDLen = 64

// maxJournal bounds what is read of a journal: 16 MiB is about 250,000
// steps, far beyond any session that is ever compacted.
const maxJournal = 16 << 20

// ErrInvalidID means a string is not a session ID.
var ErrInvalidID = errors.New("staging: invalid session id")

// ValidID checks a session ID: 1 to 64 characters of a–z, 0–9, '.', '_'
// and '-', starting with a letter or digit. IDs are file names under
// .ctx/sessions/ on every file system git runs on, hence lowercase only.
func ValidID(id string) error {
	if id == "" || len(id) > MaxIDLen {
		return fmt.Errorf("%w: %q: want 1 to %d characters", ErrInvalidID, id, MaxIDLen)
	}
	for i, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || i > 0 && (r == '.' || r == '_' || r == '-')
		if !ok {
			return fmt.Errorf("%w: %q: use a-z, 0-9, '.', '_' and '-', starting with a letter or digit", ErrInvalidID, id)
		}
	}
	stem, _, _ := strings.Cut(id, ".")
	switch {
	case stem == "con" || stem == "prn" || stem == "aux" || stem == "nul",
		len(stem) == 4 && (strings.HasPrefix(stem, "com") || strings.HasPrefix(stem, "lpt")) && stem[3] >= '1' && stem[3] <= '9':
		return fmt.Errorf("%w: %q: a name Windows reserves for a device", ErrInvalidID, id)
	}
	return nil
}

// NewID makes a session ID from the task: up to five of its words in
// lowercase, the date, and six random hex digits so that two sessions
// started for the same task never share an ID ("fix-timeout-handling-
// 20261122-3f9a1c").
func NewID(task string, now time.Time, random io.Reader) (string, error) {
	var words []string
	for _, f := range strings.FieldsFunc(strings.ToLower(task), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(words) == 5 {
			break
		}
		words = append(words, f)
	}
	slug := strings.Join(words, "-")
	if len(slug) > 32 {
		slug = strings.TrimRight(slug[:32], "-")
	}
	var rnd [3]byte
	if random == nil {
		random = rand.Reader
	}
	if _, err := io.ReadFull(random, rnd[:]); err != nil {
		return "", fmt.Errorf("staging: session id: %w", err)
	}
	id := now.UTC().Format("20060102") + "-" + hex.EncodeToString(rnd[:])
	if slug != "" {
		id = slug + "-" + id
	}
	return id, nil
}

// Path returns the journal of session id in the store whose .ctx
// directory is root.
func Path(root, id string) string { return filepath.Join(root, DirName, id) }

// Journal is what a session journal holds: the states it names, in the
// order they were appended.
type Journal struct {
	// States are the IDs of the well-formed lines, oldest first.
	States []object.ID
	// Damaged counts lines that are not an ID (a damaged file).
	Damaged int
	// Torn is set when the file ends in a partial line: a crash while
	// appending a state that was never reported as written.
	Torn bool
}

// Last returns the newest state, and false for a journal without one.
func (j *Journal) Last() (object.ID, bool) {
	if len(j.States) == 0 {
		return object.Zero, false
	}
	return j.States[len(j.States)-1], true
}

// ParseJournal reads a journal's bytes: lines of 64 lowercase hex digits.
// It never fails: what is not an ID is counted, so that recovery can go
// back to the newest state that is.
func ParseJournal(data []byte) *Journal {
	j := &Journal{}
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		data = rest
		if !complete {
			j.Torn = true
			break
		}
		id, err := object.ParseID(string(line))
		if err != nil || string(line) != id.String() {
			j.Damaged++
			continue
		}
		j.States = append(j.States, id)
	}
	return j
}

// ReadJournal reads session id's journal; fs.ErrNotExist when there is no
// such session.
func ReadJournal(root, id string) (*Journal, error) {
	if err := ValidID(id); err != nil {
		return nil, err
	}
	data, err := regfile.Read(Path(root, id), maxJournal)
	if err != nil {
		return nil, fmt.Errorf("staging: session %s: %w", id, err)
	}
	return ParseJournal(data), nil
}

// Append adds state to session id's journal, creating it, and returns
// when the line is durable (fsync of the file, and of the directory when
// the file is new). A torn last line, left by a crash, is cut off first.
// The caller holds the store's writer lock: appends never interleave.
func Append(root, id string, state object.ID) error {
	if err := ValidID(id); err != nil {
		return err
	}
	dir := filepath.Join(root, DirName)
	if err := atomicfile.MkdirAll(dir); err != nil {
		return fmt.Errorf("staging: %w", err)
	}
	p := Path(root, id)
	_, statErr := os.Lstat(p)
	created := errors.Is(statErr, fs.ErrNotExist)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("staging: session %s: %w", id, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("staging: session %s: %w", id, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("staging: session %s: %s is not a regular file", id, p)
	}
	end := st.Size()
	if end > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, end-1); err != nil {
			return fmt.Errorf("staging: session %s: %w", id, err)
		}
		if last[0] != '\n' { // a torn tail: cut it back to the last newline
			data, err := regfile.Read(p, maxJournal)
			if err != nil {
				return fmt.Errorf("staging: session %s: %w", id, err)
			}
			end = int64(bytes.LastIndexByte(data, '\n') + 1)
			if err := f.Truncate(end); err != nil {
				return fmt.Errorf("staging: session %s: %w", id, err)
			}
		}
	}
	if _, err := f.WriteAt([]byte(state.String()+"\n"), end); err != nil {
		return fmt.Errorf("staging: session %s: %w", id, err)
	}
	fault.Hit("staging.journal-written")
	if err := f.Sync(); err != nil {
		return fmt.Errorf("staging: session %s: %w", id, err)
	}
	if created {
		if err := atomicfile.SyncDir(dir); err != nil {
			return fmt.Errorf("staging: %w", err)
		}
	}
	fault.Hit("staging.journal-synced")
	return nil
}

// Rewrite replaces session id's journal by the given states, atomically
// (temporary file, fsync, rename): recovery drops the lines it gave up.
func Rewrite(root, id string, states []object.ID) error {
	if err := ValidID(id); err != nil {
		return err
	}
	var b strings.Builder
	for _, s := range states {
		b.WriteString(s.String() + "\n")
	}
	if err := atomicfile.Write(Path(root, id), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("staging: session %s: %w", id, err)
	}
	return nil
}

// Remove deletes session id's journal, durably.
func Remove(root, id string) error {
	if err := ValidID(id); err != nil {
		return err
	}
	if err := atomicfile.Remove(Path(root, id)); err != nil {
		return fmt.Errorf("staging: remove session %s: %w", id, err)
	}
	return nil
}

// List returns the IDs of the sessions that have a journal, sorted.
// Files whose names are not session IDs (temporary files, an editor's
// backups) are not sessions and are left out.
func List(root string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(root, DirName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("staging: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && ValidID(e.Name()) == nil {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out, nil
}

// Title shortens a task to one line of at most n runes, for listings.
func Title(task string, n int) string {
	s := strings.Join(strings.FieldsFunc(task, unicode.IsSpace), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
