// Package formatcheck is an independent validator of a ctx store, written
// from docs/FORMAT.md alone (format version 1). It imports nothing of the
// ctx module: it exists to prove that the specification suffices to read,
// check and write a store.
package formatcheck

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/blake3"
)

// Error codes of FORMAT.md §13.
var codeNames = map[string]string{
	"E001": "ObjectNotFound",
	"E002": "HashMismatch",
	"E003": "InvalidEnvelope",
	"E004": "DeserializationFailed",
	"E005": "RefNotFound",
	"E006": "LockConflict",
	"E007": "IndexCorrupt",
	"E008": "StagingConflict",
	"E009": "CommitOrphan",
	"E010": "BudgetExceeded",
	"E011": "StoreNotFound",
	"E012": "StoreExists",
	"E013": "RefConflict",
	"E014": "RefDiverged",
	"E015": "InvalidArgument",
	"E016": "ConfigInvalid",
	"E017": "AmbiguousID",
	"E018": "RefCorrupt",
}

// Problem is one violation of the format, classified by its error code.
type Problem struct {
	Code    string // E001…E018
	Name    string // the code's name, e.g. HashMismatch
	Path    string // the file concerned, relative to the store ("" if none)
	Message string
}

func (p Problem) String() string {
	if p.Path == "" {
		return fmt.Sprintf("%s %s: %s", p.Code, p.Name, p.Message)
	}
	return fmt.Sprintf("%s %s: %s: %s", p.Code, p.Name, p.Path, p.Message)
}

// Ref is one ref and its heads (sorted).
type Ref struct {
	Name  string // refs/NAME
	Heads []string
	// Effective are the heads that are not ancestors (through commit
	// parents) of another head (§6.1); more than one: the ref is diverged.
	Effective []string
}

// Report is the result of Validate.
type Report struct {
	// Objects counts the intact objects of objects/ (those that pass every
	// step of FORMAT.md §3.2, including the typed object's schema): Blobs
	// of them are blobs and Typed[name] are typed objects of type name.
	// Derived objects (DERIVED/objects/, §4.7) are not counted.
	Objects int
	Blobs   int
	Typed   map[string]int
	// Refs lists every ref directory (a directory refs/NAME/ whose NAME is
	// a valid ref name) that holds at least one head file, sorted by name.
	// A directory whose path is not a valid ref name is no ref: it is a
	// problem (E018) and is not listed.
	Refs []Ref
	// HEAD is the ref HEAD names ("refs/main"), if HEAD is well-formed.
	HEAD string
	// STAGE is the ID in STAGE, if the file exists and is well-formed.
	STAGE string
	// SccView is the ID DERIVED/scc_latest holds, if it names an intact
	// and consistent scc_view in DERIVED/objects/ (§4.7).
	SccView  string
	Problems []Problem
	Warnings []string
}

// OK reports whether no problem was found (warnings allowed).
func (r Report) OK() bool { return len(r.Problems) == 0 }

// Codes returns the distinct error codes of the problems, sorted.
func (r Report) Codes() []string {
	seen := map[string]bool{}
	var cs []string
	for _, p := range r.Problems {
		if !seen[p.Code] {
			seen[p.Code] = true
			cs = append(cs, p.Code)
		}
	}
	sort.Strings(cs)
	return cs
}

// Object kinds of the envelope (§3.1).
const (
	KindBlob  = 0x01
	KindTyped = 0x02
)

// Magic is the envelope magic of format version 1.
const Magic = "CTXO1"

// Canonical returns the canonical bytes of an object (§3.1).
func Canonical(kind byte, payload []byte) []byte {
	b := make([]byte, 0, 14+len(payload))
	b = append(b, Magic...)
	b = append(b, kind)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
	return append(b, payload...)
}

