package workset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/object"
)

// FormatVersion is the version of every working-set state file (files and
// sessions), written as "version" in each. Readers refuse other versions.
//
// Changes:
//   - 1: first version.
const FormatVersion = 1

// MaxFileSize is the largest file the indexing protocol reads (8 MiB).
const MaxFileSize = 8 << 20

// Outcome is what the indexing protocol did to a file object (seed §5.6).
type Outcome int

// The outcomes; the zero value is invalid.
const (
	_ Outcome = iota
	Created
	Updated
	Unchanged
)

// String returns "created", "updated" or "unchanged".
func (o Outcome) String() string {
	switch o {
	case Created:
		return "created"
	case Updated:
		return "updated"
	case Unchanged:
		return "unchanged"
	}
	return "invalid"
}

// MarshalText writes the outcome's name.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an outcome's name, as a client of --json output
// does.
func (o *Outcome) UnmarshalText(b []byte) error {
	for _, x := range []Outcome{Created, Updated, Unchanged} {
		if string(b) == x.String() {
			*o = x
			return nil
		}
	}
	return fmt.Errorf("%w: outcome %q", ErrInvalid, b)
}

// File is a file object: its identity, its source and its versions, oldest
// first. It is stored as files/<ID>.json.
type File struct {
	Version  int           `json:"version"`
	ID       ID            `json:"id"`
	Type     string        `json:"type"` // "file"
	Source   Source        `json:"source"`
	Versions []FileVersion `json:"versions"`
}

// FileVersion is one version of a file object.
type FileVersion struct {
	// N counts the versions from 1.
	N    int       `json:"n"`
	Time time.Time `json:"time"`
	// Deleted marks the version written when the file was found gone:
	// content and hashes null.
	Deleted bool `json:"deleted,omitempty"`
	// Binary marks a file that is not UTF-8 text (or holds NUL bytes): its
	// file hash is set, its content null.
	Binary bool `json:"binary,omitempty"`
	// FileHash is BLAKE3-256 of the file's bytes; null for a discovery
	// stub or a deleted file.
	FileHash *ID `json:"file_hash"`
	// ContentHash is BLAKE3-256 of the stored content; null when the
	// content is null.
	ContentHash *ID `json:"content_hash"`
	// Blob is the object of the working set's store holding the content.
	Blob         *object.ID `json:"blob"`
	FileType     string     `json:"file_type"`
	CharCount    int        `json:"char_count"`
	MetadataHash ID         `json:"metadata_hash"`
	ObjectHash   ID         `json:"object_hash"`
}

// Stub reports whether the version is a discovery stub: never read.
func (v *FileVersion) Stub() bool { return v.FileHash == nil && !v.Deleted }

// Latest returns the newest version.
func (f *File) Latest() *FileVersion { return &f.Versions[len(f.Versions)-1] }

func newVersion(n int, now time.Time, ft string, fileHash, contentHash *ID, blob *object.ID, chars int) FileVersion {
	meta := metadataHash(ft, chars)
	return FileVersion{N: n, Time: now.UTC(), FileHash: fileHash, ContentHash: contentHash, Blob: blob,
		FileType: ft, CharCount: chars, MetadataHash: meta, ObjectHash: objectHash(fileHash, contentHash, meta)}
}

func (s *Store) filePath(id ID) string {
	return filepath.Join(s.dir, "files", id.String()+".json")
}

// File returns the file object id; ErrNotFound wrapped when there is none.
func (s *Store) File(id ID) (*File, error) {
	b, err := regfile.Read(s.filePath(id), 64<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: file object %s", ErrNotFound, id.Short())
	}
	if err != nil {
		return nil, fmt.Errorf("workset: %w", err)
	}
	f, err := decodeFile(b)
	if err != nil {
		return nil, err
	}
	if f.ID != id || FileID(f.Source) != id {
		return nil, fmt.Errorf("%w: files/%s.json: id does not match its source", ErrState, id)
	}
	return f, nil
}