// ID returns the ID of canonical bytes: BLAKE3-256, lowercase hex (§3.1).
func ID(canonical []byte) string {
	sum := blake3.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// ObjectPath is the path of an object file relative to the store (§3.2).
func ObjectPath(id string) string { return "objects/" + id[:2] + "/" + id }

// WriteObject stores an object, following §3.2 and §10: a zstd stream of
// the canonical bytes, compressed as CompressObject does at the level of
// the store's config.toml, written to a .tmp file in the shard, synced,
// renamed into place, mode 0444. It returns the object's ID.
func WriteObject(storeDir string, kind byte, payload []byte) (string, error) {
	level, err := CompressionLevel(storeDir)
	if err != nil {
		return "", err
	}
	canon := Canonical(kind, payload)
	id := ID(canon)
	data, err := CompressObject(canon, level)
	if err != nil {
		return "", err
	}
	return id, writeObjectFile(storeDir, id, data)
}

// streamAbove is the payload size above which ctx compresses with a
// streaming encoder rather than EncodeAll (§3.2).
const streamAbove = 8 << 20

// CompressObject returns the object file content for canonical bytes that
// §3.2 asks writers sharing a store through git to produce: the encoder of
// github.com/klauspost/compress/zstd at EncoderLevelFromZstd(level) with
// its default options (one frame with the content size and a checksum),
// from EncodeAll for payloads up to 8 MiB and from a streaming Encoder with
// ResetContentSize above. The level is compression_level with 0 replaced
// by 3 (§3.2; EncoderLevelFromZstd(0) itself would be SpeedFastest).
func CompressObject(canon []byte, level int) ([]byte, error) {
	if level == 0 {
		level = 3
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)))
	if err != nil {
		return nil, err
	}
	if len(canon)-14 <= streamAbove {
		data := enc.EncodeAll(canon, nil)
		_ = enc.Close()
		return data, nil
	}
	var buf bytes.Buffer
	enc.ResetContentSize(&buf, int64(len(canon)))
	if _, err := enc.Write(canon); err != nil {
		_ = enc.Close()
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// CompressionLevel returns storage.compression_level of the store's
// config.toml (§8): 3 when the key is absent.
func CompressionLevel(storeDir string) (int, error) {
	p := filepath.Join(storeDir, "config.toml")
	if st, err := os.Stat(p); err != nil {
		return 0, fmt.Errorf("E016 ConfigInvalid: %w", err)
	} else if !st.Mode().IsRegular() {
		return 0, errors.New("E016 ConfigInvalid: config.toml is not a regular file")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return 0, fmt.Errorf("E016 ConfigInvalid: %w", err)
	}
	var c config
	if _, err := toml.Decode(string(data), &c); err != nil {
		return 0, fmt.Errorf("E016 ConfigInvalid: %w", err)
	}
	if l := c.Storage.CompressionLevel; l != nil {
		if *l < 0 || *l > 22 {
			return 0, fmt.Errorf("E016 ConfigInvalid: storage.compression_level %d is outside 0-22", *l)
		}
		return int(*l), nil
	}
	return 3, nil
}

// WriteRawObjectFile stores data as the file of object id, as is (tests
// use it to store damaged or hand-made object files).
func WriteRawObjectFile(storeDir, id string, data []byte) error {
	return writeObjectFile(storeDir, id, data)
}

func writeObjectFile(storeDir, id string, data []byte) error {
	final := filepath.Join(storeDir, filepath.FromSlash(ObjectPath(id)))
	shard := filepath.Dir(final)
	if err := os.MkdirAll(shard, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(final); err == nil {
		return nil // objects are immutable: already there
	}
	f, err := os.CreateTemp(shard, id+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o444); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	if d, err := os.Open(shard); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// ErrNotStore is returned when storeDir is not a store (§2; E011).
var ErrNotStore = errors.New("E011 StoreNotFound: not a ctx store (needs a directory objects/ and a regular file HEAD)")

// maxTypedPayload: §3.2 lets a reader refuse to hold a payload of more
// than 512 MiB in memory; like ctx, formatcheck streams blobs of any size
// (hashing them as they are decompressed) and refuses a larger typed
// object (E004).
const maxTypedPayload = 512 << 20

// maxNesting is the deepest nesting of arrays and maps (§4.1: "at most 64
// levels deep"; the top-level map is level 1, every array or map inside
// adds one).
const maxNesting = 64

var (
	hexID   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	anyHex  = regexp.MustCompile(`^[0-9A-Fa-f]{64}$`)
	shardRe = regexp.MustCompile(`^[0-9a-f]{2}$`)
	typeRe  = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)
	elemRe  = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
)

const zeroID = "0000000000000000000000000000000000000000000000000000000000000000"

// area is a directory of object files laid out as §3.2 describes: the
// store's objects/, or DERIVED/objects/, which holds derived objects (§2,
// §4.7).
type area struct {
	rel     string // "objects" or "DERIVED/objects"
	objects map[string]*object
	// derived: the objects are derived views, local and rebuildable. A
	// reader MUST recompute a damaged view (§4.7), so damage there is no
	// problem of the store: it is reported as a warning, and the objects
	// are not counted.
	derived bool
}

// object is what the walk learnt about one object file.
type object struct {
	path     string
	ok       bool // passed every check of §3.2 and the schema
	kind     byte
	typeName string
	refs     []reference
	facts    facts
}

// facts are what the checks that span several objects (§4.3, §4.8) need
// of an intact typed object.
type facts struct {
	entries  []entry // tree: its entries
	rootTree string  // commit: root_tree
	semantic string  // commit: semantic_snapshot, "" when absent
	path     string  // file_version: path
	blob     string  // file_version: blob
}

// entry is one entry of a tree (§4.3).
type entry struct {
	name, kind, id string
}

// reference is one reference of §4.6 held by a typed object.
type reference struct {
	field string
	id    string
	want  string // a type name ("commit", "tree", …), "blob", "typed" or "any"
	code  string // code when the target is missing: E001, or E009 for commit parents
}

type validator struct {
	dir     string
	rep     *Report
	objects map[string]*object // objects/
	derived map[string]*object // DERIVED/objects/
	dec     *zstd.Decoder
}

func (v *validator) problem(code, p, format string, a ...any) {
	v.rep.Problems = append(v.rep.Problems, Problem{Code: code, Name: codeNames[code], Path: p,
		Message: fmt.Sprintf(format, a...)})
}

func (v *validator) warn(format string, a ...any) {
	v.rep.Warnings = append(v.rep.Warnings, fmt.Sprintf(format, a...))
}

// objProblem reports a problem of an object file of area a: a problem of
// the store for objects/, a warning for a derived object (§4.7).
func (v *validator) objProblem(a *area, code, p, format string, args ...any) {
	if !a.derived {
		v.problem(code, p, format, args...)
		return
	}
	v.warn("%s: %s %s: %s (a derived object: readers recompute it, §4.7)", p, code, codeNames[code],
		fmt.Sprintf(format, args...))
}

// ResolveStore returns the store directory of dir: dir itself if it is a
// store, else dir/.ctx if that is one. A store contains a directory
// objects/ and a regular file HEAD (§2).
func ResolveStore(dir string) (string, error) {
	for _, d := range []string{dir, filepath.Join(dir, ".ctx")} {
		st, err1 := os.Stat(filepath.Join(d, "objects"))
		hd, err2 := os.Stat(filepath.Join(d, "HEAD"))
		if err1 == nil && err2 == nil && st.IsDir() && hd.Mode().IsRegular() {
			return d, nil
		}
	}
	return "", ErrNotStore
}

// Validate checks the store at storeDir (a .ctx directory, or a project
// directory containing one) against FORMAT.md: config.toml (§8) first,
// and if it is missing or invalid nothing else (§12); otherwise every
// object (§3.2, §4.1, schemas of §4.2–§4.13), every reference (§4.6), the
// trees below every commit's root_tree and semantic_snapshot (§4.3,
// §4.8), every file and directory under refs/ (§6.1), HEAD (§6.2) and
// STAGE (§6.3); and DERIVED/ (§2, §4.7), whose damage is reported as
// warnings. The error is non-nil only when the store cannot be checked at
// all (not a store, I/O error).
func Validate(storeDir string) (Report, error) {
	dir, err := ResolveStore(storeDir)
	if err != nil {
		return Report{}, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return Report{}, err
	}
	defer dec.Close()
	rep := Report{Typed: map[string]int{}}
	v := &validator{dir: dir, rep: &rep, objects: map[string]*object{}, derived: map[string]*object{}, dec: dec}
	// §12: a store whose config.toml is missing or invalid is refused as a
	// whole (E016) before anything else is checked.
	if err := v.checkConfig(); err != nil {
		return rep, err
	}
	if len(rep.Problems) > 0 {
		return rep, nil
	}
	if err := v.walkArea(&area{rel: "objects", objects: v.objects}); err != nil {
		return rep, err
	}
	v.checkReferences()
	v.checkCommitTrees()
	if err := v.checkDerived(); err != nil {
		return rep, err
	}
	if err := v.walkRefs(); err != nil {
		return rep, err
	}
	if err := v.checkHEAD(); err != nil {
		return rep, err
	}
	if err := v.checkSTAGE(); err != nil {
		return rep, err
	}
	if err := v.checkSessions(); err != nil {
		return rep, err
	}
	v.checkTemps()
	sort.SliceStable(rep.Problems, func(i, j int) bool {
		a, b := rep.Problems[i], rep.Problems[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Code < b.Code
	})
	sort.Strings(rep.Warnings)
	return rep, nil
}

// ---------------------------------------------------------------- objects

// walkArea reads every object file of a (§3.2).
func (v *validator) walkArea(a *area) error {
	root := filepath.Join(v.dir, filepath.FromSlash(a.rel))
	ents, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		rel := a.rel + "/" + name
		switch {
		case strings.HasSuffix(name, ".tmp") && !e.IsDir():
			// reported by checkTemps
		case shardRe.MatchString(name) && isDir(filepath.Join(root, name), e):
			if err := v.walkShard(a, name); err != nil {
				return err
			}
		default:
			v.warn("%s: unexpected file in %s/ (not an object)", rel, a.rel)
		}
	}
	return nil
}

// isDir reports whether the entry e of a directory is a directory,
// following a symbolic link.
func isDir(p string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func (v *validator) walkShard(a *area, shard string) error {
	ents, err := os.ReadDir(filepath.Join(v.dir, filepath.FromSlash(a.rel), shard))
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		rel := a.rel + "/" + shard + "/" + name
		switch {
		case strings.HasSuffix(name, ".tmp") && !e.IsDir():
			// reported by checkTemps
		case hexID.MatchString(name) && name[:2] == shard:
			// Read by its path, whatever it is (§3.2): a dangling link is
			// missing, a directory or FIFO does not decompress.
			v.readObject(a, name)
		default:
			v.warn("%s: unexpected file in %s/ (not an object)", rel, a.rel)
		}
	}
	return nil
}

// collector keeps the envelope header of a decompressed object and, for a
// typed object, its payload up to the limit; it counts every byte.
type collector struct {
	buf []byte
	n   int64
}

func (c *collector) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	q := p
	if len(c.buf) < 14 {
		k := min(14-len(c.buf), len(q))
		c.buf = append(c.buf, q[:k]...)
		q = q[k:]
	}
	if len(c.buf) >= 14 && c.buf[5] == KindTyped && len(c.buf) < 14+maxTypedPayload+1 {
		k := min(14+maxTypedPayload+1-len(c.buf), len(q))
		c.buf = append(c.buf, q[:k]...)
	}
	return len(p), nil
}

// readObject applies the reading procedure of §3.2 to one object file,
// decompressing it as a stream so that blobs of any size are checked.
func (v *validator) readObject(a *area, id string) {
	rel := a.rel + "/" + id[:2] + "/" + id
	o := &object{path: rel}
	a.objects[id] = o
	p := filepath.Join(v.dir, filepath.FromSlash(rel))
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		v.objProblem(a, "E001", rel, "does not exist (a dangling symbolic link)")
		return
	}
	if err == nil && !st.Mode().IsRegular() {
		// Not opened, so that a FIFO cannot block the reader.
		v.objProblem(a, "E002", rel, "not a regular file: does not decompress")
		return
	}
	f, err := os.Open(p)
	if err != nil {
		v.objProblem(a, "E001", rel, "cannot read: %v", err)
		return
	}
	defer f.Close()
	if err := v.dec.Reset(f); err != nil {
		v.objProblem(a, "E002", rel, "cannot decompress: %v", err)
		return
	}
	h := blake3.New()
	c := &collector{}
	if _, err := io.Copy(io.MultiWriter(h, c), v.dec); err != nil {
		v.objProblem(a, "E002", rel, "cannot decompress: %v", err)
		return
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != id {
		v.objProblem(a, "E002", rel, "content hashes to %s", got)
		return
	}
	canon := c.buf
	if c.n < 14 {
		v.objProblem(a, "E003", rel, "%d bytes: shorter than the 14-byte envelope header", c.n)
		return
	}
	if string(canon[:5]) != Magic {
		v.objProblem(a, "E003", rel, "magic %q, want %q", canon[:5], Magic)
		return
	}
	kind := canon[5]
	if kind != KindBlob && kind != KindTyped {
		v.objProblem(a, "E003", rel, "kind %d, want 1 (blob) or 2 (typed)", kind)
		return
	}
	if n := binary.LittleEndian.Uint64(canon[6:14]); n != uint64(c.n-14) {
		v.objProblem(a, "E003", rel, "declared payload length %d, actual %d", n, c.n-14)
		return
	}
	if kind == KindTyped && c.n-14 > maxTypedPayload {
		// §3.2: a reader MAY refuse to hold it; ctx does, with E004.
		v.objProblem(a, "E004", rel, "typed payload of %d bytes: larger than 512 MiB, refused", c.n-14)
		return
	}
	o.kind = kind
	if kind == KindBlob {
		o.ok = true
		if !a.derived {
			v.rep.Objects++
			v.rep.Blobs++
		}
		return
	}
	item, err := DecodeStrict(canon[14:])
	if err != nil {
		v.objProblem(a, "E004", rel, "payload: %v", err)
		return
	}
	tn, s, err := parseTyped(item)
	if err != nil {
		v.objProblem(a, "E004", rel, "%v", err)
		return
	}
	for _, w := range s.warns {
		v.warn("%s: %s", rel, w)
	}
	o.ok, o.typeName, o.refs, o.facts = true, tn, s.refs, s.facts
	if a.derived {
		return
	}
	if tn == "scc_view" {
		// §4.7: a derived object is stored under DERIVED/objects/, never in
		// objects/. Where it is, it is still a valid object of a known
		// type; §12 names no code for it, so it is a warning.
		v.warn("%s: an scc_view in objects/ (derived objects belong in DERIVED/objects/, §4.7)", rel)
	}
	v.rep.Objects++
	v.rep.Typed[tn]++
}

// checkReferences applies §4.6 to every intact typed object.
func (v *validator) checkReferences() {
	ids := make([]string, 0, len(v.objects))
	for id := range v.objects {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		o := v.objects[id]
		if !o.ok {
			continue
		}
		for _, r := range o.refs {
			t, present := v.objects[r.id]
			if !present {
				if r.code == "E009" {
					v.problem("E009", o.path, "%s %s: parent commit is missing", r.field, r.id)
				} else {
					v.problem("E001", o.path, "%s %s is missing", r.field, r.id)
				}
				continue
			}
			if !t.ok {
				continue // the target's own problem is reported at its path
			}
			if !kindMatches(t, r.want) {
				v.problem("E004", o.path, "%s %s is a %s, want a %s", r.field, r.id, describe(t), r.want)
			}
		}
	}
}

func describe(o *object) string {
	if o.kind == KindBlob {
		return "blob"
	}
	return o.typeName
}

func kindMatches(o *object, want string) bool {
	switch want {
	case "any":
		return true
	case "blob":
		return o.kind == KindBlob
	case "typed":
		return o.kind == KindTyped
	}
	return o.kind == KindTyped && o.typeName == want
}

// ---------------------------------------------------------------- schemas

// schema collects the references, warnings and facts of one typed
// object.
type schema struct {
	refs  []reference
	warns []string
	facts facts
}

// body checks that v is a map with text keys, reports unknown keys as
// warnings and returns a lookup function.
func (s *schema) body(where string, v Value, known ...string) (func(string) (Value, bool), error) {
	if v.Kind != KMap {
		return nil, fmt.Errorf("%s: not a map", where)
	}
	k := map[string]bool{}
	for _, n := range known {
		k[n] = true
	}
	for _, p := range v.M {
		if p.K.Kind != KText {
			return nil, fmt.Errorf("%s: a key is not a text string", where)
		}
		if !k[p.K.S] {
			s.warns = append(s.warns, fmt.Sprintf("%s: unknown field %q (ignored)", where, p.K.S))
		}
	}
	return v.Get, nil
}

// null is the CBOR simple value null (f6).
func isNull(x Value) bool { return x.Kind == KSimple && x.U == 22 }

// req returns a required field: absent or null is an error (§4.1).
func req(get func(string) (Value, bool), where, key string) (Value, error) {
	x, ok := get(key)
	if !ok {
		return Value{}, fmt.Errorf("%s: missing required field %q", where, key)
	}
	if isNull(x) {
		return Value{}, fmt.Errorf("%s: required field %q is null", where, key)
	}
	return x, nil
}

// opt returns an optional field: present as null is an error, since an
// absent value has one encoding, the key left out (§4.1).
func opt(get func(string) (Value, bool), where, key string) (Value, bool, error) {
	x, ok := get(key)
	if ok && isNull(x) {
		return Value{}, false, fmt.Errorf("%s: optional field %q is null (absent is encoded by leaving the key out)", where, key)
	}
	return x, ok, nil
}

// asID reads an ID field. Every ID field of the format must hold a
// non-zero ID (§4.1: fields that name an object; §4.5: node_id.id).
func asID(x Value, where string) (string, error) {
	if x.Kind != KBytes || len(x.B) != 32 {
		return "", fmt.Errorf("%s: not an ID (byte string of 32 bytes)", where)
	}
	id := hex.EncodeToString(x.B)
	if id == zeroID {
		return "", fmt.Errorf("%s: the all-zero ID", where)
	}
	return id, nil
}

func asText(x Value, where string) (string, error) {
	if x.Kind != KText {
		return "", fmt.Errorf("%s: not a text string", where)
	}
	return x.S, nil
}

// asInt reads an integer field: unsigned or negative, within the signed
// 64-bit range (§4.1).
func asInt(x Value, where string) error {
	if x.Kind != KUint && x.Kind != KNint {
		return fmt.Errorf("%s: not an integer", where)
	}
	if x.U > math.MaxInt64 { // KNint: -1-U < -2^63
		return fmt.Errorf("%s: outside the signed 64-bit range", where)
	}
	return nil
}

// asUint32 reads an unsigned 32-bit integer field (span, §4.5).
func asUint32(x Value, where string) (uint64, error) {
	if x.Kind != KUint {
		return 0, fmt.Errorf("%s: not an unsigned integer", where)
	}
	if x.U > math.MaxUint32 {
		return 0, fmt.Errorf("%s: %d is outside the unsigned 32-bit range", where, x.U)
	}
	return x.U, nil
}

func asArray(x Value, where string) ([]Value, error) {
	if x.Kind != KArray {
		return nil, fmt.Errorf("%s: not an array", where)
	}
	return x.A, nil
}

func oneOf(s, where string, allowed ...string) error {
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	return fmt.Errorf("%s: %q is not one of %v", where, s, allowed)
}

// reqID reads a required ID field and records the reference.
func (s *schema) reqID(get func(string) (Value, bool), where, key, want, code string) error {
	x, err := req(get, where, key)
	if err != nil {
		return err
	}
	id, err := asID(x, where+"."+key)
	if err != nil {
		return err
	}
	s.refs = append(s.refs, reference{field: where + "." + key, id: id, want: want, code: code})
	return nil
}

func (s *schema) optID(get func(string) (Value, bool), where, key, want string) error {
	x, ok, err := opt(get, where, key)
	if err != nil || !ok {
		return err
	}
	id, err := asID(x, where+"."+key)
	if err != nil {
		return err
	}
	s.refs = append(s.refs, reference{field: where + "." + key, id: id, want: want, code: "E001"})
	return nil
}

// idList reads a required array of IDs, no ID twice (§4.2, §4.4), and
// records the references.
func (s *schema) idList(get func(string) (Value, bool), where, key, want, code string) error {
	x, err := req(get, where, key)
	if err != nil {
		return err
	}
	a, err := asArray(x, where+"."+key)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, e := range a {
		f := fmt.Sprintf("%s.%s[%d]", where, key, i)
		id, err := asID(e, f)
		if err != nil {
			return err
		}
		if seen[id] {
			return fmt.Errorf("%s: %s appears twice", f, id)
		}
		seen[id] = true
		s.refs = append(s.refs, reference{field: f, id: id, want: want, code: code})
	}
	return nil
}

func reqText(get func(string) (Value, bool), where, key string) (string, error) {
	x, err := req(get, where, key)
	if err != nil {
		return "", err
	}
	return asText(x, where+"."+key)
}

func reqInt(get func(string) (Value, bool), where, key string) error {
	x, err := req(get, where, key)
	if err != nil {
		return err
	}
	return asInt(x, where+"."+key)
}

// checkSchema checks a decoded typed payload (§4.1–§4.13) and returns
// its type name, its references and warnings (unknown fields).
func checkSchema(item Value) (string, []reference, []string, error) {
	tn, s, err := parseTyped(item)
	if err != nil {
		return "", nil, nil, err
	}
	return tn, s.refs, s.warns, nil
}

// parseTyped checks a decoded typed payload as checkSchema does and
// returns what it learnt.
func parseTyped(item Value) (string, *schema, error) {
	if item.Kind != KMap || len(item.M) != 1 {
		return "", nil, errors.New("payload is not a map with exactly one entry")
	}
	k, body := item.M[0].K, item.M[0].V
	if k.Kind != KText {
		return "", nil, errors.New("type name is not a text string")
	}
	tn := k.S
	if !typeRe.MatchString(tn) || tn == "blob" {
		return "", nil, fmt.Errorf("invalid type name %q", tn)
	}
	if body.Kind != KMap {
		return "", nil, fmt.Errorf("%s: body is not a map", tn)
	}
	s := &schema{}
	var err error
	switch tn {
	case "commit":
		err = s.commit(body)
	case "tree":
		err = s.tree(body)
	case "work_commit":
		err = s.workCommit(body)
	case "session_state":
		err = s.sessionState(body)
	case "edge_batch":
		err = s.edgeBatch(body)
	case "scc_view":
		err = s.sccView(body)
	case "file_version":
		err = s.fileVersion(body)
	case "build_snapshot":
		err = s.buildSnapshot(body)
	case "go_packages":
		err = s.goPackages(body)
	case "cargo_metadata":
		err = s.cargoMetadata(body)
	case "command_run":
		err = s.commandRun(body)
	case "diagnostics_snapshot":
		err = s.diagnosticsSnapshot(body)
	default:
		err = fmt.Errorf("unknown type name %q", tn)
	}
	if err != nil {
		return "", nil, err
	}
	return tn, s, nil
}

func (s *schema) commit(b Value) error {
	const w = "commit"
	get, err := s.body(w, b, "parents", "timestamp_unix", "author", "message", "root_tree",
		"edge_batches", "narrative_refs", "build_snapshot", "semantic_snapshot", "diagnostics_snapshot")
	if err != nil {
		return err
	}
	if err := s.idList(get, w, "parents", "commit", "E009"); err != nil {
		return err
	}
	if err := reqInt(get, w, "timestamp_unix"); err != nil {
		return err
	}
	if err := optText(get, w, "author"); err != nil {
		return err
	}
	if _, err := reqText(get, w, "message"); err != nil {
		return err
	}
	if err := s.reqID(get, w, "root_tree", "tree", "E001"); err != nil {
		return err
	}
	s.facts.rootTree = s.refs[len(s.refs)-1].id
	if err := s.idList(get, w, "edge_batches", "edge_batch", "E001"); err != nil {
		return err
	}
	if err := s.narrativeRefs(get, w); err != nil {
		return err
	}
	// §4.2, §4.6: each snapshot names an object of its own type; a
	// semantic snapshot is a tree (§4.8).
	for _, k := range []struct{ key, want string }{
		{"build_snapshot", "build_snapshot"},
		{"semantic_snapshot", "tree"},
		{"diagnostics_snapshot", "diagnostics_snapshot"},
	} {
		n := len(s.refs)
		if err := s.optID(get, w, k.key, k.want); err != nil {
			return err
		}
		if k.key == "semantic_snapshot" && len(s.refs) > n {
			s.facts.semantic = s.refs[n].id
		}
	}
	return nil
}

func (s *schema) narrativeRefs(get func(string) (Value, bool), where string) error {
	x, err := req(get, where, "narrative_refs")
	if err != nil {
		return err
	}
	a, err := asArray(x, where+".narrative_refs")
	if err != nil {
		return err
	}
	for i, e := range a {
		w := fmt.Sprintf("%s.narrative_refs[%d]", where, i)
		g, err := s.body(w, e, "path", "stream", "role", "blob_id", "deleted")
		if err != nil {
			return err
		}
		p, err := reqText(g, w, "path")
		if err != nil {
			return err
		}
		if !cleanRelPath(p) {
			return fmt.Errorf("%s.path: %q is not a clean relative path", w, p)
		}
		if _, err := reqText(g, w, "stream"); err != nil {
			return err
		}
		if _, err := reqText(g, w, "role"); err != nil {
			return err
		}
		if err := s.reqID(g, w, "blob_id", "blob", "E001"); err != nil {
			return err
		}
		// §4.2: an optional bool, present only when true.
		if d, ok := g("deleted"); ok && !(d.Kind == KSimple && d.U == 21) {
			return fmt.Errorf("%s.deleted: present but not true", w)
		}
	}
	return nil
}

func cleanRelPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") {
		return false
	}
	for _, e := range strings.Split(p, "/") {
		if e == "" || e == "." || e == ".." {
			return false
		}
	}
	return path.Clean(p) == p
}

func (s *schema) tree(b Value) error {
	const w = "tree"
	get, err := s.body(w, b, "entries")
	if err != nil {
		return err
	}
	x, err := req(get, w, "entries")
	if err != nil {
		return err
	}
	a, err := asArray(x, w+".entries")
	if err != nil {
		return err
	}
	prev := ""
	for i, e := range a {
		we := fmt.Sprintf("tree.entries[%d]", i)
		g, err := s.body(we, e, "name", "kind", "id")
		if err != nil {
			return err
		}
		name, err := reqText(g, we, "name")
		if err != nil {
			return err
		}
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
			return fmt.Errorf("%s.name: %q is not a path element", we, name)
		}
		if i > 0 && name <= prev { // Go string comparison is bytewise
			return fmt.Errorf("%s.name: %q does not sort strictly after %q", we, name, prev)
		}
		prev = name
		kind, err := reqText(g, we, "kind")
		if err != nil {
			return err
		}
		// §4.3: a typed entry stands for a file; the object may be of any
		// type, unless the tree is in a semantic snapshot (§4.8), which
		// checkCommitTrees checks.
		if err := oneOf(kind, we+".kind", "blob", "tree", "typed"); err != nil {
			return err
		}
		if err := s.reqID(g, we+"["+name+"]", "id", kind, "E001"); err != nil {
			return err
		}
		s.facts.entries = append(s.facts.entries, entry{name, kind, s.refs[len(s.refs)-1].id})
	}
	return nil
}