func decodeFile(b []byte) (*File, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: file object: %w", ErrState, err)
	}
	if f.Version != FormatVersion {
		return nil, fmt.Errorf("%w: file object of version %d (this ctx reads %d)", ErrState, f.Version, FormatVersion)
	}
	if f.Type != "file" || len(f.Versions) == 0 || f.Source.Type != SourceFilesystem {
		return nil, fmt.Errorf("%w: file object %s: bad type, source or no versions", ErrState, f.ID.Short())
	}
	return &f, nil
}

func (s *Store) putFile(f *File) error {
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return fmt.Errorf("workset: encode file object: %w", err)
	}
	if err := atomicfile.MkdirAll(filepath.Join(s.dir, "files")); err != nil {
		return err
	}
	if err := atomicfile.Write(s.filePath(f.ID), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fault.Hit("workset.file-written")
	return nil
}

// lookup returns the file object of id, or nil when there is none.
func (s *Store) lookup(id ID) (*File, error) {
	f, err := s.File(id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return f, err
}

// Index runs the full indexing protocol (seed §5.6) for src with the
// file's bytes data: created when the object is new, updated when it was a
// stub, deleted or held other bytes, unchanged when the file hash matches.
// It changes no session.
func (s *Store) Index(src Source, data []byte) (*File, Outcome, error) {
	id := FileID(src)
	f, err := s.lookup(id)
	if err != nil {
		return nil, 0, err
	}
	fh := hashBytes(data)
	if f != nil {
		if l := f.Latest(); l.FileHash != nil && *l.FileHash == fh {
			return f, Unchanged, nil
		}
	}
	ft := fileType(src.Path)
	var v FileVersion
	now := s.clock.Now()
	n := 1
	if f != nil {
		n = len(f.Versions) + 1
	}
	if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		blobs, err := s.blobs(true)
		if err != nil {
			return nil, 0, err
		}
		bid, err := blobs.Put(object.KindBlob, data)
		if err != nil {
			return nil, 0, fmt.Errorf("workset: store content of %s: %w", src.Path, err)
		}
		fault.Hit("workset.blob-written")
		ch := fh
		v = newVersion(n, now, ft, &fh, &ch, &bid, utf8.RuneCount(data))
	} else {
		v = newVersion(n, now, ft, &fh, nil, nil, 0)
		v.Binary = true
		v.ObjectHash = objectHash(&fh, nil, v.MetadataHash)
	}
	out := Updated
	if f == nil {
		f = &File{Version: FormatVersion, ID: id, Type: "file", Source: src}
		out = Created
	}
	f.Versions = append(f.Versions, v)
	return f, out, s.putFile(f)
}

// Discover runs the discovery protocol (seed §5.6) for src: a stub is
// created when there is no object yet; an existing object is never
// changed.
func (s *Store) Discover(src Source) (*File, Outcome, error) {
	id := FileID(src)
	f, err := s.lookup(id)
	if err != nil || f != nil {
		return f, Unchanged, err
	}
	ft := fileType(src.Path)
	f = &File{Version: FormatVersion, ID: id, Type: "file", Source: src,
		Versions: []FileVersion{newVersion(1, s.clock.Now(), ft, nil, nil, nil, 0)}}
	return f, Created, s.putFile(f)
}

// Tombstone records that src's file is gone: a version with null content
// (seed §1.3: history is never erased). It is unchanged when the newest
// version already says so, and ErrNotFound when there is no object.
func (s *Store) Tombstone(src Source) (*File, Outcome, error) {
	id := FileID(src)
	f, err := s.File(id)
	if err != nil {
		return nil, 0, err
	}
	if f.Latest().Deleted {
		return f, Unchanged, nil
	}
	v := newVersion(len(f.Versions)+1, s.clock.Now(), fileType(src.Path), nil, nil, nil, 0)
	v.Deleted = true
	f.Versions = append(f.Versions, v)
	return f, Updated, s.putFile(f)
}

// Content returns the text of a version; nil for a stub, a deleted or a
// binary file. The blob is verified on read.
func (s *Store) Content(v *FileVersion) ([]byte, error) {
	if v.Blob == nil {
		return nil, nil
	}
	return s.blob(*v.Blob)
}