// sessionState applies §4.14.
func (s *schema) sessionState(b Value) error {
	const w = "session_state"
	get, err := s.body(w, b, "session_id", "task", "task_node", "base", "head", "created_at", "segment_at",
		"updated_at", "mode", "budgets", "steps", "tokens", "reason", "target", "continue")
	if err != nil {
		return err
	}
	sid, err := reqText(get, w, "session_id")
	if err != nil {
		return err
	}
	if !sessionIDRe.MatchString(sid) {
		return fmt.Errorf("%s.session_id %q: not 1-64 of a-z 0-9 . _ - starting with a letter or digit", w, sid)
	}
	if _, err := reqText(get, w, "task"); err != nil {
		return err
	}
	if err := optText(get, w, "task_node"); err != nil {
		return err
	}
	if err := s.reqID(get, w, "base", "commit", "E001"); err != nil {
		return err
	}
	if err := s.reqID(get, w, "head", "work_commit", "E001"); err != nil {
		return err
	}
	for _, k := range []string{"created_at", "segment_at", "updated_at", "steps", "tokens"} {
		if err := reqInt(get, w, k); err != nil {
			return err
		}
	}
	for _, k := range []string{"steps", "tokens"} {
		if x, _ := get(k); x.Kind != KUint {
			return fmt.Errorf("%s.%s: negative", w, k)
		}
	}
	mode, err := reqText(get, w, "mode")
	if err != nil {
		return err
	}
	if err := oneOf(mode, w+".mode", "running", "compacting", "aborted"); err != nil {
		return err
	}
	bv, err := req(get, w, "budgets")
	if err != nil {
		return err
	}
	bget, err := s.body(w+".budgets", bv, "max_files_per_step", "max_bytes_per_step", "max_edges_per_step")
	if err != nil {
		return err
	}
	for _, k := range []string{"max_files_per_step", "max_bytes_per_step", "max_edges_per_step"} {
		x, err := req(bget, w+".budgets", k)
		if err != nil {
			return err
		}
		if x.Kind != KUint {
			return fmt.Errorf("%s.budgets.%s: not an unsigned integer", w, k)
		}
	}
	if err := optText(get, w, "reason"); err != nil {
		return err
	}
	if err := s.optID(get, w, "target", "commit"); err != nil {
		return err
	}
	_, hasTarget := get("target")
	if hasTarget != (mode == "compacting") {
		return fmt.Errorf("%s.target: present exactly when the mode is compacting", w)
	}
	if c, ok := get("continue"); ok {
		if !(c.Kind == KSimple && c.U == 21) || mode != "compacting" {
			return fmt.Errorf("%s.continue: only true, and only when compacting", w)
		}
	}
	if _, ok := get("reason"); ok && mode != "aborted" {
		return fmt.Errorf("%s.reason: only when the mode is aborted", w)
	}
	return nil
}

// kindName names an object's kind or type for messages.
func kindName(o *object) string {
	if o.typeName != "" {
		return o.typeName
	}
	return "blob"
}

var sessionIDRe = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

func (s *schema) workCommit(b Value) error {
	const w = "work_commit"
	get, err := s.body(w, b, "parents", "base", "session_id", "created_at", "step_kind",
		"payload", "narrative_refs")
	if err != nil {
		return err
	}
	if err := s.idList(get, w, "parents", "work_commit", "E001"); err != nil {
		return err
	}
	if err := s.reqID(get, w, "base", "commit", "E001"); err != nil {
		return err
	}
	sid, err := reqText(get, w, "session_id")
	if err != nil {
		return err
	}
	if sid == "" {
		return fmt.Errorf("%s.session_id: empty", w)
	}
	if err := reqInt(get, w, "created_at"); err != nil {
		return err
	}
	sk, err := reqText(get, w, "step_kind")
	if err != nil {
		return err
	}
	if err := oneOf(sk, w+".step_kind", "session_start", "file_read", "file_write",
		"command_run", "note", "plan", "compact"); err != nil {
		return err
	}
	if err := s.idList(get, w, "payload", "any", "E001"); err != nil {
		return err
	}
	return s.narrativeRefs(get, w)
}

var (
	nodeKinds = []string{"file", "directory", "module", "item", "package", "target", "crate",
		"commit", "task", "note", "decision", "diagnostic", "fact", "pattern", "observation",
		"hypothesis", "open_question", "summary", "source"}
	edgeLabels = []string{"contains", "defines", "has_version", "depends_on", "target_of",
		"crate_from_target", "imports", "references", "calls", "implements", "uses_type",
		"mentions", "updated_in", "derived_from", "affects_test", "owned_by", "performance_hot",
		"supersedes", "relates_to", "child_of"}
)

func (s *schema) edgeBatch(b Value) error {
	const w = "edge_batch"
	get, err := s.body(w, b, "edges", "created_at", "tombstones")
	if err != nil {
		return err
	}
	x, err := req(get, w, "edges")
	if err != nil {
		return err
	}
	edges, err := asArray(x, w+".edges")
	if err != nil {
		return err
	}
	for i, e := range edges {
		we := fmt.Sprintf("edge_batch.edges[%d]", i)
		g, err := s.body(we, e, "from", "to", "label", "weight", "evidence")
		if err != nil {
			return err
		}
		if err := s.relation(g, we); err != nil {
			return err
		}
		if wt, ok, err := opt(g, we, "weight"); err != nil {
			return err
		} else if ok {
			if wt.Kind != KFloat {
				return fmt.Errorf("%s.weight: not a float", we)
			}
			if math.IsNaN(wt.F) || math.IsInf(wt.F, 0) {
				return fmt.Errorf("%s.weight: not finite", we)
			}
		}
	}
	// tombstones: optional, absent when empty (§4.5); each one has from,
	// to, label and evidence, all required, checked as an edge's are.
	if x, ok, err := opt(get, w, "tombstones"); err != nil {
		return err
	} else if ok {
		ts, err := asArray(x, w+".tombstones")
		if err != nil {
			return err
		}
		if len(ts) == 0 {
			// §4.5 "absent when empty", and §4.1: an absent value has one
			// encoding, the key left out.
			return fmt.Errorf("%s.tombstones: present but empty (absent when empty)", w)
		}
		for i, t := range ts {
			wt := fmt.Sprintf("edge_batch.tombstones[%d]", i)
			g, err := s.body(wt, t, "from", "to", "label", "evidence")
			if err != nil {
				return err
			}
			if err := s.relation(g, wt); err != nil {
				return err
			}
		}
	}
	return reqInt(get, w, "created_at")
}

// relation checks what an edge and a tombstone share (§4.5): from and to
// (node_id), label and evidence, all required; it records the references
// of the evidence (§4.6).
func (s *schema) relation(g func(string) (Value, bool), w string) error {
	for _, end := range []string{"from", "to"} {
		n, err := req(g, w, end)
		if err != nil {
			return err
		}
		if err := s.nodeID(n, w+"."+end); err != nil {
			return err
		}
	}
	l, err := reqText(g, w, "label")
	if err != nil {
		return err
	}
	if err := oneOf(l, w+".label", edgeLabels...); err != nil {
		return err
	}
	ev, err := req(g, w, "evidence")
	if err != nil {
		return err
	}
	return s.evidence(ev, w+".evidence")
}

// nodeID checks a node_id (§4.5): kind, one of the node kinds; id,
// non-zero but need not name a stored object; key, optional text.
func (s *schema) nodeID(n Value, w string) error {
	g, err := s.body(w, n, "kind", "id", "key")
	if err != nil {
		return err
	}
	k, err := reqText(g, w, "kind")
	if err != nil {
		return err
	}
	if err := oneOf(k, w+".kind", nodeKinds...); err != nil {
		return err
	}
	idv, err := req(g, w, "id")
	if err != nil {
		return err
	}
	if _, err := asID(idv, w+".id"); err != nil {
		return err
	}
	return optText(g, w, "key")
}

// optText checks an optional text field: absent, or a non-empty text
// string (§4.1: an optional text field present with the empty string is
// rejected).
func optText(g func(string) (Value, bool), w, key string) error {
	x, ok, err := opt(g, w, key)
	if err != nil || !ok {
		return err
	}
	t, err := asText(x, w+"."+key)
	if err != nil {
		return err
	}
	if t == "" {
		return fmt.Errorf("%s.%s: optional text present but empty", w, key)
	}
	return nil
}

// evidence checks an evidence map (§4.5) and records its references
// (§4.6): commit_id a commit, blob_id a blob.
func (s *schema) evidence(ev Value, w string) error {
	g, err := s.body(w, ev, "commit_id", "span", "blob_id", "tool", "confidence")
	if err != nil {
		return err
	}
	if err := s.optID(g, w, "commit_id", "commit"); err != nil {
		return err
	}
	if sp, ok, err := opt(g, w, "span"); err != nil {
		return err
	} else if ok {
		if err := s.span(sp, w+".span"); err != nil {
			return err
		}
	}
	if err := s.optID(g, w, "blob_id", "blob"); err != nil {
		return err
	}
	t, err := reqText(g, w, "tool")
	if err != nil {
		return err
	}
	if err := oneOf(t, w+".tool", "human", "parser", "build", "analyzer", "command", "llm"); err != nil {
		return err
	}
	c, err := reqText(g, w, "confidence")
	if err != nil {
		return err
	}
	return oneOf(c, w+".confidence", "high", "medium", "low")
}

// span: all four fields required, unsigned 32-bit integers; lines
// 1-based, start_line ≥ 1, end_line ≥ start_line; columns 0 when unknown
// (§4.5).
func (s *schema) span(v Value, w string) error {
	g, err := s.body(w, v, "start_line", "start_col", "end_line", "end_col")
	if err != nil {
		return err
	}
	var n [4]uint64
	for i, k := range []string{"start_line", "start_col", "end_line", "end_col"} {
		x, err := req(g, w, k)
		if err != nil {
			return err
		}
		if n[i], err = asUint32(x, w+"."+k); err != nil {
			return err
		}
	}
	if n[0] < 1 {
		return fmt.Errorf("%s.start_line: must be >= 1", w)
	}
	if n[2] < n[0] {
		return fmt.Errorf("%s.end_line: %d < start_line %d", w, n[2], n[0])
	}
	return nil
}

// sccView checks an scc_view (§4.7): its fields, and that they are
// consistent. Its ids reference nothing §4.6 lists: source is the blob id
// of a text that is not stored, and heads are checked by the reader that
// computes the graph, which recomputes a view whose source differs.
func (s *schema) sccView(b Value) error {
	const w = "scc_view"
	get, err := s.body(w, b, "source", "heads", "created_at", "nodes", "comp", "count", "dag", "self_loops")
	if err != nil {
		return err
	}
	x, err := req(get, w, "source")
	if err != nil {
		return err
	}
	if _, err := asID(x, w+".source"); err != nil {
		return err
	}
	x, err = req(get, w, "heads")
	if err != nil {
		return err
	}
	heads, err := asArray(x, w+".heads")
	if err != nil {
		return err
	}
	for i, h := range heads {
		if _, err := asID(h, fmt.Sprintf("%s.heads[%d]", w, i)); err != nil {
			return err
		}
	}
	if err := reqInt(get, w, "created_at"); err != nil {
		return err
	}
	// nodes: every node of the graph, sorted by id. A node's identity is
	// its id alone (§4.5), so no id appears twice: strictly increasing.
	x, err = req(get, w, "nodes")
	if err != nil {
		return err
	}
	nodes, err := asArray(x, w+".nodes")
	if err != nil {
		return err
	}
	var prev []byte
	for i, n := range nodes {
		wn := fmt.Sprintf("%s.nodes[%d]", w, i)
		if err := s.nodeID(n, wn); err != nil {
			return err
		}
		id, _ := n.Get("id")
		if i > 0 && bytes.Compare(prev, id.B) >= 0 {
			return fmt.Errorf("%s.id: %x does not sort strictly after %x (nodes are sorted by id)", wn, id.B, prev)
		}
		prev = id.B
	}
	x, err = req(get, w, "count")
	if err != nil {
		return err
	}
	count, err := compNumber(x, w+".count")
	if err != nil {
		return err
	}
	// count is the number of components and every node is in one, so
	// there are at most as many components as nodes, and each has a node.
	if count > uint64(len(nodes)) {
		return fmt.Errorf("%s.count: %d components but %d nodes (a component has at least one node)", w, count, len(nodes))
	}
	x, err = req(get, w, "comp")
	if err != nil {
		return err
	}
	comp, err := asArray(x, w+".comp")
	if err != nil {
		return err
	}
	if len(comp) != len(nodes) {
		return fmt.Errorf("%s.comp: %d component numbers for %d nodes", w, len(comp), len(nodes))
	}
	size := make([]int, count)
	for i, c := range comp {
		wc := fmt.Sprintf("%s.comp[%d]", w, i)
		n, err := compNumber(c, wc)
		if err != nil {
			return err
		}
		if n >= count {
			return fmt.Errorf("%s: component %d, not < count %d", wc, n, count)
		}
		size[n]++
	}
	for c, n := range size {
		if n == 0 {
			return fmt.Errorf("%s.comp: component %d of %d has no node", w, c, count)
		}
	}
	// dag: edges between components, each once, sorted, every [a, b] with
	// a < b.
	x, err = req(get, w, "dag")
	if err != nil {
		return err
	}
	dag, err := asArray(x, w+".dag")
	if err != nil {
		return err
	}
	var pa, pb uint64
	for i, e := range dag {
		we := fmt.Sprintf("%s.dag[%d]", w, i)
		pair, err := asArray(e, we)
		if err != nil {
			return err
		}
		if len(pair) != 2 {
			return fmt.Errorf("%s: %d items, want [a, b]", we, len(pair))
		}
		a, err := compNumber(pair[0], we+"[0]")
		if err != nil {
			return err
		}
		b, err := compNumber(pair[1], we+"[1]")
		if err != nil {
			return err
		}
		if a >= b {
			return fmt.Errorf("%s: edge [%d, %d] is not forward (a < b: components are numbered in a topological order)", we, a, b)
		}
		if b >= count {
			return fmt.Errorf("%s: component %d, not < count %d", we, b, count)
		}
		if i > 0 && (a < pa || a == pa && b <= pb) {
			return fmt.Errorf("%s: edge [%d, %d] does not sort strictly after [%d, %d] (sorted, each once)", we, a, b, pa, pb)
		}
		pa, pb = a, b
	}
	// self_loops: optional, absent when empty; components of one node,
	// sorted (each once: they are a set of components).
	x, ok, err := opt(get, w, "self_loops")
	if err != nil || !ok {
		return err
	}
	loops, err := asArray(x, w+".self_loops")
	if err != nil {
		return err
	}
	if len(loops) == 0 {
		return fmt.Errorf("%s.self_loops: present but empty (absent when empty)", w)
	}
	var pc uint64
	for i, l := range loops {
		wl := fmt.Sprintf("%s.self_loops[%d]", w, i)
		c, err := compNumber(l, wl)
		if err != nil {
			return err
		}
		if c >= count {
			return fmt.Errorf("%s: component %d, not < count %d", wl, c, count)
		}
		if i > 0 && c <= pc {
			return fmt.Errorf("%s: component %d does not sort strictly after %d", wl, c, pc)
		}
		if size[c] != 1 {
			return fmt.Errorf("%s: component %d has %d nodes (self loops are components of one node)", wl, c, size[c])
		}
		pc = c
	}
	return nil
}

// compNumber reads an integer (§4.1) that counts or numbers components
// (§4.7): components are numbered from 0, so it is not negative.
func compNumber(x Value, where string) (uint64, error) {
	if err := asInt(x, where); err != nil {
		return 0, err
	}
	if x.Kind == KNint {
		return 0, fmt.Errorf("%s: negative", where)
	}
	return x.U, nil
}

// ---------------------------------------------------------------- DERIVED

// checkDerived checks DERIVED/ (§2, §4.7): the objects of DERIVED/objects/
// (§3.2) and the pointer DERIVED/scc_latest, which holds the id of an
// scc_view there and "\n". DERIVED/ is local and rebuildable, and a reader
// MUST recompute a view that is damaged (§4.7): what is wrong there is
// never a problem of the store, only a warning. A missing DERIVED/ is
// empty (§2). Other files in DERIVED/ are not checked: §2 reserves the
// directory for derived views, and a newer writer may add some.
func (v *validator) checkDerived() error {
	root := filepath.Join(v.dir, "DERIVED")
	st, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		v.warn("DERIVED: not a directory (readers rebuild derived views, §4.7)")
		return nil
	}
	a := &area{rel: "DERIVED/objects", objects: v.derived, derived: true}
	if st, err := os.Stat(filepath.Join(root, "objects")); err == nil && st.IsDir() {
		if err := v.walkArea(a); err != nil {
			return err
		}
	} else if err == nil {
		v.warn("DERIVED/objects: not a directory")
	}
	const rel = "DERIVED/scc_latest"
	p := filepath.Join(root, "scc_latest")
	st, err = os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		// Not opened, so that a FIFO cannot block the reader.
		v.warn("%s: not a regular file (readers recompute the view, §4.7)", rel)
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	id, ok := strings.CutSuffix(string(data), "\n")
	if !ok || !hexID.MatchString(id) {
		v.warn("%s: holds %q, want one ID and a newline (readers recompute the view, §4.7)", rel, trim(data))
		return nil
	}
	o, ok := v.derived[id]
	switch {
	case !ok:
		where := ""
		if _, in := v.objects[id]; in {
			where = " (it is in objects/, not DERIVED/objects/)"
		}
		v.warn("%s: names %s, which is not in DERIVED/objects/%s (readers recompute the view, §4.7)", rel, id, where)
	case !o.ok:
		v.warn("%s: names %s, which is damaged (readers recompute the view, §4.7)", rel, id)
	case o.typeName != "scc_view":
		v.warn("%s: names %s, a %s, not an scc_view (readers recompute the view, §4.7)", rel, id, describe(o))
	default:
		v.rep.SccView = id
	}
	return nil
}

// ---------------------------------------------------------------- refs

// ValidRefName checks a ref name (without "refs/") against §6.1: its
// syntax, its length, and the reserved names, those whose first element is
// HEAD, STAGE or refs.
func ValidRefName(name string) bool {
	if name == "" || len(name) > 200 {
		return false
	}
	for i, e := range strings.Split(name, "/") {
		if e == "" || !elemRe.MatchString(e) || strings.HasPrefix(e, ".") ||
			strings.Contains(e, "..") || strings.HasSuffix(e, ".tmp") ||
			strings.HasSuffix(e, ".lock") || anyHex.MatchString(e) ||
			(i == 0 && (e == "HEAD" || e == "STAGE" || e == "refs")) {
			return false
		}
	}
	return true
}

func (v *validator) walkRefs() error {
	root := filepath.Join(v.dir, "refs")
	// Lstat: a symbolic link is no directory (formatcheck follows links to
	// files, as a reader does, but walks no linked directory under refs/).
	st, err := os.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) {
		// No refs at all (git keeps no empty directory); HEAD's check
		// reports that its ref does not exist.
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		v.problem("E018", "refs", "not a directory (§6.1: refs MUST be a directory)")
		return nil
	}
	if err := v.walkRefDir(root, ""); err != nil {
		return err
	}
	sort.Slice(v.rep.Refs, func(i, j int) bool { return v.rep.Refs[i].Name < v.rep.Refs[j].Name })
	return nil
}

// walkRefDir reads the directory refs/<name>/ (name "" is refs/ itself).
// Every file under refs/ must be a head file in a ref directory, and heads
// are files, never directories (§6.1): a file directly in refs/, a file in
// a ref directory that is not named by an ID, a head file whose content is
// not its name and a directory whose path is not a valid ref name are
// problems (E018); *.tmp files are not.
func (v *validator) walkRefDir(dir, name string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	rel := "refs/" + name
	valid := name != "" && ValidRefName(name)
	if name != "" && !valid {
		v.problem("E018", rel, "directory %q is not a valid ref name", name)
	}
	var heads []string
	for _, e := range ents {
		fn := e.Name()
		frel := rel + "/" + fn
		if name == "" {
			frel = "refs/" + fn
		}
		if e.IsDir() {
			// A directory ending in .tmp is no temporary file: it is a
			// directory whose path is not a valid ref name.
			sub := fn
			if name != "" {
				sub = name + "/" + fn
			}
			if err := v.walkRefDir(filepath.Join(dir, fn), sub); err != nil {
				return err
			}
			continue
		}
		if strings.HasSuffix(fn, ".tmp") {
			continue // a temporary file (§2): a warning, reported by checkTemps
		}
		switch {
		case name == "":
			v.problem("E018", frel, "file directly in refs/ (heads live in refs/<name>/)")
			continue
		case !valid:
			v.problem("E018", frel, "file in a directory that is no ref directory (not a head)")
			continue
		case !hexID.MatchString(fn):
			v.problem("E018", frel, "file in a ref directory that is not named by an ID (not a head)")
			continue
		}
		// A regular file whose name is an ID is a head (§6.1), even when
		// its content is wrong: the ref exists. A directory, a symbolic
		// link or any other non-regular file is never a head (§2) and is a
		// problem; it is not opened, so a FIFO cannot block the reader.
		st, err := os.Lstat(filepath.Join(dir, fn))
		if err == nil && st.IsDir() {
			v.problem("E018", frel, "named by an ID but a directory (heads are files)")
			continue
		}
		if err != nil || !st.Mode().IsRegular() {
			v.problem("E018", frel, "named by an ID but not a regular file (a link, FIFO, …): not a head")
			continue
		}
		heads = append(heads, fn)
		data, err := os.ReadFile(filepath.Join(dir, fn))
		if err != nil {
			return err
		}
		if string(data) != fn+"\n" {
			v.problem("E018", frel, "head file holds %q, want its own name and a newline", trim(data))
			continue
		}
		if o, ok := v.objects[fn]; !ok || !o.ok {
			v.problem("E018", frel, "head %s is missing or damaged", fn)
		}
	}
	if len(heads) == 0 {
		return nil
	}
	sort.Strings(heads)
	eff := v.effectiveHeads(heads)
	if len(heads) > 1 {
		if len(eff) > 1 {
			v.warn("refs/%s has %d heads, %d effective: diverged (E014 where one value is needed)",
				name, len(heads), len(eff))
		} else {
			v.warn("refs/%s has %d heads, %d of them ancestors of another (stale)",
				name, len(heads), len(heads)-len(eff))
		}
	}
	v.rep.Refs = append(v.rep.Refs, Ref{Name: rel, Heads: heads, Effective: eff})
	return nil
}

// effectiveHeads removes from heads every head that is an ancestor of
// another head through the parents of intact commits (§6.1).
func (v *validator) effectiveHeads(heads []string) []string {
	if len(heads) < 2 {
		return heads
	}
	ancestor := map[string]bool{} // strict ancestors of some head
	for _, h := range heads {
		stack := append([]string(nil), v.parents(h)...)
		seen := map[string]bool{}
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[c] {
				continue
			}
			seen[c] = true
			ancestor[c] = true
			stack = append(stack, v.parents(c)...)
		}
	}
	var eff []string
	for _, h := range heads {
		if !ancestor[h] {
			eff = append(eff, h)
		}
	}
	return eff
}

func (v *validator) parents(id string) []string {
	o, ok := v.objects[id]
	if !ok || !o.ok || o.typeName != "commit" {
		return nil
	}
	var ps []string
	for _, r := range o.refs {
		if strings.HasPrefix(r.field, "commit.parents[") {
			ps = append(ps, r.id)
		}
	}
	return ps
}

func trim(b []byte) string {
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b)
}

// checkHEAD: HEAD holds exactly "ref: refs/<name>\n" with a valid ref
// name, the final newline optional; anything else is E018, and naming a
// ref that does not exist is E005 (§6.2).
func (v *validator) checkHEAD() error {
	data, err := os.ReadFile(filepath.Join(v.dir, "HEAD"))
	if err != nil {
		return err
	}
	s := strings.TrimSuffix(string(data), "\n")
	name, ok := strings.CutPrefix(s, "ref: refs/")
	if !ok || !ValidRefName(name) {
		v.problem("E018", "HEAD", "holds %q, want \"ref: refs/<name>\\n\" with a valid ref name", trim(data))
		return nil
	}
	v.rep.HEAD = "refs/" + name
	for _, r := range v.rep.Refs {
		if r.Name == v.rep.HEAD {
			return nil
		}
	}
	v.problem("E005", "HEAD", "names %s, which does not exist", v.rep.HEAD)
	return nil
}

// checkSTAGE: STAGE, when present, holds one ID in lowercase hex and a
// newline (optional); anything else is E018 (§6.3). It names the staging
// head, so a missing or damaged object is E018 too (§12: a bad STAGE).
func (v *validator) checkSTAGE() error {
	p := filepath.Join(v.dir, "STAGE")
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		v.problem("E018", "STAGE", "not a regular file")
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	id := strings.TrimSuffix(string(data), "\n")
	if !hexID.MatchString(id) {
		v.problem("E018", "STAGE", "holds %q, want one ID and a newline", trim(data))
		return nil
	}
	v.rep.STAGE = id
	if o, ok := v.objects[id]; !ok || !o.ok {
		v.problem("E018", "STAGE", "names %s, which is missing or damaged", id)
	} else if o.typeName != "work_commit" {
		v.problem("E008", "STAGE", "names %s, a %s, not a work_commit", id, kindName(o))
	}
	return nil
}

// checkSessions applies §6.5: every regular file of sessions/ named by a
// session ID is a journal of lines of one ID each; its newest whole line
// names an intact session_state (E008 otherwise). A torn last line (no
// newline) is a warning.
func (v *validator) checkSessions() error {
	dir := filepath.Join(v.dir, "sessions")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		v.problem("E008", "sessions", "%v", err)
		return nil
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !sessionIDRe.MatchString(e.Name()) {
			continue
		}
		rel := "sessions/" + e.Name()
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			v.rep.Warnings = append(v.rep.Warnings, rel+": torn last line")
			data = data[:bytes.LastIndexByte(data, '\n')+1]
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		last := ""
		for _, l := range lines {
			if hexID.MatchString(l) {
				last = l
			}
		}
		switch o, ok := v.objects[last]; {
		case last == "":
			v.problem("E008", rel, "names no state")
		case !ok || !o.ok:
			v.problem("E008", rel, "names state %s, which is missing or damaged", last)
		case o.typeName != "session_state":
			v.problem("E008", rel, "names %s, a %s, not a session_state", last, o.typeName)
		}
	}
	return nil
}

// ---------------------------------------------------------------- config

// config mirrors §8. Pointers tell present keys from absent ones.
type config struct {
	Repo struct {
		ID         *string `toml:"id"`
		CtxVersion *string `toml:"ctx_version"`
	} `toml:"repo"`
	Storage struct {
		CompressionLevel *int64 `toml:"compression_level"`
	} `toml:"storage"`
	Ingestion struct {
		IgnoreGlobs     *[]string `toml:"ignore_globs"`
		MaxFilesPerStep *int64    `toml:"max_files_per_step"`
		MaxBytesPerStep *int64    `toml:"max_bytes_per_step"`
		MaxFileBytes    *int64    `toml:"max_file_bytes"`
		MaxLogLines     *int64    `toml:"max_log_lines"`
	} `toml:"ingestion"`
	Retrieval struct {
		DefaultBudget    *int64 `toml:"default_budget"`
		DefaultDepth     *int64 `toml:"default_depth"`
		IncludeNarrative *bool  `toml:"include_narrative"`
	} `toml:"retrieval"`
	LLM struct {
		ServerURL           *string  `toml:"server_url"`
		Model               *string  `toml:"model"`
		MaxResponseTokens   *int64   `toml:"max_response_tokens"`
		API                 *string  `toml:"api"`
		APIKeyEnv           *string  `toml:"api_key_env"`
		Temperature         *float64 `toml:"temperature"`
		Timeout             *string  `toml:"timeout"`
		Retries             *int64   `toml:"retries"`
		Stream              *bool    `toml:"stream"`
		CachePrompt         *bool    `toml:"cache_prompt"`
		Slot                *int64   `toml:"slot"`
		SystemPrefix        *string  `toml:"system_prefix"`
		ResponseInstruction *string  `toml:"response_instruction"`
	} `toml:"llm"`
	Stage struct {
		MaxEdgesPerStep   *int64  `toml:"max_edges_per_step"`
		CompactAtTokens   *int64  `toml:"compact_at_tokens"`
		CompactAfter      *string `toml:"compact_after"`
		CompactOnTaskDone *bool   `toml:"compact_on_task_done"`
		CompactOnSwitch   *bool   `toml:"compact_on_switch"`
	} `toml:"stage"`
	Hooks struct {
		MaxContextChars *int64 `toml:"max_context_chars"`
	} `toml:"hooks"`
}

// checkConfig applies §8: config.toml must exist (§2) and be a regular
// file, be TOML and hold repo.id (an unknown key is a warning); missing keys other
// than repo.id take their defaults; every present value must be within the
// range §8 states. Every problem is E016.
func (v *validator) checkConfig() error {
	p := filepath.Join(v.dir, "config.toml")
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		v.problem("E016", "config.toml", "missing (a store must contain config.toml)")
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		v.problem("E016", "config.toml", "not a regular file")
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var c config
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		v.problem("E016", "config.toml", "%v", err)
		return nil
	}
	bad := func(format string, a ...any) { v.problem("E016", "config.toml", format, a...) }
	if und := md.Undecoded(); len(und) > 0 {
		// §8: ignored (a typo, or a key of a newer version), reported.
		var ks []string
		for _, k := range und {
			ks = append(ks, k.String())
		}
		v.warn("config.toml: unknown key(s) %s: ignored", strings.Join(ks, ", "))
	}
	switch id := c.Repo.ID; {
	case id == nil:
		bad("repo.id is required")
	case *id == "":
		bad("repo.id is empty (it must be a non-empty single line)")
	case strings.ContainsAny(*id, "\n\r"):
		bad("repo.id %q is not a single line", *id)
	}
	if l := c.Storage.CompressionLevel; l != nil && (*l < 0 || *l > 22) {
		bad("storage.compression_level %d is outside 0-22", *l)
	}
	if d := c.Retrieval.DefaultDepth; d != nil && (*d < 0 || *d > 16) {
		bad("retrieval.default_depth %d is outside 0-16", *d)
	}
	for _, k := range []struct {
		key string
		n   *int64
	}{
		{"ingestion.max_files_per_step", c.Ingestion.MaxFilesPerStep},
		{"ingestion.max_bytes_per_step", c.Ingestion.MaxBytesPerStep},
		{"ingestion.max_file_bytes", c.Ingestion.MaxFileBytes},
		{"ingestion.max_log_lines", c.Ingestion.MaxLogLines},
		{"retrieval.default_budget", c.Retrieval.DefaultBudget},
		{"llm.max_response_tokens", c.LLM.MaxResponseTokens},
		{"stage.max_edges_per_step", c.Stage.MaxEdgesPerStep},
	} {
		if k.n != nil && *k.n <= 0 {
			bad("%s %d is not positive", k.key, *k.n)
		}
	}
	if gs := c.Ingestion.IgnoreGlobs; gs != nil {
		for _, g := range *gs {
			if !validGlob(g) {
				bad("ingestion.ignore_globs entry %q is not a non-empty valid glob", g)
			}
		}
	}
	if n := c.Stage.CompactAtTokens; n != nil && *n < 0 {
		bad("stage.compact_at_tokens %d is negative", *n)
	}
	if d := c.Stage.CompactAfter; d != nil {
		if dur, err := time.ParseDuration(*d); err != nil || dur < 0 {
			bad("stage.compact_after %q is not a duration (\"4h\", \"90m\", \"0\")", *d)
		}
	}
	if a := c.LLM.API; a != nil && *a != "llamacpp" && *a != "openai" {
		bad("llm.api %q is not llamacpp or openai", *a)
	}
	if e := c.LLM.APIKeyEnv; e != nil && !validEnvName(*e) {
		bad("llm.api_key_env %q is not an environment variable name", *e)
	}
	if f := c.LLM.Temperature; f != nil && !(*f >= 0 && *f <= 2) {
		bad("llm.temperature %g is outside 0-2", *f)
	}
	if d := c.LLM.Timeout; d != nil {
		if dur, err := time.ParseDuration(*d); err != nil || dur <= 0 {
			bad("llm.timeout %q is not a positive duration", *d)
		}
	}
	if n := c.LLM.Retries; n != nil && (*n < 0 || *n > 10) {
		bad("llm.retries %d is outside 0-10", *n)
	}
	if n := c.LLM.Slot; n != nil && *n < -1 {
		bad("llm.slot %d is below -1", *n)
	}
	if n := c.Hooks.MaxContextChars; n != nil && (*n < 1000 || *n > 40000) {
		bad("hooks.max_context_chars %d is outside 1000-40000", *n)
	}
	if u := c.LLM.ServerURL; u != nil {
		pu, err := url.Parse(*u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Hostname() == "" {
			bad("llm.server_url %q is not an http(s) URL with a host", *u)
		}
	}
	return nil
}

// validEnvName: §8 says api_key_env is empty or an environment variable
// name: ASCII letters, digits and '_', not starting with a digit.
func validEnvName(s string) bool {
	if s == "" {
		return true
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// validGlob: §8 does not define the glob syntax; formatcheck takes the
// usual one of shell patterns as Go's path.Match reads it (`*`, `?`,
// `[...]` classes, `\` escapes; `**` is two stars), under which a glob is
// invalid when a class or an escape is unterminated or a range is
// incomplete.
func validGlob(g string) bool {
	if g == "" {
		return false
	}
	_, err := path.Match(g, "")
	return err == nil
}

// ---------------------------------------------------------------- temps

// checkTemps reports every *.tmp file of the store (§2, §12).
func (v *validator) checkTemps() {
	_ = filepath.WalkDir(v.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".tmp") {
			rel, _ := filepath.Rel(v.dir, p)
			v.warn("%s: temporary file (ignored)", filepath.ToSlash(rel))
		}
		return nil
	})
}

// ---------------------------------------------------------------- CBOR
//
// A strict, independent CBOR (RFC 8949) decoder and a Core Deterministic
// Encoding encoder, written from FORMAT.md §4.1 and RFC 8949 §4.2.1 only.

// CBOR major types.
const (
	majUint   = 0
	majNint   = 1
	majBytes  = 2
	majText   = 3
	majArray  = 4
	majMap    = 5
	majTag    = 6
	majSimple = 7
)

// ValueKind is the kind of a decoded CBOR data item.
type ValueKind int

// Kinds of CBOR values.
const (
	KUint ValueKind = iota
	KNint
	KBytes
	KText
	KArray
	KMap
	KFloat
	KSimple
)

// Value is a decoded CBOR data item.
type Value struct {
	Kind  ValueKind
	U     uint64  // KUint: the value; KNint: the value is -1-U; KSimple: the simple value
	B     []byte  // KBytes
	S     string  // KText
	A     []Value // KArray
	M     []Pair  // KMap, in encoded order
	F     float64 // KFloat
	FBits uint64  // KFloat: the float64 bits (keeps NaN payloads)
}

// Pair is one map entry.
type Pair struct {
	K, V Value
}

// Get returns the value of the text key k of a map.
func (v Value) Get(k string) (Value, bool) {
	for _, p := range v.M {
		if p.K.Kind == KText && p.K.S == k {
			return p.V, true
		}
	}
	return Value{}, false
}

// Convenience constructors, used to build typed objects from the spec.

// Text returns a text string value.
func Text(s string) Value { return Value{Kind: KText, S: s} }

// Uint returns an unsigned integer value.
func Uint(u uint64) Value { return Value{Kind: KUint, U: u} }

// Int returns an integer value.
func Int(i int64) Value {
	if i >= 0 {
		return Value{Kind: KUint, U: uint64(i)}
	}
	return Value{Kind: KNint, U: uint64(-(i + 1))}
}

// Bytes returns a byte string value.
func Bytes(b []byte) Value { return Value{Kind: KBytes, B: b} }

// Float returns a floating-point value.
func Float(f float64) Value { return Value{Kind: KFloat, F: f, FBits: math.Float64bits(f)} }

// Array returns an array value (never nil: an empty list is 0x80).
func Array(vs ...Value) Value {
	if vs == nil {
		vs = []Value{}
	}
	return Value{Kind: KArray, A: vs}
}

// Map returns a map value whose keys are text strings, given as
// alternating key, value arguments. The order is kept as given: Encode
// sorts, EncodeAsIs does not.
func Map(kv ...any) Value {
	m := Value{Kind: KMap, M: []Pair{}}
	for i := 0; i+1 < len(kv); i += 2 {
		m.M = append(m.M, Pair{K: Text(kv[i].(string)), V: kv[i+1].(Value)})
	}
	return m
}

// errNonCanonical marks decoding failures caused by non-deterministic
// encoding rather than malformed CBOR.
var errNonCanonical = errors.New("not in core deterministic encoding")

type decoder struct {
	b   []byte
	off int
}

func (d *decoder) fail(format string, a ...any) error {
	return fmt.Errorf("cbor at offset %d: %s", d.off, fmt.Sprintf(format, a...))
}

func (d *decoder) noncanon(format string, a ...any) error {
	return fmt.Errorf("cbor at offset %d: %s: %w", d.off, fmt.Sprintf(format, a...), errNonCanonical)
}

func (d *decoder) take(n uint64) ([]byte, error) {
	if n > uint64(len(d.b)-d.off) {
		return nil, d.fail("truncated: need %d bytes, have %d", n, len(d.b)-d.off)
	}
	s := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return s, nil
}

// head reads an initial byte and its argument. It rejects indefinite
// lengths, reserved additional information and non-shortest arguments.
func (d *decoder) head() (major, ai byte, arg uint64, err error) {
	start := d.off
	b, err := d.take(1)
	if err != nil {
		return 0, 0, 0, err
	}
	major, ai = b[0]>>5, b[0]&0x1f
	switch {
	case ai < 24:
		arg = uint64(ai)
	case ai == 24:
		s, err := d.take(1)
		if err != nil {
			return 0, 0, 0, err
		}
		arg = uint64(s[0])
	case ai == 25:
		s, err := d.take(2)
		if err != nil {
			return 0, 0, 0, err
		}
		arg = uint64(binary.BigEndian.Uint16(s))
	case ai == 26:
		s, err := d.take(4)
		if err != nil {
			return 0, 0, 0, err
		}
		arg = uint64(binary.BigEndian.Uint32(s))
	case ai == 27:
		s, err := d.take(8)
		if err != nil {
			return 0, 0, 0, err
		}
		arg = binary.BigEndian.Uint64(s)
	case ai == 31:
		d.off = start
		if major == majSimple {
			return 0, 0, 0, d.fail("unexpected break")
		}
		return 0, 0, 0, d.noncanon("indefinite-length item (major type %d)", major)
	default:
		d.off = start
		return 0, 0, 0, d.fail("reserved additional information %d", ai)
	}
	if major == majSimple {
		return major, ai, arg, nil
	}
	// Shortest form of integers, lengths and tags.
	if (ai == 24 && arg < 24) || (ai == 25 && arg <= 0xff) ||
		(ai == 26 && arg <= 0xffff) || (ai == 27 && arg <= 0xffffffff) {
		d.off = start
		return 0, 0, 0, d.noncanon("argument %d not in its shortest form", arg)
	}
	return major, ai, arg, nil
}

// value decodes one data item; depth is the number of arrays and maps
// that enclose it.
func (d *decoder) value(depth int) (Value, error) {
	start := d.off
	major, ai, arg, err := d.head()
	if err != nil {
		return Value{}, err
	}
	switch major {
	case majUint:
		return Value{Kind: KUint, U: arg}, nil
	case majNint:
		return Value{Kind: KNint, U: arg}, nil
	case majBytes:
		s, err := d.take(arg)
		if err != nil {
			return Value{}, err
		}
		return Value{Kind: KBytes, B: append([]byte{}, s...)}, nil
	case majText:
		s, err := d.take(arg)
		if err != nil {
			return Value{}, err
		}
		if !utf8.Valid(s) {
			d.off = start
			return Value{}, d.fail("text string is not valid UTF-8")
		}
		return Value{Kind: KText, S: string(s)}, nil
	case majArray:
		if depth+1 > maxNesting {
			d.off = start
			return Value{}, d.fail("nesting deeper than %d levels of arrays and maps", maxNesting)
		}
		if arg > uint64(len(d.b)-d.off) { // each item takes at least one byte
			return Value{}, d.fail("array of %d items is longer than the input", arg)
		}
		v := Value{Kind: KArray, A: make([]Value, 0, arg)}
		for i := uint64(0); i < arg; i++ {
			e, err := d.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.A = append(v.A, e)
		}
		return v, nil
	case majMap:
		if depth+1 > maxNesting {
			d.off = start
			return Value{}, d.fail("nesting deeper than %d levels of arrays and maps", maxNesting)
		}
		if arg > uint64(len(d.b)-d.off)/2 {
			return Value{}, d.fail("map of %d pairs is longer than the input", arg)
		}
		v := Value{Kind: KMap, M: make([]Pair, 0, arg)}
		var prev []byte
		for i := uint64(0); i < arg; i++ {
			ks := d.off
			k, err := d.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			kenc := d.b[ks:d.off]
			if prev != nil {
				switch c := bytes.Compare(prev, kenc); {
				case c == 0:
					d.off = ks
					return Value{}, d.fail("duplicate map key %x", kenc)
				case c > 0:
					d.off = ks
					return Value{}, d.noncanon("map keys not sorted: %x after %x", kenc, prev)
				}
			}
			prev = kenc
			val, err := d.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.M = append(v.M, Pair{K: k, V: val})
		}
		return v, nil
	case majTag:
		d.off = start
		return Value{}, d.fail("tag %d: tags must not appear", arg)
	default: // majSimple
		switch ai {
		case 24:
			if arg < 32 {
				d.off = start
				return Value{}, d.fail("simple value %d in two bytes", arg)
			}
			return Value{Kind: KSimple, U: arg}, nil
		case 25:
			f := f16ToF64(uint16(arg))
			v := Value{Kind: KFloat, F: f, FBits: math.Float64bits(f)}
			if math.IsNaN(f) {
				v.FBits = nanBits16(uint16(arg))
			}
			return v, nil
		case 26:
			f32 := math.Float32frombits(uint32(arg))
			f := float64(f32)
			v := Value{Kind: KFloat, F: f, FBits: math.Float64bits(f)}
			if math.IsNaN(f) {
				v.FBits = nanBits32(uint32(arg))
			}
			if floatWidth(v) < 4 {
				d.off = start
				return Value{}, d.noncanon("float32 %v has a shorter form", f)
			}
			return v, nil
		case 27:
			f := math.Float64frombits(arg)
			v := Value{Kind: KFloat, F: f, FBits: arg}
			if floatWidth(v) < 8 {
				d.off = start
				return Value{}, d.noncanon("float64 %v has a shorter form", f)
			}
			return v, nil
		default:
			return Value{Kind: KSimple, U: arg}, nil
		}
	}
}

// DecodeStrict decodes exactly one CBOR data item occupying all of b. It
// rejects malformed input, tags, invalid UTF-8, duplicate keys, nesting of
// arrays and maps deeper than 64 levels (the outermost item is level 1)
// and any departure from Core Deterministic Encoding (errors wrapping
// errNonCanonical), and finally checks that re-encoding gives b.
func DecodeStrict(b []byte) (Value, error) {
	d := &decoder{b: b}
	v, err := d.value(0)
	if err != nil {
		return Value{}, err
	}
	if d.off != len(b) {
		return Value{}, d.fail("%d bytes after the data item", len(b)-d.off)
	}
	if re := Encode(v); !bytes.Equal(re, b) {
		return Value{}, fmt.Errorf("re-encoding differs from the payload: %w", errNonCanonical)
	}
	return v, nil
}

// Encode returns the Core Deterministic Encoding of v (map keys sorted).
func Encode(v Value) []byte { return encode(nil, v, true) }

// EncodeAsIs encodes v with shortest forms but keeps map entries in the
// given order: used by tests to build non-canonical payloads.
func EncodeAsIs(v Value) []byte { return encode(nil, v, false) }

func appendHead(b []byte, major byte, arg uint64) []byte {
	m := major << 5
	switch {
	case arg < 24:
		return append(b, m|byte(arg))
	case arg <= 0xff:
		return append(b, m|24, byte(arg))
	case arg <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, m|25), uint16(arg))
	case arg <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(b, m|26), uint32(arg))
	default:
		return binary.BigEndian.AppendUint64(append(b, m|27), arg)
	}
}

func encode(b []byte, v Value, sorted bool) []byte {
	switch v.Kind {
	case KUint:
		return appendHead(b, majUint, v.U)
	case KNint:
		return appendHead(b, majNint, v.U)
	case KBytes:
		return append(appendHead(b, majBytes, uint64(len(v.B))), v.B...)
	case KText:
		return append(appendHead(b, majText, uint64(len(v.S))), v.S...)
	case KArray:
		b = appendHead(b, majArray, uint64(len(v.A)))
		for _, e := range v.A {
			b = encode(b, e, sorted)
		}
		return b
	case KMap:
		type kv struct{ k, v []byte }
		ps := make([]kv, len(v.M))
		for i, p := range v.M {
			ps[i] = kv{encode(nil, p.K, sorted), encode(nil, p.V, sorted)}
		}
		if sorted {
			sort.SliceStable(ps, func(i, j int) bool { return bytes.Compare(ps[i].k, ps[j].k) < 0 })
		}
		b = appendHead(b, majMap, uint64(len(ps)))
		for _, p := range ps {
			b = append(append(b, p.k...), p.v...)
		}
		return b
	case KFloat:
		switch floatWidth(v) {
		case 2:
			h, _ := f64ToF16(v)
			return binary.BigEndian.AppendUint16(append(b, 0xf9), h)
		case 4:
			var bits uint32
			if math.IsNaN(v.F) {
				bits = uint32(v.FBits>>63)<<31 | 0x7f800000 | uint32((v.FBits&(1<<52-1))>>29)
			} else {
				bits = math.Float32bits(float32(v.F))
			}
			return binary.BigEndian.AppendUint32(append(b, 0xfa), bits)
		default:
			return binary.BigEndian.AppendUint64(append(b, 0xfb), v.FBits)
		}
	default: // KSimple
		if v.U < 24 {
			return append(b, 0xe0|byte(v.U))
		}
		return append(b, 0xf8, byte(v.U))
	}
}

// floatWidth is the number of bytes of the shortest IEEE 754 form that
// preserves v exactly (NaN payloads included).
func floatWidth(v Value) int {
	if _, ok := f64ToF16(v); ok {
		return 2
	}
	if math.IsNaN(v.F) {
		if v.FBits&(1<<29-1) == 0 {
			return 4
		}
		return 8
	}
	if float64(float32(v.F)) == v.F {
		return 4
	}
	return 8
}

// f64ToF16 converts exactly to binary16, if possible.
func f64ToF16(v Value) (uint16, bool) {
	sign := uint16(v.FBits>>63) << 15
	x := v.F
	switch {
	case math.IsNaN(x):
		mant := v.FBits & (1<<52 - 1)
		if mant&(1<<42-1) != 0 {
			return 0, false
		}
		return sign | 0x7c00 | uint16(mant>>42), true
	case math.IsInf(x, 0):
		return sign | 0x7c00, true
	case x == 0:
		return sign, true
	}
	ax := math.Abs(x)
	frac, exp := math.Frexp(ax) // ax = frac * 2^exp, frac in [0.5, 1)
	e := exp - 1                // ax = (2*frac) * 2^e, 2*frac in [1, 2)
	if e > 15 {
		return 0, false
	}
	if e >= -14 {
		m := (2*frac - 1) * 1024
		if m != math.Trunc(m) {
			return 0, false
		}
		return sign | uint16(e+15)<<10 | uint16(m), true
	}
	k := math.Ldexp(ax, 24) // subnormal: ax = k * 2^-24
	if k != math.Trunc(k) || k >= 1024 {
		return 0, false
	}
	return sign | uint16(k), true
}

func f16ToF64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(mant, -24)
	case 31:
		if mant == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1+mant/1024, exp-15)
}

func nanBits16(h uint16) uint64 {
	return uint64(h>>15)<<63 | 0x7ff<<52 | uint64(h&0x3ff)<<42
}

func nanBits32(f uint32) uint64 {
	return uint64(f>>31)<<63 | 0x7ff<<52 | uint64(f&(1<<23-1))<<29
}
