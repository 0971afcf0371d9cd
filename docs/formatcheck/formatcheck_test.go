package formatcheck

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// ctxBin is the ctx binary built by TestMain, used as a black box.
var ctxBin string

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "formatcheck-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctxBin = filepath.Join(tmp, "ctx")
	// ctx and ctx-core, as installed: the front end runs ctx-core.
	build := exec.Command("go", "build", "-o", tmp+string(filepath.Separator), "github.com/ctx-dev/ctx/cmd/ctx", "github.com/ctx-dev/ctx/cmd/ctx-core")
	build.Dir = filepath.Join("..", "..") // the module root, /work/main
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building ctx: %v\n%s", err, out)
		os.RemoveAll(tmp)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// ---------------------------------------------------------------- helpers

type result struct {
	stdout, stderr string
	exit           int
}

// ctx runs the binary on the project dir with args.
func ctx(t *testing.T, dir string, args ...string) result {
	t.Helper()
	// A deadline, so that a ctx that blocks (on a FIFO, say) fails the test
	// instead of hanging it.
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, ctxBin, append([]string{"--dir", dir}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTX_DIR=", "CTX_AUTHOR=formatcheck")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if c.Err() != nil {
		t.Fatalf("ctx %v: killed after %v (blocked?)", args, time.Minute)
	}
	r := result{stdout: so.String(), stderr: se.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("ctx %v: %v", args, err)
	}
	return r
}

// mustCtx runs ctx and fails the test unless it exits 0; it returns stdout
// with surrounding space trimmed.
func mustCtx(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := ctx(t, dir, args...)
	if r.exit != 0 {
		t.Fatalf("ctx %v: exit %d\n%s%s", args, r.exit, r.stdout, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// ctxVerify is the JSON output of `ctx --json verify`.
type ctxVerify struct {
	Objects  int            `json:"objects"`
	Blobs    int            `json:"blobs"`
	Typed    map[string]int `json:"typed"`
	OK       bool           `json:"ok"`
	Warnings []string       `json:"warnings"`
	Refs     []struct {
		Name  string   `json:"name"`
		Heads []string `json:"heads"`
	} `json:"refs"`
	Problems []struct {
		Code    string `json:"code"`
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"problems"`
	exit int
}

func verify(t *testing.T, dir string) ctxVerify {
	t.Helper()
	r := ctx(t, dir, "--json", "verify")
	var v ctxVerify
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("ctx verify: exit %d, bad JSON: %v\n%s%s", r.exit, err, r.stdout, r.stderr)
	}
	v.exit = r.exit
	return v
}

// ctxRefusal is the error ctx prints on stderr (with --json) when it
// refuses to check a store at all.
type ctxRefusal struct {
	Error struct {
		Code    string `json:"code"`
		Exit    int    `json:"exit"`
		Message string `json:"message"`
	} `json:"error"`
}

// ctxCodes runs `ctx --json verify` and returns the distinct codes it
// reports: those of the problems of its JSON report, or, when it refuses
// the store as a whole (no report on stdout), the code of its error. v is
// nil in the second case.
func ctxCodes(t *testing.T, dir string) (cs []string, v *ctxVerify, exit int, msg string) {
	t.Helper()
	r := ctx(t, dir, "--json", "verify")
	var rv ctxVerify
	if err := json.Unmarshal([]byte(r.stdout), &rv); err == nil && strings.TrimSpace(r.stdout) != "" {
		rv.exit = r.exit
		var ms []string
		for _, p := range rv.Problems {
			ms = append(ms, p.Code+" "+p.Path+" "+p.Message)
		}
		return rv.codes(), &rv, r.exit, strings.Join(ms, "\n")
	}
	var ref ctxRefusal
	if err := json.Unmarshal([]byte(r.stderr), &ref); err != nil {
		t.Fatalf("ctx verify: exit %d, neither a report nor an error:\n%s%s", r.exit, r.stdout, r.stderr)
	}
	if ref.Error.Exit != r.exit {
		t.Errorf("ctx verify: exit %d, error JSON says %d", r.exit, ref.Error.Exit)
	}
	return []string{ref.Error.Code}, nil, r.exit, ref.Error.Message
}

// exitOf is the exit status of an error code (§13).
var exitOf = map[string]int{"E001": 21, "E002": 22, "E003": 23, "E004": 24, "E005": 25, "E006": 26,
	"E007": 27, "E008": 28, "E009": 29, "E010": 30, "E011": 31, "E012": 32, "E013": 33, "E014": 34,
	"E015": 2, "E016": 36, "E017": 37, "E018": 38}

func (v ctxVerify) codes() []string {
	seen := map[string]bool{}
	var cs []string
	for _, p := range v.Problems {
		if !seen[p.Code] {
			seen[p.Code] = true
			cs = append(cs, p.Code)
		}
	}
	sort.Strings(cs)
	return cs
}

func validate(t *testing.T, dir string) Report {
	t.Helper()
	rep, err := Validate(dir)
	if err != nil {
		t.Fatalf("Validate(%s): %v", dir, err)
	}
	return rep
}

// sameCounts checks that Validate and ctx verify agree on counts and refs.
func sameCounts(t *testing.T, rep Report, v ctxVerify) {
	t.Helper()
	if rep.Objects != v.Objects || rep.Blobs != v.Blobs {
		t.Errorf("counts: formatcheck objects=%d blobs=%d, ctx objects=%d blobs=%d",
			rep.Objects, rep.Blobs, v.Objects, v.Blobs)
	}
	typed := v.Typed
	if typed == nil {
		typed = map[string]int{}
	}
	if !reflect.DeepEqual(rep.Typed, typed) {
		t.Errorf("typed: formatcheck %v, ctx %v", rep.Typed, typed)
	}
	var got, want []string
	for _, r := range rep.Refs {
		got = append(got, r.Name+"="+strings.Join(r.Heads, ","))
	}
	if rep.STAGE != "" {
		// ctx lists STAGE among the refs of its verify output.
		got = append(got, "STAGE="+rep.STAGE)
	}
	sort.Strings(got)
	for _, r := range v.Refs {
		h := append([]string(nil), r.Heads...)
		sort.Strings(h)
		want = append(want, r.Name+"="+strings.Join(h, ","))
	}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("refs: formatcheck %v, ctx %v", got, want)
	}
}

func requireClean(t *testing.T, dir string) (Report, ctxVerify) {
	t.Helper()
	rep := validate(t, dir)
	for _, p := range rep.Problems {
		t.Errorf("formatcheck problem: %v", p)
	}
	v := verify(t, dir)
	if !v.OK || v.exit != 0 || len(v.Problems) > 0 {
		t.Errorf("ctx verify: ok=%v exit=%d problems=%+v", v.OK, v.exit, v.Problems)
	}
	sameCounts(t, rep, v)
	if rep.HEAD != "refs/main" {
		t.Errorf("HEAD = %q, want refs/main", rep.HEAD)
	}
	return rep, v
}

func storeOf(project string) string { return filepath.Join(project, ".ctx") }

// copyTree copies a project (and its store) to a new directory, making
// every file writable so that tests can damage it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "p")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// demoProject is created once by `ctx demo --keep` and copied per test.
var demoProject string

func demo(t *testing.T) string {
	t.Helper()
	if demoProject == "" {
		dir := filepath.Join(filepath.Dir(ctxBin), "demo")
		cmd := exec.Command(ctxBin, "demo", "--keep", dir)
		cmd.Env = append(os.Environ(), "CTX_DIR=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ctx demo: %v\n%s", err, out)
		}
		demoProject = dir
	}
	return copyTree(t, demoProject)
}

func initProject(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mustCtx(t, dir, "init")
	return dir
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func idBytes(t *testing.T, id string) []byte { return unhex(t, id) }

// Spec-built values ------------------------------------------------------

func treeEntry(t *testing.T, name, kind, id string) Value {
	return Map("name", Text(name), "kind", Text(kind), "id", Bytes(idBytes(t, id)))
}

func treeOf(entries ...Value) Value {
	return Map("tree", Map("entries", Array(entries...)))
}

func commitOf(t *testing.T, parents []string, ts int64, msg, tree string, extra ...any) Value {
	var ps []Value
	for _, p := range parents {
		ps = append(ps, Bytes(idBytes(t, p)))
	}
	kv := []any{"parents", Array(ps...), "timestamp_unix", Int(ts), "message", Text(msg),
		"root_tree", Bytes(idBytes(t, tree)), "edge_batches", Array(), "narrative_refs", Array()}
	kv = append(kv, extra...)
	return Map("commit", Map(kv...))
}

// head returns the single head of refs/main.
func head(t *testing.T, project string) string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(storeOf(project), "refs", "main"))
	if err != nil || len(ents) != 1 {
		t.Fatalf("refs/main: %v %v", ents, err)
	}
	return ents[0].Name()
}

// readTyped reads and decodes a typed object with formatcheck.
func readTyped(t *testing.T, project, id string) Value {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(storeOf(project), filepath.FromSlash(ObjectPath(id))))
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	canon, err := dec.DecodeAll(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodeStrict(canon[14:])
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func body(t *testing.T, v Value, typ string) Value {
	t.Helper()
	b, ok := v.Get(typ)
	if !ok {
		t.Fatalf("not a %s: %+v", typ, v)
	}
	return b
}

func idOf(t *testing.T, v Value) string {
	t.Helper()
	if v.Kind != KBytes || len(v.B) != 32 {
		t.Fatalf("not an ID: %+v", v)
	}
	return hex.EncodeToString(v.B)
}

// ---------------------------------------------------------------- 2. worked examples

func TestWorkedExamples(t *testing.T) {
	// §3.1: the blob "hello\n".
	canon := Canonical(KindBlob, []byte("hello\n"))
	if want := unhex(t, "43 54 58 4f 31 01 06 00 00 00 00 00 00 00 68 65 6c 6c 6f 0a"); !bytes.Equal(canon, want) {
		t.Errorf("hello canonical bytes = % x, want % x", canon, want)
	}
	if got, want := ID(canon), "33ab4d579b4f8fb631d4d31255bacd9fe8fe124bf216b9e3f578dfc1201167e0"; got != want {
		t.Errorf("hello id = %s, want %s", got, want)
	}
	// Because the kind is hashed, the same payload as typed differs.
	if ID(Canonical(KindTyped, []byte("hello\n"))) == ID(canon) {
		t.Error("blob and typed object with the same payload have the same ID")
	}

	// §4.1: the empty tree.
	emptyTree := Encode(treeOf())
	if want := unhex(t, "a1 64 74726565 a1 67 656e7472696573 80"); !bytes.Equal(emptyTree, want) {
		t.Errorf("empty tree payload = % x, want % x", emptyTree, want)
	}
	const emptyTreeID = "7eba9700e3290c9340f34103faa01a65ddc9e3ba47d976561a5b226de37abddf"
	if got := ID(Canonical(KindTyped, emptyTree)); got != emptyTreeID {
		t.Errorf("empty tree id = %s, want %s", got, emptyTreeID)
	}

	// §4.2: the root commit, built from its description and compared with
	// the hex of the spec.
	root := Encode(commitOf(t, nil, 0, "Initialize ctx store", emptyTreeID))
	want := unhex(t, `
a166636f6d6d6974a6676d65737361676574496e697469616c697a65206374782073746f7265
67706172656e74738069726f6f745f7472656558207eba9700e3290c9340f34103faa01a65
ddc9e3ba47d976561a5b226de37abddf6c656467655f62617463686573806e6e6172726174
6976655f72656673806e74696d657374616d705f756e697800`)
	if !bytes.Equal(root, want) {
		t.Errorf("root commit payload =\n% x\nwant\n% x", root, want)
	}
	const rootID = "b2324ff3a1be72b011857ae6599338ba81b7ce88c8c74aab1ca5358124540de0"
	if got := ID(Canonical(KindTyped, want)); got != rootID {
		t.Errorf("root commit id = %s, want %s", got, rootID)
	}
	for _, p := range [][]byte{emptyTree, want} {
		v, err := DecodeStrict(p)
		if err != nil {
			t.Errorf("DecodeStrict(% x): %v", p, err)
			continue
		}
		if _, _, _, err := checkSchema(v); err != nil {
			t.Errorf("schema: %v", err)
		}
	}

	// ctx agrees, and every `ctx init` writes exactly these two objects.
	proj := initProject(t)
	if got := mustCtx(t, proj, "rev-parse", "main"); got != rootID {
		t.Errorf("ctx init: main = %s, want %s", got, rootID)
	}
	hello := filepath.Join(t.TempDir(), "hello.txt")
	os.WriteFile(hello, []byte("hello\n"), 0o644)
	if got := mustCtx(t, proj, "hash-object", hello); got != ID(canon) {
		t.Errorf("ctx hash-object hello = %s", got)
	}
	raw := ctx(t, proj, "cat-object", "--raw", rootID)
	if !bytes.Equal([]byte(raw.stdout), want) {
		t.Errorf("ctx cat-object --raw root = % x", raw.stdout)
	}
	rep := validate(t, proj)
	if rep.Objects != 2 || rep.Typed["commit"] != 1 || rep.Typed["tree"] != 1 {
		t.Errorf("init store counts: %+v", rep)
	}
}

// ---------------------------------------------------------------- 1. valid stores

func TestValidStores(t *testing.T) {
	t.Run("init", func(t *testing.T) {
		requireClean(t, initProject(t))
	})
	t.Run("init-no-git", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "p")
		os.Mkdir(dir, 0o755)
		mustCtx(t, dir, "init", "--no-git")
		requireClean(t, dir)
	})
	t.Run("demo", func(t *testing.T) {
		rep, _ := requireClean(t, demo(t))
		if rep.Blobs == 0 || rep.Typed["commit"] < 2 || rep.Typed["tree"] < 2 {
			t.Errorf("demo store has few objects: %+v", rep)
		}
	})
	t.Run("plumbing", func(t *testing.T) {
		proj := initProject(t)
		files := t.TempDir()
		a := filepath.Join(files, "a.txt")
		os.WriteFile(a, []byte("alpha\n"), 0o644)
		blob := mustCtx(t, proj, "hash-object", "-w", a)
		if want := ID(Canonical(KindBlob, []byte("alpha\n"))); blob != want {
			t.Fatalf("blob id %s, want %s", blob, want)
		}
		sub := filepath.Join(files, "sub.json")
		os.WriteFile(sub, []byte(fmt.Sprintf(
			`{"tree":{"entries":[{"name":"a.txt","kind":"blob","id":%q}]}}`, blob)), 0o644)
		subID := mustCtx(t, proj, "hash-object", "-w", "-t", "typed", "--input", "json", sub)
		top := filepath.Join(files, "top.json")
		os.WriteFile(top, []byte(fmt.Sprintf(
			`{"tree":{"entries":[{"name":"README","kind":"blob","id":%q},{"name":"dir","kind":"tree","id":%q}]}}`,
			blob, subID)), 0o644)
		topID := mustCtx(t, proj, "hash-object", "-w", "-t", "typed", "--input", "json", top)
		// The IDs ctx computed are the ones the spec gives for these values.
		if want := ID(Canonical(KindTyped, Encode(treeOf(treeEntry(t, "a.txt", "blob", blob))))); subID != want {
			t.Errorf("tree id %s, want %s", subID, want)
		}
		old := head(t, proj)
		c := mustCtx(t, proj, "commit-tree", topID, "-p", "main", "-m", "second")
		mustCtx(t, proj, "update-ref", "main", c, old)
		// A second ref, with a nested name.
		mustCtx(t, proj, "update-ref", "feature/x", old)
		rep, _ := requireClean(t, proj)
		if rep.Objects != 6 || rep.Blobs != 1 || rep.Typed["tree"] != 3 || rep.Typed["commit"] != 2 {
			t.Errorf("counts: %+v", rep)
		}
		if len(rep.Refs) != 2 || rep.Refs[0].Name != "refs/feature/x" || rep.Refs[1].Heads[0] != c {
			t.Errorf("refs: %+v", rep.Refs)
		}
		// The commit ctx wrote follows §4.2.
		cm := body(t, readTyped(t, proj, c), "commit")
		if got := idOf(t, mustGet(t, cm, "root_tree")); got != topID {
			t.Errorf("root_tree %s, want %s", got, topID)
		}
		if ps := mustGet(t, cm, "parents"); len(ps.A) != 1 || idOf(t, ps.A[0]) != old {
			t.Errorf("parents %+v", ps)
		}
	})
}

func mustGet(t *testing.T, v Value, k string) Value {
	t.Helper()
	x, ok := v.Get(k)
	if !ok {
		t.Fatalf("no field %q", k)
	}
	return x
}

// ---------------------------------------------------------------- 3. damage

// compress returns a zstd stream of canonical bytes.
func compress(t *testing.T, canon []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(canon, nil)
}

// writeCanon stores arbitrary canonical bytes under their BLAKE3 ID (so
// that the hash check passes and later checks are reached).
func writeCanon(t *testing.T, project string, canon []byte) string {
	t.Helper()
	id := ID(canon)
	if err := WriteRawObjectFile(storeOf(project), id, compress(t, canon)); err != nil {
		t.Fatal(err)
	}
	return id
}

func writeTyped(t *testing.T, project string, payload []byte) string {
	return writeCanon(t, project, Canonical(KindTyped, payload))
}

// firstOf returns an object of the store whose type is typ ("blob" for
// blobs), by walking its objects with formatcheck.
func firstOf(t *testing.T, project, typ string) string {
	t.Helper()
	st := storeOf(project)
	var found string
	filepath.WalkDir(filepath.Join(st, "objects"), func(p string, d fs.DirEntry, err error) error {
		if found != "" || d.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(p)
		dec, _ := zstd.NewReader(nil)
		defer dec.Close()
		canon, err := dec.DecodeAll(data, nil)
		if err != nil || len(canon) < 14 {
			return nil
		}
		if typ == "blob" && canon[5] == KindBlob {
			found = d.Name()
		} else if canon[5] == KindTyped {
			if v, err := DecodeStrict(canon[14:]); err == nil && v.M[0].K.S == typ {
				found = d.Name()
			}
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no %s in %s", typ, project)
	}
	return found
}

func objFile(project, id string) string {
	return filepath.Join(storeOf(project), filepath.FromSlash(ObjectPath(id)))
}

// setHead makes refs/main name exactly id.
func setHead(t *testing.T, project, id string) {
	t.Helper()
	dir := filepath.Join(storeOf(project), "refs", "main")
	os.RemoveAll(dir)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, id), []byte(id+"\n"), 0o644)
}

// damageCase damages a copy of a store (the demo store unless base is
// set). want is the set of codes formatcheck must report, following
// FORMAT.md; ctx verify must report exactly want too, unless ctxWant is not
// nil: then ctx reports ctxWant instead, a disagreement between ctx and
// the text explained by note (and listed in the report). A note without
// ctxWant records a disagreement that leaves the codes alike.
type damageCase struct {
	name    string
	base    func(t *testing.T) string
	damage  func(t *testing.T, p string)
	want    []string
	ctxWant []string
	note    string
	// noCounts: ctx's counts and refs are not compared (see note).
	noCounts bool
}

func sameCodes(a, b []string) bool {
	return (len(a) == 0 && len(b) == 0) || reflect.DeepEqual(a, b)
}

// codes returns its arguments; codes() is an empty, non-nil list.
func codes(c ...string) []string {
	if c == nil {
		return []string{}
	}
	return c
}

func runDamage(t *testing.T, cases []damageCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p string
			if tc.base != nil {
				p = tc.base(t)
			} else {
				p = demo(t)
			}
			tc.damage(t, p)
			rep := validate(t, p)
			if got := rep.Codes(); !sameCodes(got, tc.want) {
				t.Errorf("formatcheck codes %v, want %v\n%v", got, tc.want, rep.Problems)
			} else if len(rep.Problems) > 0 {
				t.Logf("formatcheck: %v", rep.Problems)
			}
			if contains(tc.want, "E016") && (len(tc.want) != 1 || rep.Objects != 0 || len(rep.Refs) != 0) {
				t.Errorf("formatcheck did not refuse the store as a whole (§12): %v, %d objects", rep.Problems, rep.Objects)
			}
			want := tc.want
			if tc.ctxWant != nil {
				want = tc.ctxWant
			}
			if tc.note != "" {
				t.Logf("known ctx deviation: %s", tc.note)
			}
			got, v, exit, msg := ctxCodes(t, p)
			if !sameCodes(got, want) {
				t.Errorf("ctx codes %v, want %v\n%s", got, want, msg)
			}
			if v == nil {
				// Refused as a whole: the exit status is the code's (§13).
				if len(got) == 1 && exit != exitOf[got[0]] && got[0] != "" {
					t.Errorf("ctx verify: exit %d for %s", exit, got[0])
				}
				return
			}
			if !tc.noCounts {
				sameCounts(t, rep, *v)
			}
			if (len(want) == 0) != (v.OK && v.exit == 0) {
				t.Errorf("ctx verify: ok=%v exit=%d", v.OK, v.exit)
			}
		})
	}
}

const emptyTreeID = "7eba9700e3290c9340f34103faa01a65ddc9e3ba47d976561a5b226de37abddf"

func TestDamage(t *testing.T) {
	runDamage(t, []damageCase{
		{name: "flipped byte in a blob file", damage: func(t *testing.T, p string) {
			f := objFile(p, firstOf(t, p, "blob"))
			b, _ := os.ReadFile(f)
			b[len(b)-3] ^= 0x01 // inside the compressed data
			os.WriteFile(f, b, 0o444)
		}, want: codes("E002")},
		{name: "flipped byte in the head commit", damage: func(t *testing.T, p string) {
			f := objFile(p, head(t, p))
			b, _ := os.ReadFile(f)
			b[len(b)/2] ^= 0x40
			os.WriteFile(f, b, 0o444)
		}, want: codes("E002", "E018")}, // the head then names a damaged object
		{name: "another object's content under an ID", damage: func(t *testing.T, p string) {
			blob := firstOf(t, p, "blob")
			other, _ := os.ReadFile(objFile(p, head(t, p)))
			os.Remove(objFile(p, blob))
			os.WriteFile(objFile(p, blob), other, 0o444) // valid zstd, wrong hash
		}, want: codes("E002")},
		{name: "object file that is not zstd", damage: func(t *testing.T, p string) {
			os.WriteFile(objFile(p, firstOf(t, p, "blob")), []byte("plain text"), 0o444)
		}, want: codes("E002")},
		{name: "directory named by an ID in its shard", damage: func(t *testing.T, p string) {
			// Read by its path (§3.2), it does not decompress.
			os.MkdirAll(filepath.Join(storeOf(p), "objects", "aa", strings.Repeat("a", 64)), 0o755)
		}, want: codes("E002")},
		{name: "missing blob referenced by a tree", damage: func(t *testing.T, p string) {
			os.Remove(objFile(p, firstOf(t, p, "blob")))
		}, want: codes("E001")},
		{name: "missing root tree of a commit", damage: func(t *testing.T, p string) {
			c := body(t, readTyped(t, p, head(t, p)), "commit")
			os.Remove(objFile(p, idOf(t, mustGet(t, c, "root_tree"))))
		}, want: codes("E001")},
		{name: "missing parent commit", damage: func(t *testing.T, p string) {
			c := body(t, readTyped(t, p, head(t, p)), "commit")
			os.Remove(objFile(p, idOf(t, mustGet(t, c, "parents").A[0])))
		}, want: codes("E009")},
		{name: "head file content differs from its name", damage: func(t *testing.T, p string) {
			h := head(t, p)
			os.WriteFile(filepath.Join(storeOf(p), "refs", "main", h), []byte(emptyTreeID+"\n"), 0o644)
		}, want: codes("E018")},
		{name: "head file without its newline", damage: func(t *testing.T, p string) {
			h := head(t, p)
			os.WriteFile(filepath.Join(storeOf(p), "refs", "main", h), []byte(h), 0o644)
		}, want: codes("E018")},
		{name: "head names a missing object", damage: func(t *testing.T, p string) {
			id := strings.Repeat("1", 64)
			os.WriteFile(filepath.Join(storeOf(p), "refs", "main", id), []byte(id+"\n"), 0o644)
		}, want: codes("E018")},
		{name: "stray file in a ref directory", damage: func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(storeOf(p), "refs", "main", "notes"), []byte("x\n"), 0o644)
		}, want: codes("E018")},
		{name: "ref directory with an invalid name", damage: func(t *testing.T, p string) {
			h := head(t, p)
			d := filepath.Join(storeOf(p), "refs", "x.lock")
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, h), []byte(h+"\n"), 0o644)
		}, want: codes("E018")}, // no ref directory: neither lists it as a ref
		{name: "head file directly under refs", damage: func(t *testing.T, p string) {
			h := head(t, p)
			os.WriteFile(filepath.Join(storeOf(p), "refs", h), []byte(h+"\n"), 0o644)
		}, want: codes("E018")},
		{name: "HEAD names a ref that does not exist", damage: func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(storeOf(p), "HEAD"), []byte("ref: refs/nope\n"), 0o644)
		}, want: codes("E005")},
		{name: "HEAD is not symbolic", damage: func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(storeOf(p), "HEAD"), []byte(head(t, p)+"\n"), 0o644)
		}, want: codes("E018")},
		{name: "STAGE is not an ID", damage: func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(storeOf(p), "STAGE"), []byte("nope\n"), 0o644)
		}, want: codes("E018")}, // ctx then lists no refs at all
		{name: "STAGE names a missing object", damage: func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(storeOf(p), "STAGE"), []byte(strings.Repeat("2", 64)+"\n"), 0o644)
		}, want: codes("E018")},
		{name: "tree with unsorted map keys", damage: func(t *testing.T, p string) {
			// Entry keys in the order name, kind, id, whereas "id" (62 6964)
			// sorts first, then "kind", then "name".
			blob := firstOf(t, p, "blob")
			payload := EncodeAsIs(treeOf(treeEntry(t, "f", "blob", blob)))
			if _, err := DecodeStrict(payload); err == nil {
				t.Fatal("EncodeAsIs produced a canonical payload")
			}
			commitTo(t, p, writeTyped(t, p, payload))
		}, want: codes("E004")},
		{name: "unreferenced tree with unsorted map keys", damage: func(t *testing.T, p string) {
			writeTyped(t, p, EncodeAsIs(treeOf(treeEntry(t, "f", "tree", emptyTreeID))))
		}, want: codes("E004")},
		{name: "head commit with a non-shortest integer", damage: func(t *testing.T, p string) {
			pl := Encode(commitOf(t, []string{head(t, p)}, 7, "x", emptyTreeID))
			// timestamp_unix 7 (0x07) rewritten as 0x18 0x07.
			i := bytes.Index(pl, []byte("timestamp_unix")) + len("timestamp_unix")
			pl = append(append(append([]byte{}, pl[:i]...), 0x18), pl[i:]...)
			setHead(t, p, writeTyped(t, p, pl))
		}, want: codes("E004", "E018")}, // the head names an invalid object
		{name: "tree with an indefinite-length array", damage: func(t *testing.T, p string) {
			writeTyped(t, p, unhex(t, "a1 64 74726565 a1 67 656e7472696573 9f ff"))
		}, want: codes("E004")},
		{name: "payload with a tag", damage: func(t *testing.T, p string) {
			pl := Encode(commitOf(t, nil, 7, "x", emptyTreeID))
			i := bytes.Index(pl, []byte("\x61x")) // message: tag 0 around "x"
			writeTyped(t, p, append(append(append([]byte{}, pl[:i]...), 0xc0), pl[i:]...))
		}, want: codes("E004")},
		{name: "payload with trailing bytes", damage: func(t *testing.T, p string) {
			writeTyped(t, p, append(Encode(treeOf()), 0x00))
		}, want: codes("E004")},
		{name: "tree entries not sorted by name", damage: func(t *testing.T, p string) {
			blob := firstOf(t, p, "blob")
			commitTo(t, p, writeTyped(t, p, Encode(treeOf(treeEntry(t, "b", "blob", blob), treeEntry(t, "a", "blob", blob)))))
		}, want: codes("E004")},
		{name: "unknown type name", damage: func(t *testing.T, p string) {
			writeTyped(t, p, Encode(Map("frob", Map("a", Uint(1)))))
		}, want: codes("E004")},
		{name: "root_tree names a blob", damage: func(t *testing.T, p string) {
			writeTyped(t, p, Encode(commitOf(t, nil, 1, "x", firstOf(t, p, "blob"))))
		}, want: codes("E004")},
		{name: "envelope: bad magic", damage: func(t *testing.T, p string) {
			c := Canonical(KindBlob, []byte("x"))
			c[4] = '2'
			writeCanon(t, p, c)
		}, want: codes("E003")},
		{name: "envelope: kind 3", damage: func(t *testing.T, p string) {
			c := Canonical(KindBlob, []byte("x"))
			c[5] = 3
			writeCanon(t, p, c)
		}, want: codes("E003")},
		{name: "envelope: declared length too small", damage: func(t *testing.T, p string) {
			c := Canonical(KindBlob, []byte("xyz"))
			binary.LittleEndian.PutUint64(c[6:], 2)
			writeCanon(t, p, c)
		}, want: codes("E003")},
		{name: "envelope: truncated header", damage: func(t *testing.T, p string) {
			writeCanon(t, p, []byte("CTXO1\x01\x00"))
		}, want: codes("E003")},
		{name: "ref directory ending in .tmp holding a head", damage: func(t *testing.T, p string) {
			h := head(t, p)
			d := filepath.Join(storeOf(p), "refs", "x.tmp")
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, h), []byte(h+"\n"), 0o644)
		}, want: codes("E018")},
		{name: "ref element of 64 uppercase hex digits", damage: func(t *testing.T, p string) {
			h := head(t, p)
			d := filepath.Join(storeOf(p), "refs", "x", strings.Repeat("A", 64))
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, h), []byte(h+"\n"), 0o644)
		}, want: codes("E018")},
		{name: "HEAD without its newline", damage: func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(storeOf(p), "HEAD"), []byte("ref: refs/main"), 0o644)
		}, want: codes()}, // §6.2: readers SHOULD accept it
		{name: "HEAD names main without refs/", damage: func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(storeOf(p), "HEAD"), []byte("ref: main\n"), 0o644)
		}, want: codes("E018")},
		{name: "STAGE without its newline", damage: func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(storeOf(p), "STAGE"), []byte(head(t, p)), 0o644)
		}, want: codes("E008")}, // §6.3: readers SHOULD accept it; but a commit is not a work_commit
		{name: "STAGE names a blob", damage: func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(storeOf(p), "STAGE"), []byte(firstOf(t, p, "blob")+"\n"), 0o644)
		}, want: codes("E008")}, // §6.3: STAGE names a work_commit
		{name: "config with compression_level 23", damage: func(t *testing.T, p string) {
			f := filepath.Join(storeOf(p), "config.toml")
			b, _ := os.ReadFile(f)
			os.WriteFile(f, bytes.Replace(b, []byte("compression_level = 3"), []byte("compression_level = 23"), 1), 0o644)
		}, want: codes("E016")},
	})
}

// putHead writes a head file refs/<name>/<id> (name may be nested).
func putHead(t *testing.T, p, name, id string) {
	t.Helper()
	d := filepath.Join(storeOf(p), "refs", filepath.FromSlash(name))
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, id), []byte(id+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeStoreFile(t *testing.T, p, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(storeOf(p), name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRefs covers §6.1–§6.3 as tightened: every file and directory under
// refs/, reserved names, the exact HEAD and STAGE formats.
func TestRefs(t *testing.T) {
	mkdir := func(p, name string) {
		os.MkdirAll(filepath.Join(storeOf(p), "refs", filepath.FromSlash(name)), 0o755)
	}
	runDamage(t, []damageCase{
		// Ref names and directories.
		{name: "ref element of 64 mixed-case hex digits", damage: func(t *testing.T, p string) {
			putHead(t, p, "x/"+strings.Repeat("aB", 32), head(t, p))
		}, want: codes("E018")},
		{name: "ref element of 65 hex digits", damage: func(t *testing.T, p string) {
			putHead(t, p, "x/"+strings.Repeat("a", 65), head(t, p))
		}, want: codes()},
		{name: "ref name of 200 bytes", damage: func(t *testing.T, p string) {
			putHead(t, p, strings.Repeat("a", 100)+"/"+strings.Repeat("b", 99), head(t, p))
		}, want: codes()},
		{name: "ref name of 201 bytes", damage: func(t *testing.T, p string) {
			putHead(t, p, strings.Repeat("a", 100)+"/"+strings.Repeat("b", 100), head(t, p))
		}, want: codes("E018")},
		{name: "ref and a ref below it", damage: func(t *testing.T, p string) {
			putHead(t, p, "a", head(t, p))
			putHead(t, p, "a/b", head(t, p))
		}, want: codes()},
		{name: "empty directory with a valid name", damage: func(t *testing.T, p string) {
			mkdir(p, "empty")
		}, want: codes()},
		{name: "empty directory with an invalid name", damage: func(t *testing.T, p string) {
			mkdir(p, "x.lock")
		}, want: codes("E018")},
		{name: "empty directory of 201 bytes", damage: func(t *testing.T, p string) {
			mkdir(p, strings.Repeat("a", 100)+"/"+strings.Repeat("b", 100))
		}, want: codes("E018")},
		{name: "hidden directory holding a ref directory", damage: func(t *testing.T, p string) {
			putHead(t, p, ".hidden/main", head(t, p))
		}, want: codes("E018")},
		{name: "directory named by an ID in a ref directory", damage: func(t *testing.T, p string) {
			mkdir(p, "main/"+strings.Repeat("a", 64)) // heads are files, never directories
		}, want: codes("E018")},
		{name: "empty directory with a valid name in a ref directory", damage: func(t *testing.T, p string) {
			mkdir(p, "main/x")
		}, want: codes()},
		{name: "file named by an uppercase ID in a ref directory", damage: func(t *testing.T, p string) {
			h := strings.ToUpper(head(t, p))
			writeStoreFile(t, p, "refs/main/"+h, h+"\n")
		}, want: codes("E018")},
		{name: "lock file in a ref directory", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "refs/main/"+head(t, p)+".lock", "")
		}, want: codes("E018")},
		{name: "stray file directly in refs", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "refs/notes", "x\n")
		}, want: codes("E018")},
		{name: "temporary file directly in refs", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "refs/x.tmp", "x")
		}, want: codes()},
		{name: "refs is a file", damage: func(t *testing.T, p string) {
			os.RemoveAll(filepath.Join(storeOf(p), "refs"))
			writeStoreFile(t, p, "refs", "")
		}, want: codes("E005", "E018")},
		{name: "refs is missing", damage: func(t *testing.T, p string) {
			os.RemoveAll(filepath.Join(storeOf(p), "refs"))
		}, want: codes("E005")}, // no ref exists (git keeps no empty refs/)
		// Reserved names (§6.1).
		// Names whose first element is HEAD, STAGE or refs are reserved:
		// such a directory is no ref directory, and neither lists it.
		{name: "ref named HEAD", damage: func(t *testing.T, p string) {
			putHead(t, p, "HEAD", head(t, p))
		}, want: codes("E018")},
		{name: "ref named STAGE", damage: func(t *testing.T, p string) {
			putHead(t, p, "STAGE", head(t, p))
		}, want: codes("E018")},
		{name: "ref named refs", damage: func(t *testing.T, p string) {
			putHead(t, p, "refs", head(t, p))
		}, want: codes("E018")},
		{name: "ref whose first element is refs", damage: func(t *testing.T, p string) {
			putHead(t, p, "refs/main", head(t, p))
		}, want: codes("E018")},
		{name: "ref HEAD/x", damage: func(t *testing.T, p string) {
			putHead(t, p, "HEAD/x", head(t, p))
		}, want: codes("E018")},
		{name: "ref STAGE/x", damage: func(t *testing.T, p string) {
			putHead(t, p, "STAGE/x", head(t, p))
		}, want: codes("E018")},
		{name: "empty directory named HEAD", damage: func(t *testing.T, p string) {
			mkdir(p, "HEAD")
		}, want: codes("E018")},
		{name: "ref refsx (first element not refs)", damage: func(t *testing.T, p string) {
			putHead(t, p, "refsx/HEAD", head(t, p))
		}, want: codes()},
		{name: "ref x/HEAD", damage: func(t *testing.T, p string) {
			putHead(t, p, "x/HEAD", head(t, p))
		}, want: codes()},
		{name: "ref head (lowercase)", damage: func(t *testing.T, p string) {
			putHead(t, p, "head", head(t, p))
		}, want: codes()},
		// HEAD (§6.2).
		{name: "HEAD names a reserved ref HEAD", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "HEAD", "ref: refs/HEAD\n")
		}, want: codes("E018")},
		{name: "HEAD names a reserved ref STAGE", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "HEAD", "ref: refs/STAGE\n")
		}, want: codes("E018")},
		{name: "HEAD names refs/HEAD/x", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "HEAD", "ref: refs/HEAD/x\n")
		}, want: codes("E018")},
		{name: "HEAD names refs/refs/main", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "HEAD", "ref: refs/refs/main\n")
		}, want: codes("E018")},
		{name: "HEAD names an invalid ref name", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "HEAD", "ref: refs/x.lock\n")
		}, want: codes("E018")},
		{name: "HEAD with two newlines", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "HEAD", "ref: refs/main\n\n")
		}, want: codes("E018")},
		{name: "HEAD with CRLF", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "HEAD", "ref: refs/main\r\n")
		}, want: codes("E018")},
		{name: "HEAD with two spaces", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "HEAD", "ref:  refs/main\n")
		}, want: codes("E018")},
		{name: "HEAD empty", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "HEAD", "")
		}, want: codes("E018")},
		{name: "HEAD names a valid nested ref that does not exist", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "HEAD", "ref: refs/a/b\n")
		}, want: codes("E005")},
		{name: "HEAD names a ref directory holding only a temporary file", damage: func(t *testing.T, p string) {
			mkdir(p, "x")
			writeStoreFile(t, p, "refs/x/a.tmp", "")
			writeStoreFile(t, p, "HEAD", "ref: refs/x\n")
		}, want: codes("E005")},
		{name: "HEAD names a nested ref", damage: func(t *testing.T, p string) {
			putHead(t, p, "feature/x", head(t, p))
			writeStoreFile(t, p, "HEAD", "ref: refs/feature/x\n")
		}, want: codes()},
		// STAGE (§6.3).
		{name: "STAGE in uppercase", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "STAGE", strings.ToUpper(head(t, p))+"\n")
		}, want: codes("E018")},
		{name: "STAGE with CRLF", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "STAGE", head(t, p)+"\r\n")
		}, want: codes("E018")},
		{name: "STAGE with two newlines", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "STAGE", head(t, p)+"\n\n")
		}, want: codes("E018")},
		{name: "STAGE empty", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "STAGE", "")
		}, want: codes("E018")},
		{name: "STAGE holds the zero ID", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "STAGE", zeroID+"\n")
		}, want: codes("E018")},
		{name: "STAGE names a tree", damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "STAGE", emptyTreeID+"\n")
		}, want: codes("E008")},
		{name: "STAGE names a damaged object", damage: func(t *testing.T, p string) {
			id := writeTyped(t, p, []byte{0xa0}) // valid CBOR, not a typed object
			writeStoreFile(t, p, "STAGE", id+"\n")
		}, want: codes("E004", "E018")},
		{name: "STAGE is a directory", damage: func(t *testing.T, p string) {
			os.Mkdir(filepath.Join(storeOf(p), "STAGE"), 0o755)
		}, want: codes("E018")},
	})
}

// configWith returns a damage function that replaces config.toml.
func configWith(content string) func(t *testing.T, p string) {
	return func(t *testing.T, p string) { writeStoreFile(t, p, "config.toml", content) }
}

// TestConfig covers §8 and §12 as tightened: config.toml is required, so
// is repo.id, and a store with a missing or invalid config.toml is refused
// as a whole (E016) before anything else is checked.
func TestConfig(t *testing.T) {
	id := "[repo]\nid = \"p\"\n"
	runDamage(t, []damageCase{
		{name: "missing config.toml", damage: func(t *testing.T, p string) {
			os.Remove(filepath.Join(storeOf(p), "config.toml"))
		}, want: codes("E016")},
		{name: "missing config.toml and damaged HEAD", damage: func(t *testing.T, p string) {
			os.Remove(filepath.Join(storeOf(p), "config.toml"))
			writeStoreFile(t, p, "HEAD", "nope\n")
			os.Remove(objFile(p, head(t, p)))
		}, want: codes("E016")}, // nothing else is checked
		{name: "empty config.toml", damage: configWith(""), want: codes("E016")},
		{name: "config without repo.id", damage: configWith("[storage]\ncompression_level = 3\n"), want: codes("E016")},
		{name: "config with only repo.id", damage: configWith(id), want: codes()},
		{name: "config with a dotted repo.id", damage: configWith("repo.id = \"p\"\n"), want: codes()},
		{name: "config with repo.id an integer", damage: configWith("[repo]\nid = 5\n"), want: codes("E016")},
		{name: "config with compression_level 0", damage: configWith(id + "[storage]\ncompression_level = 0\n"), want: codes()},
		{name: "config with compression_level -1", damage: configWith(id + "[storage]\ncompression_level = -1\n"), want: codes("E016")},
		{name: "config with compression_level 3.0", damage: configWith(id + "[storage]\ncompression_level = 3.0\n"), want: codes("E016")},
		{name: "config with default_depth 17", damage: configWith(id + "[retrieval]\ndefault_depth = 17\n"), want: codes("E016")},
		{name: "config with an ftp server_url", damage: configWith(id + "[llm]\nserver_url = \"ftp://x\"\n"), want: codes("E016")},
		{name: "config with an unknown table and key (ignored, a warning: §8)", damage: configWith(id + "[zz]\nk = 1\n"), want: codes()},
		{name: "config that is not TOML", damage: configWith("[repo\n"), want: codes("E016")},
		{name: "config with an empty model and no globs", damage: configWith(id + "[ingestion]\nignore_globs = []\n[llm]\nmodel = \"\"\n"), want: codes()},
		{name: "config.toml is a directory", damage: func(t *testing.T, p string) {
			os.Remove(filepath.Join(storeOf(p), "config.toml"))
			os.Mkdir(filepath.Join(storeOf(p), "config.toml"), 0o755)
		}, want: codes("E016")},
		// The ranges of §8.
		{name: "config with an empty repo.id", damage: configWith("[repo]\nid = \"\"\n"), want: codes("E016")},
		{name: "config with a two-line repo.id", damage: configWith("[repo]\nid = \"a\\nb\"\n"), want: codes("E016")},
		{name: "config with a repo.id holding a CR", damage: configWith("[repo]\nid = \"a\\rb\"\n"), want: codes("E016")},
		{name: "config with a repo.id of one space", damage: configWith("[repo]\nid = \" \"\n"), want: codes()},
		{name: "config with compression_level 22", damage: configWith(id + "[storage]\ncompression_level = 22\n"), want: codes()},
		{name: "config with default_depth 0", damage: configWith(id + "[retrieval]\ndefault_depth = 0\n"), want: codes()},
		{name: "config with default_depth 16", damage: configWith(id + "[retrieval]\ndefault_depth = 16\n"), want: codes()},
		{name: "config with default_depth -1", damage: configWith(id + "[retrieval]\ndefault_depth = -1\n"), want: codes("E016")},
		{name: "config with max_files_per_step 0", damage: configWith(id + "[ingestion]\nmax_files_per_step = 0\n"), want: codes("E016")},
		{name: "config with max_bytes_per_step 0", damage: configWith(id + "[ingestion]\nmax_bytes_per_step = 0\n"), want: codes("E016")},
		{name: "config with max_file_bytes 0", damage: configWith(id + "[ingestion]\nmax_file_bytes = 0\n"), want: codes("E016")},
		{name: "config with max_file_bytes 1", damage: configWith(id + "[ingestion]\nmax_file_bytes = 1\n"), want: codes()},
		{name: "config with default_budget 0", damage: configWith(id + "[retrieval]\ndefault_budget = 0\n"), want: codes("E016")},
		{name: "config with default_budget -1", damage: configWith(id + "[retrieval]\ndefault_budget = -1\n"), want: codes("E016")},
		{name: "config with max_response_tokens 0", damage: configWith(id + "[llm]\nmax_response_tokens = 0\n"), want: codes("E016")},
		{name: "config with an invalid ignore glob", damage: configWith(id + "[ingestion]\nignore_globs = [\"[\"]\n"), want: codes("E016")},
		{name: "config with an empty ignore glob", damage: configWith(id + "[ingestion]\nignore_globs = [\"a\", \"\"]\n"), want: codes("E016")},
		{name: "config with an ignore glob ending in a backslash", damage: configWith(id + "[ingestion]\nignore_globs = [\"a\\\\\"]\n"), want: codes("E016")},
		{name: "config with ignore globs **, a/**/b and {a,b}", damage: configWith(id + "[ingestion]\nignore_globs = [\"**\", \"a/**/b\", \"{a,b}\"]\n"), want: codes()},
		{name: "config with an https server_url", damage: configWith(id + "[llm]\nserver_url = \"https://h:8443/v1\"\n"), want: codes()},
		{name: "config with server_url http:// (no host)", damage: configWith(id + "[llm]\nserver_url = \"http://\"\n"), want: codes("E016")},
		{name: "config with an empty server_url", damage: configWith(id + "[llm]\nserver_url = \"\"\n"), want: codes("E016")},
		{name: "config with server_url http://:80 (a port, no host)", damage: configWith(id + "[llm]\nserver_url = \"http://:80\"\n"),
			want: codes("E016")},
		{name: "config with every llm key", damage: configWith(id + "[llm]\napi = \"openai\"\napi_key_env = \"OPENAI_API_KEY\"\ntemperature = 0.2\ntimeout = \"90s\"\nretries = 0\nstream = false\ncache_prompt = false\nslot = 1\nsystem_prefix = \"x\"\nresponse_instruction = \"\"\n"), want: codes()},
		{name: "config with an integer temperature", damage: configWith(id + "[llm]\ntemperature = 1\n"), want: codes()},
		{name: "config with llm.api anthropic", damage: configWith(id + "[llm]\napi = \"anthropic\"\n"), want: codes("E016")},
		{name: "config with an api_key_env holding a key", damage: configWith(id + "[llm]\napi_key_env = \"sk-123\"\n"), want: codes("E016")},
		{name: "config with temperature 3", damage: configWith(id + "[llm]\ntemperature = 3.0\n"), want: codes("E016")},
		{name: "config with timeout 0s", damage: configWith(id + "[llm]\ntimeout = \"0s\"\n"), want: codes("E016")},
		{name: "config with retries 11", damage: configWith(id + "[llm]\nretries = 11\n"), want: codes("E016")},
		{name: "config with slot -2", damage: configWith(id + "[llm]\nslot = -2\n"), want: codes("E016")},
	})
}

// TestSchemas stores typed objects that are canonical CBOR but break (or
// keep) a type's schema, and compares formatcheck with ctx verify.
func TestSchemas(t *testing.T) {
	const missing = "1111111111111111111111111111111111111111111111111111111111111111"
	type sc struct {
		name    string
		value   func(blob, commit, wc string) Value
		want    []string
		ctxWant []string
		note    string
	}
	B := func(id string) Value { return Bytes(idBytes(t, id)) }
	commitKV := func(blob string) []any {
		return []any{"parents", Array(), "timestamp_unix", Int(1), "message", Text("m"),
			"root_tree", B(emptyTreeID), "edge_batches", Array(), "narrative_refs",
			Array(Map("path", Text("a.md"), "stream", Text("main"), "role", Text("log"), "blob_id", B(blob)))}
	}
	without := func(kv []any, key string) []any {
		var r []any
		for i := 0; i < len(kv); i += 2 {
			if kv[i] != key {
				r = append(r, kv[i], kv[i+1])
			}
		}
		return r
	}
	with := func(kv []any, key string, v Value) []any { return append(without(kv, key), key, v) }
	work := func(commit string, kv ...any) Value {
		base := []any{"parents", Array(), "base", B(commit), "session_id", Text("s"), "created_at", Int(1),
			"step_kind", Text("note"), "payload", Array(), "narrative_refs", Array()}
		for i := 0; i < len(kv); i += 2 {
			base = with(base, kv[i].(string), kv[i+1].(Value))
		}
		return Map("work_commit", Map(base...))
	}
	edge := func(blob string, kv ...any) Value {
		e := []any{"from", Map("kind", Text("file"), "id", B(blob)), "to", Map("kind", Text("item"), "id", B(missing)),
			"label", Text("calls"), "evidence", Map("tool", Text("parser"), "confidence", Text("low"))}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				e = without(e, kv[i].(string))
			} else {
				e = with(e, kv[i].(string), kv[i+1].(Value))
			}
		}
		return Map("edge_batch", Map("edges", Array(Map(e...)), "created_at", Int(1)))
	}
	// tomb returns an edge_batch that removes one edge (§4.5), its
	// tombstone's fields replaced by kv (nil: removed).
	tomb := func(blob string, kv ...any) Value {
		e := []any{"from", Map("kind", Text("file"), "id", B(blob), "key", Text("a.go")),
			"to", Map("kind", Text("item"), "id", B(missing), "key", Text("net.Client.Connect")),
			"label", Text("calls"), "evidence", Map("tool", Text("human"), "confidence", Text("high"))}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				e = without(e, kv[i].(string))
			} else {
				e = with(e, kv[i].(string), kv[i+1].(Value))
			}
		}
		return Map("edge_batch", Map("edges", Array(), "created_at", Int(1), "tombstones", Array(Map(e...))))
	}
	withTombstones := func(v, ts Value) Value {
		v.M[0].V.M = append(v.M[0].V.M, Pair{Text("tombstones"), ts})
		return v
	}
	node := func(kind, id string, kv ...any) Value {
		return Map(append([]any{"kind", Text(kind), "id", B(id)}, kv...)...)
	}
	ev := func(kv ...any) Value {
		return Map(append([]any{"tool", Text("human"), "confidence", Text("low")}, kv...)...)
	}
	span := func(a, b, c, d uint64) Value {
		return Map("start_line", Uint(a), "start_col", Uint(b), "end_line", Uint(c), "end_col", Uint(d))
	}
	null := Value{Kind: KSimple, U: 22}
	commitWith := func(b, key string, v Value) Value { return Map("commit", Map(with(commitKV(b), key, v)...)) }
	nar := func(path, stream, role string, id Value) Value {
		return Array(Map("path", Text(path), "stream", Text(stream), "role", Text(role), "blob_id", id))
	}
	cases := []sc{
		{"valid commit", func(b, c, w string) Value { return Map("commit", Map(commitKV(b)...)) }, codes(), nil, ""},
		{"commit without message", func(b, c, w string) Value { return Map("commit", Map(without(commitKV(b), "message")...)) },
			codes("E004"), nil, ""},
		{"commit without timestamp_unix", func(b, c, w string) Value { return Map("commit", Map(without(commitKV(b), "timestamp_unix")...)) },
			codes("E004"), nil, ""},
		{"commit without parents", func(b, c, w string) Value { return Map("commit", Map(without(commitKV(b), "parents")...)) },
			codes("E004"), nil, ""},
		{"commit with null edge_batches", func(b, c, w string) Value {
			return Map("commit", Map(with(commitKV(b), "edge_batches", Value{Kind: KSimple, U: 22})...))
		}, codes("E004"), nil, ""},
		{"commit without root_tree", func(b, c, w string) Value { return Map("commit", Map(without(commitKV(b), "root_tree")...)) },
			codes("E004"), nil, ""},
		{"commit with a parent twice", func(b, c, w string) Value {
			return Map("commit", Map(with(commitKV(b), "parents", Array(B(c), B(c)))...))
		},
			codes("E004"), nil, ""},
		{"commit with a negative timestamp", func(b, c, w string) Value { return Map("commit", Map(with(commitKV(b), "timestamp_unix", Int(-5))...)) },
			codes(), nil, ""},
		{"commit with timestamp 2^63", func(b, c, w string) Value {
			return Map("commit", Map(with(commitKV(b), "timestamp_unix", Uint(1<<63))...))
		},
			codes("E004"), nil, ""},
		{"commit with an empty author", func(b, c, w string) Value { return Map("commit", Map(with(commitKV(b), "author", Text(""))...)) },
			codes("E004"), nil, ""},
		{"commit with a zero root_tree", func(b, c, w string) Value { return Map("commit", Map(with(commitKV(b), "root_tree", B(zeroID))...)) },
			codes("E004"), nil, ""},
		{"commit build_snapshot names a tree", func(b, c, w string) Value {
			return Map("commit", Map(with(commitKV(b), "build_snapshot", B(emptyTreeID))...))
		}, codes("E004"), nil, ""},
		{"commit semantic_snapshot names the empty tree", func(b, c, w string) Value {
			return Map("commit", Map(with(commitKV(b), "semantic_snapshot", B(emptyTreeID))...))
		}, codes(), nil, ""},
		{"commit snapshot names a blob", func(b, c, w string) Value { return Map("commit", Map(with(commitKV(b), "build_snapshot", B(b))...)) },
			codes("E004"), nil, ""},
		{"narrative_ref with ../", func(b, c, w string) Value {
			return Map("commit", Map(with(commitKV(b), "narrative_refs", Array(Map("path", Text("../a.md"), "stream", Text("main"), "role", Text("log"), "blob_id", B(b))))...))
		}, codes("E004"), nil, ""},
		{"narrative_ref without role", func(b, c, w string) Value {
			return Map("commit", Map(with(commitKV(b), "narrative_refs", Array(Map("path", Text("a.md"), "stream", Text("main"), "blob_id", B(b))))...))
		}, codes("E004"), nil, ""},
		{"narrative_ref blob_id names a tree", func(b, c, w string) Value {
			return Map("commit", Map(with(commitKV(b), "narrative_refs", Array(Map("path", Text("a.md"), "stream", Text("main"), "role", Text("log"), "blob_id", B(emptyTreeID))))...))
		}, codes("E004"), nil, ""},
		{"tree without entries", func(b, c, w string) Value { return Map("tree", Map()) }, codes("E004"), nil, ""},
		{"tree entry kind link", func(b, c, w string) Value { return treeOf(Map("name", Text("a"), "kind", Text("link"), "id", B(b))) },
			codes("E004"), nil, ""},
		{"tree entry name with /", func(b, c, w string) Value { return treeOf(treeEntry(t, "a/b", "blob", b)) }, codes("E004"), nil, ""},
		{"tree entry name ..", func(b, c, w string) Value { return treeOf(treeEntry(t, "..", "blob", b)) }, codes("E004"), nil, ""},
		{"tree entry repeated", func(b, c, w string) Value { return treeOf(treeEntry(t, "a", "blob", b), treeEntry(t, "a", "blob", b)) },
			codes("E004"), nil, ""},
		{"tree entry of kind tree naming a blob", func(b, c, w string) Value { return treeOf(treeEntry(t, "a", "tree", b)) }, codes("E004"), nil, ""},
		{"tree entry naming a missing object", func(b, c, w string) Value { return treeOf(treeEntry(t, "a", "blob", missing)) }, codes("E001"), nil, ""},
		{"tree entry with a zero id", func(b, c, w string) Value { return treeOf(treeEntry(t, "a", "blob", zeroID)) },
			codes("E004"), nil, ""},
		{"tree entry id of 31 bytes", func(b, c, w string) Value {
			return treeOf(Map("name", Text("a"), "kind", Text("blob"), "id", Bytes(make([]byte, 31))))
		}, codes("E004"), nil, ""},
		{"tree with an unknown field", func(b, c, w string) Value { return Map("tree", Map("entries", Array(), "zz", Uint(1))) }, codes(), nil, ""},
		{"payload map with two entries", func(b, c, w string) Value {
			return Value{Kind: KMap, M: []Pair{{Text("tree"), Map("entries", Array())}, {Text("zz"), Map()}}}
		}, codes("E004"), nil, ""},
		{"type name blob", func(b, c, w string) Value { return Map("blob", Map()) }, codes("E004"), nil, ""},
		{"type name with a capital", func(b, c, w string) Value { return Map("Tree", Map("entries", Array())) }, codes("E004"), nil, ""},
		{"valid work_commit", func(b, c, w string) Value { return work(c, "payload", Array(B(b), B(c))) }, codes(), nil, ""},
		{"work_commit with a parent", func(b, c, w string) Value { return work(c, "parents", Array(B(w))) }, codes(), nil, ""},
		{"work_commit parent names a commit", func(b, c, w string) Value { return work(c, "parents", Array(B(c))) }, codes("E004"), nil, ""},
		{"work_commit with a parent twice", func(b, c, w string) Value { return work(c, "parents", Array(B(w), B(w))) },
			codes("E004"), nil, ""},
		{"work_commit with an empty session_id", func(b, c, w string) Value { return work(c, "session_id", Text("")) }, codes("E004"), nil, ""},
		{"work_commit with step_kind nope", func(b, c, w string) Value { return work(c, "step_kind", Text("nope")) }, codes("E004"), nil, ""},
		{"work_commit base names a tree", func(b, c, w string) Value { return work(c, "base", B(emptyTreeID)) }, codes("E004"), nil, ""},
		{"work_commit payload twice", func(b, c, w string) Value { return work(c, "payload", Array(B(b), B(b))) }, codes("E004"), nil, ""},
		{"work_commit payload missing", func(b, c, w string) Value { return work(c, "payload", Array(B(missing))) }, codes("E001"), nil, ""},
		{"valid edge_batch", func(b, c, w string) Value {
			return edge(b, "weight", Float(0.25), "evidence", ev("commit_id", B(c), "blob_id", B(b), "span", span(1, 1, 2, 1)))
		}, codes(), nil, ""},
		{"edge weight integer", func(b, c, w string) Value { return edge(b, "weight", Uint(1)) },
			codes("E004"), nil, ""},
		{"edge weight infinite", func(b, c, w string) Value { return edge(b, "weight", Float(math.Inf(1))) }, codes("E004"), nil, ""},
		{"edge node with a zero id", func(b, c, w string) Value { return edge(b, "from", Map("kind", Text("file"), "id", B(zeroID))) }, codes("E004"), nil, ""},
		{"edge node kind blob", func(b, c, w string) Value { return edge(b, "from", Map("kind", Text("blob"), "id", B(b))) }, codes("E004"), nil, ""},
		{"edge label likes", func(b, c, w string) Value { return edge(b, "label", Text("likes")) }, codes("E004"), nil, ""},
		{"edge without evidence", func(b, c, w string) Value { return edge(b, "evidence", nil) }, codes("E004"), nil, ""},
		{"evidence tool robot", func(b, c, w string) Value {
			return edge(b, "evidence", Map("tool", Text("robot"), "confidence", Text("low")))
		}, codes("E004"), nil, ""},
		{"evidence commit_id names a blob", func(b, c, w string) Value { return edge(b, "evidence", ev("commit_id", B(b))) }, codes("E004"), nil, ""},
		{"evidence commit_id missing", func(b, c, w string) Value { return edge(b, "evidence", ev("commit_id", B(missing))) }, codes("E001"), nil, ""},
		{"span start_line 0", func(b, c, w string) Value { return edge(b, "evidence", ev("span", span(0, 1, 1, 1))) }, codes("E004"), nil, ""},
		{"span end_line before start_line", func(b, c, w string) Value { return edge(b, "evidence", ev("span", span(3, 1, 2, 1))) }, codes("E004"), nil, ""},
		{"span with columns 0", func(b, c, w string) Value { return edge(b, "evidence", ev("span", span(1, 0, 1, 0))) }, codes(), nil, ""},
		{"span with only start_line", func(b, c, w string) Value { return edge(b, "evidence", ev("span", Map("start_line", Uint(1)))) }, codes("E004"), nil, ""},

		// Required fields absent or null at any depth, optional fields null.
		{"work_commit without step_kind", func(b, c, w string) Value {
			v := work(c)
			v.M[0].V.M = slicesDelete(v.M[0].V.M, "step_kind")
			return v
		}, codes("E004"), nil, ""},
		{"edge node without kind", func(b, c, w string) Value { return edge(b, "from", Map("id", B(b))) }, codes("E004"), nil, ""},
		{"evidence without confidence", func(b, c, w string) Value { return edge(b, "evidence", Map("tool", Text("human"))) }, codes("E004"), nil, ""},
		{"commit with null message", func(b, c, w string) Value { return commitWith(b, "message", null) }, codes("E004"), nil, ""},
		{"commit with null author", func(b, c, w string) Value { return commitWith(b, "author", null) }, codes("E004"), nil, ""},
		{"commit with null build_snapshot", func(b, c, w string) Value { return commitWith(b, "build_snapshot", null) }, codes("E004"), nil, ""},
		{"edge with null weight", func(b, c, w string) Value { return edge(b, "weight", null) }, codes("E004"), nil, ""},
		{"evidence with null span", func(b, c, w string) Value { return edge(b, "evidence", ev("span", null)) }, codes("E004"), nil, ""},
		{"evidence with null commit_id", func(b, c, w string) Value { return edge(b, "evidence", ev("commit_id", null)) }, codes("E004"), nil, ""},
		// Wrong CBOR types.
		{"commit timestamp as a float", func(b, c, w string) Value { return commitWith(b, "timestamp_unix", Float(1.5)) }, codes("E004"), nil, ""},
		{"work_commit created_at as a float", func(b, c, w string) Value { return work(c, "created_at", Float(1)) }, codes("E004"), nil, ""},
		{"commit message as bytes", func(b, c, w string) Value { return commitWith(b, "message", Bytes([]byte("m"))) }, codes("E004"), nil, ""},
		{"commit body with an integer key", func(b, c, w string) Value {
			v := Map("commit", Map(commitKV(b)...))
			v.M[0].V.M = append(v.M[0].V.M, Pair{Uint(1), Uint(1)})
			return v
		}, codes("E004"), nil, ""},
		{"edge weight -2.0 (a float16)", func(b, c, w string) Value { return edge(b, "weight", Float(-2)) }, codes(), nil, ""},
		// The signed 64-bit range.
		{"commit with timestamp 2^63-1", func(b, c, w string) Value { return commitWith(b, "timestamp_unix", Uint(math.MaxInt64)) }, codes(), nil, ""},
		{"commit with timestamp -2^63", func(b, c, w string) Value { return commitWith(b, "timestamp_unix", Int(math.MinInt64)) }, codes(), nil, ""},
		{"commit with timestamp -2^63-1", func(b, c, w string) Value {
			return commitWith(b, "timestamp_unix", Value{Kind: KNint, U: 1 << 63})
		}, codes("E004"), nil, ""},
		{"edge_batch created_at 2^64-1", func(b, c, w string) Value {
			v := edge(b)
			v.M[0].V.M[1].V = Value{Kind: KUint, U: math.MaxUint64}
			return v
		}, codes("E004"), nil, ""},
		{"unknown field holding 2^64-1", func(b, c, w string) Value { return commitWith(b, "zz", Value{Kind: KUint, U: math.MaxUint64}) },
			codes(), nil, ""}, // the range applies to the fields the reader knows; it ignores the others (§4.1)
		// The all-zero ID in every ID field.
		{"commit parent zero", func(b, c, w string) Value { return commitWith(b, "parents", Array(B(zeroID))) }, codes("E004"), nil, ""},
		{"commit edge_batches zero", func(b, c, w string) Value { return commitWith(b, "edge_batches", Array(B(zeroID))) }, codes("E004"), nil, ""},
		{"commit build_snapshot zero", func(b, c, w string) Value { return commitWith(b, "build_snapshot", B(zeroID)) }, codes("E004"), nil, ""},
		{"narrative_ref blob_id zero", func(b, c, w string) Value {
			return commitWith(b, "narrative_refs", nar("a.md", "main", "log", B(zeroID)))
		}, codes("E004"), nil, ""},
		{"work_commit base zero", func(b, c, w string) Value { return work(c, "base", B(zeroID)) }, codes("E004"), nil, ""},
		{"work_commit parent zero", func(b, c, w string) Value { return work(c, "parents", Array(B(zeroID))) }, codes("E004"), nil, ""},
		{"work_commit payload zero", func(b, c, w string) Value { return work(c, "payload", Array(B(zeroID))) }, codes("E004"), nil, ""},
		{"evidence commit_id zero", func(b, c, w string) Value { return edge(b, "evidence", ev("commit_id", B(zeroID))) }, codes("E004"), nil, ""},
		{"evidence blob_id zero", func(b, c, w string) Value { return edge(b, "evidence", ev("blob_id", B(zeroID))) }, codes("E004"), nil, ""},
		{"edge node to with a zero id", func(b, c, w string) Value { return edge(b, "to", Map("kind", Text("item"), "id", B(zeroID))) }, codes("E004"), nil, ""},
		// Required text may be empty; only optional text may not.
		{"commit with an empty message", func(b, c, w string) Value { return commitWith(b, "message", Text("")) }, codes(), nil, ""},
		{"narrative_ref with an empty stream and role", func(b, c, w string) Value { return commitWith(b, "narrative_refs", nar("a.md", "", "", B(b))) }, codes(), nil, ""},
		// Spans.
		{"span with a negative column", func(b, c, w string) Value {
			return edge(b, "evidence", ev("span", Map("start_line", Uint(1), "start_col", Int(-1), "end_line", Uint(1), "end_col", Uint(0))))
		}, codes("E004"), nil, ""},
		{"span with end_col before start_col", func(b, c, w string) Value { return edge(b, "evidence", ev("span", span(1, 5, 1, 2))) }, codes(), nil, ""},
		{"span with a column of 2^32-1", func(b, c, w string) Value { return edge(b, "evidence", ev("span", span(1, 1<<32-1, 1, 0))) }, codes(), nil, ""},
		{"span with a column of 2^32", func(b, c, w string) Value { return edge(b, "evidence", ev("span", span(1, 1<<32, 1, 0))) }, codes("E004"), nil, ""},
		{"span with an end_line of 2^32", func(b, c, w string) Value { return edge(b, "evidence", ev("span", span(1, 1, 1<<32, 0))) }, codes("E004"), nil, ""},
		{"span with an end_line of 2^63", func(b, c, w string) Value { return edge(b, "evidence", ev("span", span(1, 1, 1<<63, 0))) }, codes("E004"), nil, ""},
		{"span with an unknown field", func(b, c, w string) Value {
			return edge(b, "evidence", ev("span", Map("start_line", Uint(1), "start_col", Uint(1), "end_line", Uint(1), "end_col", Uint(1), "zz", Uint(1))))
		}, codes(), nil, ""},
		// Nesting (§4.1): the payload map is level 1.
		{"unknown field nested to level 64", func(b, c, w string) Value { return commitWith(b, "zz", nestedArrays(62)) }, codes(), nil, ""},
		{"unknown field nested to level 65", func(b, c, w string) Value { return commitWith(b, "zz", nestedArrays(63)) }, codes("E004"), nil, ""},
		{"edge_batch with no edges", func(b, c, w string) Value { return Map("edge_batch", Map("edges", Array(), "created_at", Int(1))) }, codes(), nil, ""},

		// node_id.key (§4.5): optional text, so never present and empty (§4.1).
		{"edge nodes with keys", func(b, c, w string) Value {
			return edge(b, "from", node("file", b, "key", Text("net/client.go")), "to", node("commit", c, "key", Text(c)))
		}, codes(), nil, ""},
		{"edge node with an empty key", func(b, c, w string) Value { return edge(b, "from", node("file", b, "key", Text(""))) }, codes("E004"), nil, ""},
		{"edge node with a null key", func(b, c, w string) Value { return edge(b, "to", node("item", b, "key", null)) }, codes("E004"), nil, ""},
		{"edge node with a key as bytes", func(b, c, w string) Value { return edge(b, "from", node("file", b, "key", Bytes([]byte("a")))) }, codes("E004"), nil, ""},
		{"edge node with a key of one space", func(b, c, w string) Value { return edge(b, "from", node("file", b, "key", Text(" "))) }, codes(), nil, ""},

		// Tombstones (§4.5): from, to, label and evidence, all required,
		// checked as an edge's are; their evidence's references are those
		// of §4.6.
		{"valid tombstone", func(b, c, w string) Value {
			return tomb(b, "evidence", ev("commit_id", B(c), "blob_id", B(b), "span", span(1, 0, 3, 0)))
		}, codes(), nil, ""},
		{"tombstone without keys", func(b, c, w string) Value {
			return tomb(b, "from", node("file", b), "to", node("item", missing))
		}, codes(), nil, ""},
		{"edge_batch that adds and removes the same edge", func(b, c, w string) Value {
			return withTombstones(edge(b), tomb(b).M[0].V.M[2].V)
		}, codes(), nil, ""},
		{"edge_batch with empty tombstones", func(b, c, w string) Value { return withTombstones(edge(b), Array()) }, codes("E004"), nil, ""},
		{"edge_batch with null tombstones", func(b, c, w string) Value { return withTombstones(edge(b), null) }, codes("E004"), nil, ""},
		{"edge_batch with tombstones a map", func(b, c, w string) Value { return withTombstones(edge(b), Map()) }, codes("E004"), nil, ""},
		{"tombstone that is not a map", func(b, c, w string) Value { return withTombstones(edge(b), Array(Text("x"))) }, codes("E004"), nil, ""},
		{"tombstone without from", func(b, c, w string) Value { return tomb(b, "from", nil) }, codes("E004"), nil, ""},
		{"tombstone without to", func(b, c, w string) Value { return tomb(b, "to", nil) }, codes("E004"), nil, ""},
		{"tombstone without label", func(b, c, w string) Value { return tomb(b, "label", nil) }, codes("E004"), nil, ""},
		{"tombstone without evidence", func(b, c, w string) Value { return tomb(b, "evidence", nil) }, codes("E004"), nil, ""},
		{"tombstone with null label", func(b, c, w string) Value { return tomb(b, "label", null) }, codes("E004"), nil, ""},
		{"tombstone with a weight (unknown: ignored)", func(b, c, w string) Value { return tomb(b, "weight", Float(0.5)) }, codes(), nil, ""},
		{"tombstone label likes", func(b, c, w string) Value { return tomb(b, "label", Text("likes")) }, codes("E004"), nil, ""},
		{"tombstone label DerivedFrom (not the stored form)", func(b, c, w string) Value { return tomb(b, "label", Text("DerivedFrom")) }, codes("E004"), nil, ""},
		{"tombstone node kind blob", func(b, c, w string) Value { return tomb(b, "to", node("blob", b)) }, codes("E004"), nil, ""},
		{"tombstone node kind open-question", func(b, c, w string) Value { return tomb(b, "from", node("open-question", b)) }, codes("E004"), nil, ""},
		{"tombstone node without kind", func(b, c, w string) Value { return tomb(b, "from", Map("id", B(b))) }, codes("E004"), nil, ""},
		{"tombstone from with a zero id", func(b, c, w string) Value { return tomb(b, "from", node("file", zeroID)) }, codes("E004"), nil, ""},
		{"tombstone to with a zero id", func(b, c, w string) Value { return tomb(b, "to", node("item", zeroID)) }, codes("E004"), nil, ""},
		{"tombstone node with an empty key", func(b, c, w string) Value { return tomb(b, "to", node("item", b, "key", Text(""))) }, codes("E004"), nil, ""},
		{"tombstone evidence tool robot", func(b, c, w string) Value {
			return tomb(b, "evidence", Map("tool", Text("robot"), "confidence", Text("low")))
		}, codes("E004"), nil, ""},
		{"tombstone evidence confidence certain", func(b, c, w string) Value {
			return tomb(b, "evidence", Map("tool", Text("human"), "confidence", Text("certain")))
		}, codes("E004"), nil, ""},
		{"tombstone evidence without tool", func(b, c, w string) Value { return tomb(b, "evidence", Map("confidence", Text("low"))) }, codes("E004"), nil, ""},
		{"tombstone span start_line 0", func(b, c, w string) Value { return tomb(b, "evidence", ev("span", span(0, 1, 1, 1))) }, codes("E004"), nil, ""},
		{"tombstone span end_line before start_line", func(b, c, w string) Value { return tomb(b, "evidence", ev("span", span(3, 1, 2, 1))) }, codes("E004"), nil, ""},
		{"tombstone span with a column of 2^32", func(b, c, w string) Value { return tomb(b, "evidence", ev("span", span(1, 1<<32, 1, 0))) }, codes("E004"), nil, ""},
		{"tombstone span with only start_line", func(b, c, w string) Value { return tomb(b, "evidence", ev("span", Map("start_line", Uint(1)))) }, codes("E004"), nil, ""},
		{"tombstone span with end_col before start_col", func(b, c, w string) Value { return tomb(b, "evidence", ev("span", span(2, 9, 2, 1))) }, codes(), nil, ""},
		{"tombstone evidence commit_id zero", func(b, c, w string) Value { return tomb(b, "evidence", ev("commit_id", B(zeroID))) }, codes("E004"), nil, ""},
		{"tombstone evidence blob_id zero", func(b, c, w string) Value { return tomb(b, "evidence", ev("blob_id", B(zeroID))) }, codes("E004"), nil, ""},
		{"tombstone evidence commit_id missing", func(b, c, w string) Value { return tomb(b, "evidence", ev("commit_id", B(missing))) }, codes("E001"), nil, ""},
		{"tombstone evidence commit_id names a blob", func(b, c, w string) Value { return tomb(b, "evidence", ev("commit_id", B(b))) }, codes("E004"), nil, ""},
		{"tombstone evidence commit_id names a work_commit", func(b, c, w string) Value { return tomb(b, "evidence", ev("commit_id", B(w))) }, codes("E004"), nil, ""},
		{"tombstone evidence blob_id missing", func(b, c, w string) Value { return tomb(b, "evidence", ev("blob_id", B(missing))) }, codes("E001"), nil, ""},
		{"tombstone evidence blob_id names a commit", func(b, c, w string) Value { return tomb(b, "evidence", ev("blob_id", B(c))) }, codes("E004"), nil, ""},
		{"tombstone evidence with null blob_id", func(b, c, w string) Value { return tomb(b, "evidence", ev("blob_id", null)) }, codes("E004"), nil, ""},
	}
	base := demo(t)
	blob, commit := firstOf(t, base, "blob"), head(t, base)
	var dcs []damageCase
	for _, c := range cases {
		c := c
		dcs = append(dcs, damageCase{name: c.name, want: c.want, ctxWant: c.ctxWant, note: c.note,
			noCounts: c.ctxWant != nil,
			damage: func(t *testing.T, p string) {
				// A valid first step of a session, for work_commit parents.
				wc := writeTyped(t, p, Encode(work(commit)))
				pl := Encode(c.value(blob, commit, wc))
				if _, err := DecodeStrict(pl); errors.Is(err, errNonCanonical) {
					t.Fatalf("not canonical: %v", err)
				}
				writeTyped(t, p, pl)
			}})
	}
	runDamage(t, dcs)
}

// ---------------------------------------------------------------- DERIVED and scc_view

// writeDerived stores canonical bytes as a derived object, in
// DERIVED/objects/ (§2, §4.7: laid out like objects/), and returns its ID.
func writeDerived(t *testing.T, project string, canon []byte) string {
	t.Helper()
	id := ID(canon)
	f := filepath.Join(storeOf(project), "DERIVED", "objects", id[:2], id)
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, compress(t, canon), 0o444); err != nil {
		t.Fatal(err)
	}
	return id
}

// setLatest writes DERIVED/scc_latest.
func setLatest(t *testing.T, project, content string) {
	t.Helper()
	d := filepath.Join(storeOf(project), "DERIVED")
	os.MkdirAll(d, 0o755)
	if err := os.WriteFile(filepath.Join(d, "scc_latest"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sccSource is the source of §4.7 for a graph without narrative-declared
// edges: the blob id of "scc_view 1\n" and a "head H\n" line per head.
func sccSource(heads ...string) string {
	hs := append([]string(nil), heads...)
	sort.Strings(hs)
	text := "scc_view 1\n"
	for _, h := range hs {
		text += "head " + h + "\n"
	}
	return ID(Canonical(KindBlob, []byte(text)))
}

// sccViewOf returns a valid scc_view (§4.7) of four nodes: n1 → {n2, n3}
// (a cycle) → n4 (a self loop), its fields replaced by kv (nil: removed).
func sccViewOf(t *testing.T, head string, kv ...any) Value {
	B := func(id string) Value { return Bytes(idBytes(t, id)) }
	n := func(kind, digit string, extra ...any) Value {
		return Map(append([]any{"kind", Text(kind), "id", B(strings.Repeat(digit, 64))}, extra...)...)
	}
	pair := func(a, b uint64) Value { return Array(Uint(a), Uint(b)) }
	fields := []any{
		"source", B(sccSource(head)),
		"heads", Array(B(head)),
		"created_at", Int(1700000000),
		"nodes", Array(n("file", "1", "key", Text("a.go")), n("task", "2"), n("fact", "3"), n("item", "4", "key", Text("net.Dial"))),
		"comp", Array(Uint(0), Uint(1), Uint(1), Uint(2)),
		"count", Uint(3),
		"dag", Array(pair(0, 1), pair(1, 2)),
		"self_loops", Array(Uint(2)),
	}
	for i := 0; i < len(kv); i += 2 {
		var r []any
		for j := 0; j < len(fields); j += 2 {
			if fields[j] != kv[i] {
				r = append(r, fields[j], fields[j+1])
			}
		}
		if kv[i+1] != nil {
			r = append(r, kv[i], kv[i+1])
		}
		fields = r
	}
	return Map("scc_view", Map(fields...))
}

// TestSccView checks scc_views (§4.7), valid and inconsistent, in the
// two places one can be: in DERIVED/objects/ named by DERIVED/scc_latest,
// where damage is a warning (a reader MUST recompute a damaged view, so it
// is no damage of the store) and the object is not counted; and in
// objects/, where a derived object does not belong (a warning) and where
// an inconsistent one is an object whose schema is broken (E004).
func TestSccView(t *testing.T) {
	B := func(id string) Value { return Bytes(idBytes(t, id)) }
	U := func(us ...uint64) Value {
		vs := make([]Value, len(us))
		for i, u := range us {
			vs[i] = Uint(u)
		}
		return Array(vs...)
	}
	pair := func(a, b uint64) Value { return Array(Uint(a), Uint(b)) }
	node := func(kind, digit string, extra ...any) Value {
		return Map(append([]any{"kind", Text(kind), "id", B(strings.Repeat(digit, 64))}, extra...)...)
	}
	null := Value{Kind: KSimple, U: 22}
	type sc struct {
		name  string
		kv    []any // changes to sccViewOf's valid view
		valid bool
		// ctxValid: ctx reads the view as valid (an objects/ copy passes
		// its verify) although the spec says otherwise; see note.
		ctxValid bool
		note     string
	}
	cases := []sc{
		{name: "valid", valid: true},
		{name: "valid without self_loops", kv: []any{"self_loops", nil}, valid: true},
		{name: "valid: the empty graph", kv: []any{"nodes", Array(), "comp", Array(), "count", Uint(0), "dag", Array(), "self_loops", nil}, valid: true},
		{name: "valid: no DAG edges", kv: []any{"dag", Array()}, valid: true},
		{name: "valid: one component of every node", kv: []any{"comp", U(0, 0, 0, 0), "count", Uint(1), "dag", Array(), "self_loops", nil}, valid: true},
		{name: "valid: two heads", kv: []any{"heads", Array(B(emptyTreeID), B(strings.Repeat("e", 64)))}, valid: true},
		{name: "valid: a field this reader does not know", kv: []any{"zz", Uint(1)}, valid: true},
		// Schema (§4.1, §4.7).
		{name: "without source", kv: []any{"source", nil}},
		{name: "without nodes", kv: []any{"nodes", nil}},
		{name: "without dag", kv: []any{"dag", nil}},
		{name: "source zero", kv: []any{"source", B(zeroID)}},
		{name: "head zero", kv: []any{"heads", Array(B(zeroID))}},
		{name: "count as a float", kv: []any{"count", Float(3)}},
		{name: "null self_loops", kv: []any{"self_loops", null}},
		{name: "self_loops present but empty", kv: []any{"self_loops", Array()}},
		{name: "node with an empty key", kv: []any{"nodes", Array(node("file", "1", "key", Text("")), node("task", "2"), node("fact", "3"), node("item", "4"))}},
		{name: "node of kind blob", kv: []any{"nodes", Array(node("blob", "1"), node("task", "2"), node("fact", "3"), node("item", "4"))}},
		{name: "node with a zero id", kv: []any{"nodes", Array(Map("kind", Text("file"), "id", B(zeroID)), node("task", "2"), node("fact", "3"), node("item", "4"))}},
		// comp and count.
		{name: "comp shorter than nodes", kv: []any{"comp", U(0, 1, 1)}},
		{name: "comp longer than nodes", kv: []any{"comp", U(0, 1, 1, 2, 2)}},
		{name: "comp equal to count", kv: []any{"comp", U(0, 1, 1, 3)}},
		{name: "comp above count", kv: []any{"comp", U(0, 1, 1, 7)}},
		{name: "comp negative", kv: []any{"comp", Array(Uint(0), Uint(1), Uint(1), Int(-1))}},
		{name: "count 0 with nodes", kv: []any{"count", Uint(0)}},
		{name: "count above the number of nodes", kv: []any{"count", Uint(5)}},
		{name: "count of 2^63", kv: []any{"count", Uint(1 << 63)}},
		{name: "a component without nodes", kv: []any{"comp", U(0, 2, 2, 2), "dag", Array(), "self_loops", nil}},
		// nodes sorted by id.
		{name: "nodes not sorted", kv: []any{"nodes", Array(node("task", "2"), node("file", "1"), node("fact", "3"), node("item", "4"))}},
		{name: "a node twice", kv: []any{"nodes", Array(node("file", "1"), node("task", "2"), node("task", "2"), node("item", "4"))}},
		// dag: forward, in range, sorted, each once.
		{name: "dag edge not forward", kv: []any{"dag", Array(pair(1, 0))}},
		{name: "dag edge from a component to itself", kv: []any{"dag", Array(pair(1, 1))}},
		{name: "dag edge out of range", kv: []any{"dag", Array(pair(0, 1), pair(1, 3))}},
		{name: "dag not sorted", kv: []any{"dag", Array(pair(1, 2), pair(0, 1))}},
		{name: "dag edge twice", kv: []any{"dag", Array(pair(0, 1), pair(0, 1), pair(1, 2))}},
		{name: "dag edge of three integers", kv: []any{"dag", Array(Array(Uint(0), Uint(1), Uint(2)))}},
		{name: "dag edge of one integer", kv: []any{"dag", Array(Array(Uint(0)))}},
		{name: "dag edge that is not an array", kv: []any{"dag", Array(Uint(1))}},
		// self_loops: in range, sorted, each once, on components of one node.
		{name: "self_loops out of range", kv: []any{"self_loops", U(3)}},
		{name: "self_loops not sorted", kv: []any{"self_loops", U(2, 0)}},
		{name: "self_loops repeated", kv: []any{"self_loops", U(2, 2)}},
		{name: "self loop on a component of two nodes", kv: []any{"self_loops", U(1)}},
	}
	base := demo(t)
	root := "b2324ff3a1be72b011857ae6599338ba81b7ce88c8c74aab1ca5358124540de0"
	for _, c := range cases {
		payload := Encode(sccViewOf(t, root, c.kv...))
		if _, err := DecodeStrict(payload); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		canon := Canonical(KindTyped, payload)
		t.Run("DERIVED/"+c.name, func(t *testing.T) {
			p := copyTree(t, base)
			id := writeDerived(t, p, canon)
			setLatest(t, p, id+"\n")
			rep := validate(t, p)
			for _, pr := range rep.Problems {
				t.Errorf("problem (DERIVED/ holds no problems, only warnings): %v", pr)
			}
			warned := strings.Join(rep.Warnings, "\n")
			if c.valid {
				if rep.SccView != id {
					t.Errorf("SccView = %q, want %s; warnings:\n%s", rep.SccView, id, warned)
				}
			} else {
				if rep.SccView != "" || !strings.Contains(warned, "DERIVED/scc_latest: names "+id+", which is damaged") ||
					!strings.Contains(warned, "DERIVED/objects/"+id[:2]+"/"+id+": E004") {
					t.Errorf("SccView = %q, warnings:\n%s", rep.SccView, warned)
				} else {
					t.Logf("warnings: %s", warned)
				}
			}
			// ctx verify does not look into DERIVED/: clean, and the same
			// counts, so the derived object is counted by neither.
			v := verify(t, p)
			if !v.OK || len(v.Problems) != 0 {
				t.Errorf("ctx verify: %+v", v.Problems)
			}
			sameCounts(t, rep, v)
		})
	}
	var dcs []damageCase
	for _, c := range cases {
		want, ctxWant := codes("E004"), []string(nil)
		if c.valid {
			want = codes()
		}
		if c.ctxValid {
			ctxWant = codes()
		}
		dcs = append(dcs, damageCase{name: "objects/" + c.name, base: func(t *testing.T) string { return copyTree(t, base) },
			want: want, ctxWant: ctxWant, note: c.note, noCounts: ctxWant != nil,
			damage: func(t *testing.T, p string) {
				writeTyped(t, p, Encode(sccViewOf(t, root, c.kv...)))
			}})
	}
	runDamage(t, dcs)
	t.Run("objects/valid view warns", func(t *testing.T) {
		p := copyTree(t, base)
		id := writeTyped(t, p, Encode(sccViewOf(t, root)))
		rep := validate(t, p)
		if rep.Typed["scc_view"] != 1 || !strings.Contains(strings.Join(rep.Warnings, "\n"), ObjectPath(id)+": an scc_view in objects/") {
			t.Errorf("typed %v, warnings %q", rep.Typed, rep.Warnings)
		}
	})
}

// TestDerived checks DERIVED/ itself (§2, §4.7): the pointer scc_latest
// and the files of DERIVED/objects/. Nothing there is a problem of the
// store: a reader treats a missing DERIVED/ as empty and recomputes a
// damaged view.
func TestDerived(t *testing.T) {
	base := demo(t)
	root := "b2324ff3a1be72b011857ae6599338ba81b7ce88c8c74aab1ca5358124540de0"
	view := func(t *testing.T, p string) string {
		return writeDerived(t, p, Canonical(KindTyped, Encode(sccViewOf(t, root))))
	}
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, p string) string // returns the valid view's ID, if any
		warn   string                              // a warning that must be reported; "": none at all
		noView bool                                // Report.SccView must be empty
	}{
		{name: "no DERIVED", setup: func(t *testing.T, p string) string { return "" }, noView: true},
		{name: "empty DERIVED", setup: func(t *testing.T, p string) string {
			os.Mkdir(filepath.Join(storeOf(p), "DERIVED"), 0o755)
			return ""
		}, noView: true},
		{name: "a view and no scc_latest", setup: func(t *testing.T, p string) string { view(t, p); return "" }, noView: true},
		{name: "valid view", setup: func(t *testing.T, p string) string {
			id := view(t, p)
			setLatest(t, p, id+"\n")
			return id
		}},
		{name: "valid view and a stale one left beside it", setup: func(t *testing.T, p string) string {
			writeDerived(t, p, Canonical(KindTyped, Encode(sccViewOf(t, root, "created_at", Int(1)))))
			id := view(t, p)
			setLatest(t, p, id+"\n")
			return id
		}},
		{name: "scc_latest without its newline", setup: func(t *testing.T, p string) string {
			setLatest(t, p, view(t, p))
			return ""
		}, warn: "DERIVED/scc_latest: holds", noView: true},
		{name: "scc_latest in uppercase", setup: func(t *testing.T, p string) string {
			setLatest(t, p, strings.ToUpper(view(t, p))+"\n")
			return ""
		}, warn: "DERIVED/scc_latest: holds", noView: true},
		{name: "scc_latest with CRLF", setup: func(t *testing.T, p string) string {
			setLatest(t, p, view(t, p)+"\r\n")
			return ""
		}, warn: "DERIVED/scc_latest: holds", noView: true},
		{name: "scc_latest empty", setup: func(t *testing.T, p string) string {
			setLatest(t, p, "")
			return ""
		}, warn: "DERIVED/scc_latest: holds", noView: true},
		{name: "scc_latest names a missing view", setup: func(t *testing.T, p string) string {
			setLatest(t, p, strings.Repeat("5", 64)+"\n")
			return ""
		}, warn: "which is not in DERIVED/objects/", noView: true},
		{name: "scc_latest names an object of objects/", setup: func(t *testing.T, p string) string {
			setLatest(t, p, emptyTreeID+"\n")
			return ""
		}, warn: "(it is in objects/, not DERIVED/objects/)", noView: true},
		{name: "scc_latest names a derived tree", setup: func(t *testing.T, p string) string {
			setLatest(t, p, writeDerived(t, p, Canonical(KindTyped, Encode(treeOf())))+"\n")
			return ""
		}, warn: "a tree, not an scc_view", noView: true},
		{name: "scc_latest names a derived blob", setup: func(t *testing.T, p string) string {
			setLatest(t, p, writeDerived(t, p, Canonical(KindBlob, []byte("x")))+"\n")
			return ""
		}, warn: "a blob, not an scc_view", noView: true},
		{name: "scc_latest names a view that does not hash to its name", setup: func(t *testing.T, p string) string {
			id := view(t, p)
			f := filepath.Join(storeOf(p), "DERIVED", "objects", id[:2], id)
			os.Chmod(f, 0o644)
			os.WriteFile(f, compress(t, Canonical(KindTyped, Encode(sccViewOf(t, root, "created_at", Int(2))))), 0o444)
			setLatest(t, p, id+"\n")
			return ""
		}, warn: ": E002 HashMismatch: ", noView: true},
		{name: "scc_latest names a view that is not zstd", setup: func(t *testing.T, p string) string {
			id := view(t, p)
			f := filepath.Join(storeOf(p), "DERIVED", "objects", id[:2], id)
			os.Chmod(f, 0o644)
			os.WriteFile(f, []byte("not zstd"), 0o444)
			setLatest(t, p, id+"\n")
			return ""
		}, warn: "which is damaged", noView: true},
		{name: "scc_latest names a non-canonical view", setup: func(t *testing.T, p string) string {
			setLatest(t, p, writeDerived(t, p, Canonical(KindTyped, EncodeAsIs(sccViewOf(t, root))))+"\n")
			return ""
		}, warn: ": E004 DeserializationFailed: ", noView: true},
		{name: "scc_latest is a directory", setup: func(t *testing.T, p string) string {
			os.MkdirAll(filepath.Join(storeOf(p), "DERIVED", "scc_latest"), 0o755)
			return ""
		}, warn: "DERIVED/scc_latest: not a regular file", noView: true},
		{name: "DERIVED is a file", setup: func(t *testing.T, p string) string {
			writeStoreFile(t, p, "DERIVED", "")
			return ""
		}, warn: "DERIVED: not a directory", noView: true},
		{name: "stray file in DERIVED/objects", setup: func(t *testing.T, p string) string {
			id := view(t, p)
			setLatest(t, p, id+"\n")
			writeStoreFile(t, p, "DERIVED/objects/junk", "x")
			return id
		}, warn: "DERIVED/objects/junk: unexpected file in DERIVED/objects/"},
		{name: "object in the wrong shard of DERIVED/objects", setup: func(t *testing.T, p string) string {
			id := view(t, p)
			os.MkdirAll(filepath.Join(storeOf(p), "DERIVED", "objects", "zz"), 0o755)
			writeStoreFile(t, p, "DERIVED/objects/zz/"+id, "x")
			setLatest(t, p, id+"\n")
			return id
		}, warn: "DERIVED/objects/zz: unexpected file"},
		{name: "temporary file in DERIVED", setup: func(t *testing.T, p string) string {
			id := view(t, p)
			setLatest(t, p, id+"\n")
			writeStoreFile(t, p, "DERIVED/scc_latest.tmp", "x")
			return id
		}, warn: "DERIVED/scc_latest.tmp: temporary file"},
		{name: "other files in DERIVED (views of a newer writer)", setup: func(t *testing.T, p string) string {
			id := view(t, p)
			setLatest(t, p, id+"\n")
			writeStoreFile(t, p, "DERIVED/other_latest", "x")
			return id
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := copyTree(t, base)
			id := tc.setup(t, p)
			rep := validate(t, p)
			for _, pr := range rep.Problems {
				t.Errorf("problem: %v", pr)
			}
			warned := strings.Join(rep.Warnings, "\n")
			if tc.warn == "" && len(rep.Warnings) > 0 || tc.warn != "" && !strings.Contains(warned, tc.warn) {
				t.Errorf("warnings:\n%s\nwant %q", warned, tc.warn)
			}
			if tc.noView && rep.SccView != "" || !tc.noView && rep.SccView != id {
				t.Errorf("SccView = %q, want %q", rep.SccView, id)
			}
			v := verify(t, p)
			if !v.OK || len(v.Problems) != 0 {
				t.Errorf("ctx verify: %+v", v.Problems)
			}
			sameCounts(t, rep, v)
		})
	}
}

// TestSccViewCtx: ctx writes views that formatcheck accepts, uses one
// written from the spec alone (so §4.7's source agrees with ctx's), and
// recomputes a damaged one as §4.7 requires.
func TestSccViewCtx(t *testing.T) {
	type scc struct {
		Nodes int  `json:"nodes"`
		Fresh bool `json:"fresh"`
	}
	run := func(t *testing.T, p string) scc {
		t.Helper()
		var s scc
		if err := json.Unmarshal([]byte(mustCtx(t, p, "--json", "debug", "graph", "--scc")), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	latest := func(t *testing.T, p string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(storeOf(p), "DERIVED", "scc_latest"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(string(b), "\n")
	}
	t.Run("ctx's view of the demo", func(t *testing.T) {
		p := demo(t)
		if s := run(t, p); s.Fresh || s.Nodes == 0 {
			t.Fatalf("ctx debug graph --scc: %+v", s)
		}
		rep, _ := requireClean(t, p)
		if id := latest(t, p); rep.SccView != id || len(rep.Warnings) != 0 {
			t.Errorf("SccView %q, want %s; warnings %q", rep.SccView, id, rep.Warnings)
		}
		if s := run(t, p); !s.Fresh {
			t.Errorf("second run: %+v, want the stored view", s)
		}
	})
	// An empty graph (a new store: no batch, no narrative node), whose
	// source is the blob id of "scc_view 1\nhead ROOT\n".
	empty := func(t *testing.T, root string, kv ...any) Value {
		base := []any{"nodes", Array(), "comp", Array(), "count", Uint(0), "dag", Array(), "self_loops", nil}
		return sccViewOf(t, root, append(base, kv...)...)
	}
	t.Run("a view written from the spec", func(t *testing.T) {
		p := initProject(t)
		root := head(t, p)
		id := writeDerived(t, p, Canonical(KindTyped, Encode(empty(t, root))))
		setLatest(t, p, id+"\n")
		if rep, _ := requireClean(t, p); rep.SccView != id {
			t.Fatalf("SccView %q, want %s", rep.SccView, id)
		}
		if s := run(t, p); !s.Fresh {
			t.Errorf("ctx did not use the view (its source differs from ctx's?): %+v", s)
		}
		if got := latest(t, p); got != id {
			t.Errorf("scc_latest = %s, want %s", got, id)
		}
	})
	t.Run("a damaged view with the right source", func(t *testing.T) {
		p := initProject(t)
		root := head(t, p)
		id := writeDerived(t, p, Canonical(KindTyped, Encode(empty(t, root, "count", Uint(1)))))
		setLatest(t, p, id+"\n")
		if rep := validate(t, p); rep.SccView != "" || len(rep.Problems) != 0 {
			t.Fatalf("SccView %q, problems %v", rep.SccView, rep.Problems)
		}
		if s := run(t, p); s.Fresh {
			t.Errorf("ctx used a damaged view: %+v", s)
		}
		rep, _ := requireClean(t, p)
		if got := latest(t, p); got == id || rep.SccView != got || len(rep.Warnings) != 0 {
			t.Errorf("after ctx: scc_latest %s (damaged %s), SccView %q, warnings %q", got, id, rep.SccView, rep.Warnings)
		}
		if _, err := os.Stat(filepath.Join(storeOf(p), "DERIVED", "objects", id[:2], id)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the replaced view is still there (§4.7: the writer removes it): %v", err)
		}
	})
}

// nestedArrays returns n arrays, each holding the next; the innermost
// holds 0.
func nestedArrays(n int) Value {
	v := Uint(0)
	for i := 0; i < n; i++ {
		v = Array(v)
	}
	return v
}

// slicesDelete returns the pairs without the text key k.
func slicesDelete(ps []Pair, k string) []Pair {
	var r []Pair
	for _, p := range ps {
		if p.K.Kind != KText || p.K.S != k {
			r = append(r, p)
		}
	}
	return r
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

// commitTo makes refs/main a new commit (on the current head) whose root
// tree is tree, so that the tree is referenced.
func commitTo(t *testing.T, p, tree string) {
	t.Helper()
	setHead(t, p, writeTyped(t, p, Encode(commitOf(t, []string{head(t, p)}, 9, "m", tree))))
}

// ---------------------------------------------------------------- warnings

func TestWarnings(t *testing.T) {
	p := demo(t)
	st := storeOf(p)
	// A tree with a field this reader does not know (readers MUST ignore it).
	unk := writeTyped(t, p, Encode(Map("tree", Map("entries", Array(), "zz_new", Uint(1)))))
	commitTo(t, p, unk)
	os.WriteFile(filepath.Join(st, "objects", "junk"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(st, "objects", "ab.tmp"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(st, "refs", "main", "x.tmp"), []byte("x"), 0o644)
	// An object file in the wrong shard is not an object.
	blob := firstOf(t, p, "blob")
	wrong := "00"
	if blob[:2] == "00" {
		wrong = "01"
	}
	os.MkdirAll(filepath.Join(st, "objects", wrong), 0o755)
	data, _ := os.ReadFile(objFile(p, blob))
	os.WriteFile(filepath.Join(st, "objects", wrong, blob), data, 0o644)
	// A second head on main (as after a git merge of two clones).
	root := "b2324ff3a1be72b011857ae6599338ba81b7ce88c8c74aab1ca5358124540de0"
	os.WriteFile(filepath.Join(st, "refs", "main", root), []byte(root+"\n"), 0o644)

	rep := validate(t, p)
	for _, pr := range rep.Problems {
		t.Errorf("problem: %v", pr)
	}
	v := verify(t, p)
	if !v.OK || len(v.Problems) != 0 {
		t.Errorf("ctx verify: %+v", v.Problems)
	}
	sameCounts(t, rep, v)
	// The root is an ancestor of the other head: one effective head, which
	// ctx resolves main to.
	if r := rep.Refs[0]; len(r.Heads) != 2 || len(r.Effective) != 1 {
		t.Errorf("refs/main: %+v", r)
	} else if got := mustCtx(t, p, "rev-parse", "main"); got != r.Effective[0] {
		t.Errorf("ctx rev-parse main = %s, want the effective head %s", got, r.Effective[0])
	}
	t.Logf("formatcheck warnings: %q", rep.Warnings)
	t.Logf("ctx warnings: %q", v.Warnings)
	if len(rep.Warnings) != 6 || len(v.Warnings) != len(rep.Warnings) {
		t.Errorf("warnings: formatcheck %d, ctx %d, want 6", len(rep.Warnings), len(v.Warnings))
	}
}

// Two clones moved main from the root to different commits; git merged
// the head files: main is diverged (§6.1).
func TestDivergedRef(t *testing.T) {
	p := initProject(t)
	root := head(t, p)
	a := mustCtx(t, p, "commit-tree", emptyTreeID, "-p", root, "-m", "clone A")
	b := mustCtx(t, p, "commit-tree", emptyTreeID, "-p", root, "-m", "clone B")
	dir := filepath.Join(storeOf(p), "refs", "main")
	os.Remove(filepath.Join(dir, root))
	for _, id := range []string{a, b} {
		os.WriteFile(filepath.Join(dir, id), []byte(id+"\n"), 0o644)
	}
	rep, _ := requireClean(t, p)
	if r := rep.Refs[0]; len(r.Heads) != 2 || len(r.Effective) != 2 {
		t.Errorf("refs/main: %+v", r)
	}
	// Where one value is needed, a diverged ref is E014 (exit 34).
	if r := ctx(t, p, "rev-parse", "main"); r.exit != 34 || !strings.Contains(r.stderr, "E014") {
		t.Errorf("ctx rev-parse main: exit %d %s", r.exit, r.stderr)
	}
}

// ---------------------------------------------------------------- 4. third-party writer

func TestThirdPartyWriter(t *testing.T) {
	p := initProject(t)
	st := storeOf(p)
	root := head(t, p)

	blob, err := WriteObject(st, KindBlob, []byte("written by formatcheck\n"))
	if err != nil {
		t.Fatal(err)
	}
	nar, _ := WriteObject(st, KindBlob, []byte("# Decision\n"))
	sub, _ := WriteObject(st, KindTyped, Encode(treeOf(treeEntry(t, "x.go", "blob", blob))))
	tree, _ := WriteObject(st, KindTyped, Encode(treeOf(
		treeEntry(t, "README", "blob", blob), treeEntry(t, "pkg", "tree", sub))))

	// An edge_batch with every optional field, including a float weight.
	node := func(kind, id string) Value { return Map("kind", Text(kind), "id", Bytes(idBytes(t, id))) }
	batch, _ := WriteObject(st, KindTyped, Encode(Map("edge_batch", Map(
		"created_at", Int(1700000000),
		"edges", Array(Map(
			"from", node("file", blob), "to", node("decision", nar),
			"label", Text("mentions"), "weight", Float(0.5),
			"evidence", Map("span", Map("start_line", Uint(1), "start_col", Uint(1),
				"end_line", Uint(2), "end_col", Uint(3)),
				"blob_id", Bytes(idBytes(t, nar)), "tool", Text("human"), "confidence", Text("high")),
		))))))
	narRef := Map("path", Text("decisions/0001.md"), "stream", Text("main"),
		"role", Text("decision"), "blob_id", Bytes(idBytes(t, nar)))
	commit, _ := WriteObject(st, KindTyped, Encode(Map("commit", Map(
		"parents", Array(Bytes(idBytes(t, root))), "timestamp_unix", Int(1700000001),
		"author", Text("formatcheck"), "message", Text("third-party commit"),
		"root_tree", Bytes(idBytes(t, tree)), "edge_batches", Array(Bytes(idBytes(t, batch))),
		"narrative_refs", Array(narRef)))))
	work, _ := WriteObject(st, KindTyped, Encode(Map("work_commit", Map(
		"parents", Array(), "base", Bytes(idBytes(t, commit)), "session_id", Text("s1"),
		"created_at", Int(1700000002), "step_kind", Text("session_start"),
		"payload", Array(Bytes(idBytes(t, commit)), Bytes(idBytes(t, nar))), "narrative_refs", Array(narRef)))))
	// A session (§4.14, §6.5): its state, and the journal naming it.
	state, _ := WriteObject(st, KindTyped, Encode(Map("session_state", Map(
		"session_id", Text("s1"), "task", Text("third-party session"), "base", Bytes(idBytes(t, commit)),
		"head", Bytes(idBytes(t, work)), "created_at", Int(1700000002), "segment_at", Int(1700000002),
		"updated_at", Int(1700000002), "mode", Text("running"), "steps", Uint(0), "tokens", Uint(0),
		"budgets", Map("max_files_per_step", Uint(10), "max_bytes_per_step", Uint(1<<20), "max_edges_per_step", Uint(100)),
	))))
	os.MkdirAll(filepath.Join(st, "sessions"), 0o755)
	os.WriteFile(filepath.Join(st, "sessions", "s1"), []byte(state+"\n"), 0o644)

	// ctx reads every object back.
	if got := ctx(t, p, "cat-object", "-p", blob).stdout; got != "written by formatcheck\n" {
		t.Errorf("ctx cat-object -p blob = %q", got)
	}
	for _, id := range []string{tree, batch, commit, work, state} {
		r := ctx(t, p, "--json", "cat-object", "-p", id)
		if r.exit != 0 {
			t.Errorf("ctx cat-object -p %s: exit %d %s", id, r.exit, r.stderr)
		}
	}
	lsOut := mustCtx(t, p, "--json", "ls-tree", tree)
	if !strings.Contains(lsOut, blob) || !strings.Contains(lsOut, sub) {
		t.Errorf("ctx ls-tree: %s", lsOut)
	}
	if r := ctx(t, p, "cat-object", "-t", batch); strings.TrimSpace(r.stdout) != "edge_batch" {
		t.Errorf("cat-object -t: %q", r.stdout)
	}
	// ctx computes the same IDs for the same content (typed via --raw round trip).
	rawFile := filepath.Join(t.TempDir(), "c.cbor")
	os.WriteFile(rawFile, []byte(ctx(t, p, "cat-object", "--raw", commit).stdout), 0o644)
	if got := mustCtx(t, p, "hash-object", "-t", "typed", rawFile); got != commit {
		t.Errorf("ctx hash-object of our commit payload = %s, want %s", got, commit)
	}

	// §3.2: writers sharing a store through git SHOULD produce exactly
	// the bytes ctx produces (see also TestWriterBytes).
	q := initProject(t)
	src := filepath.Join(t.TempDir(), "b")
	os.WriteFile(src, []byte("written by formatcheck\n"), 0o644)
	mustCtx(t, q, "hash-object", "-w", src)
	ours, _ := os.ReadFile(objFile(p, blob))
	theirs, _ := os.ReadFile(objFile(q, blob))
	if !bytes.Equal(ours, theirs) {
		t.Errorf("object file of %s differs from ctx's", blob)
	}

	// Move main and STAGE with files written per §6.1 and §6.3.
	setHead(t, p, commit)
	os.WriteFile(filepath.Join(st, "STAGE"), []byte(work+"\n"), 0o644)
	rep, _ := requireClean(t, p)
	if rep.Typed["edge_batch"] != 1 || rep.Typed["work_commit"] != 1 || rep.Blobs != 2 {
		t.Errorf("counts: %+v", rep)
	}
	if got := mustCtx(t, p, "rev-parse", "main"); got != commit {
		t.Errorf("ctx rev-parse main = %s, want %s", got, commit)
	}
	if out := mustCtx(t, p, "log"); !strings.Contains(out, "third-party commit") {
		t.Errorf("ctx log: %s", out)
	}
}

// TestWriterBytes: the object files WriteObject writes are byte for byte
// those ctx writes (§3.2), at several compression levels of config.toml
// and on both sides of the 8 MiB switch from EncodeAll to a streaming
// encoder.
func TestWriterBytes(t *testing.T) {
	const mib8 = 8 << 20
	text := bytes.Repeat([]byte("object bytes must not depend on the writer, 0123456789\n"), 3000)
	big := func(n int) []byte { // compressible, not trivially
		b := make([]byte, n)
		x := uint32(1)
		for i := range b {
			x = x*1664525 + 1013904223
			b[i] = byte(x>>24) & 0x3f
		}
		return b
	}
	for _, tc := range []struct {
		name  string
		level string // "" keeps the config of ctx init
		data  []byte
	}{
		{"default level", "", text},
		{"level 0 (the default)", "0", text},
		{"level 1", "1", text},
		{"level 7", "7", text},
		{"level 19", "19", text},
		{"canonical bytes of exactly 8 MiB", "", big(mib8 - 14)},
		{"payload of 8 MiB + 1", "", big(mib8 + 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := initProject(t)
			if tc.level != "" {
				f := filepath.Join(storeOf(p), "config.toml")
				b, _ := os.ReadFile(f)
				nb := bytes.Replace(b, []byte("compression_level = 3"), []byte("compression_level = "+tc.level), 1)
				if bytes.Equal(b, nb) {
					t.Fatalf("config.toml has no compression_level = 3:\n%s", b)
				}
				os.WriteFile(f, nb, 0o644)
			}
			src := filepath.Join(t.TempDir(), "f")
			os.WriteFile(src, tc.data, 0o644)
			id := mustCtx(t, p, "hash-object", "-w", src)
			theirs, err := os.ReadFile(objFile(p, id))
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(objFile(p, id))
			if got, err := WriteObject(storeOf(p), KindBlob, tc.data); err != nil || got != id {
				t.Fatalf("WriteObject: %s %v, want %s", got, err, id)
			}
			ours, _ := os.ReadFile(objFile(p, id))
			if !bytes.Equal(ours, theirs) {
				t.Errorf("object file differs from ctx's: %d bytes, ctx %d", len(ours), len(theirs))
			}
		})
	}
}

// Object files: several frames, frames without a content size, and a
// skippable frame, are read alike by formatcheck and ctx (§3.2).
func TestZstdFraming(t *testing.T) {
	p := initProject(t)
	st := storeOf(p)
	canon := Canonical(KindBlob, []byte("first half|second half"))
	id := ID(canon)
	// Two frames, the second written by the streaming encoder (no content size).
	var buf bytes.Buffer
	buf.Write(compress(t, canon[:20]))
	w, _ := zstd.NewWriter(&buf)
	w.Write(canon[20:])
	w.Close()
	// A skippable frame (RFC 8878 §3.1.2) at the end.
	buf.Write([]byte{0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3})
	if err := WriteRawObjectFile(st, id, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	requireClean(t, p)
	if got := ctx(t, p, "cat-object", "-p", id).stdout; got != "first half|second half" {
		t.Errorf("ctx cat-object: %q", got)
	}
}

// The strict decoder rejects every non-deterministic form and accepts the
// deterministic ones.
func TestCBORDeterminism(t *testing.T) {
	good := []string{"00", "17", "1818", "19 0100", "1a 00010000", "1b 0000000100000000", "20", "3818",
		"40", "60", "80", "a0", "f4", "f6", "f9 3c00", "f9 7e00", "fa 47c35000", "fb 3ff199999999999a",
		"a2 61 61 00 61 62 00", "a2 61 62 00 62 6161 00", "f8 20",
		strings.Repeat("81", 63) + "80",    // 64 levels of arrays
		strings.Repeat("a1 60", 63) + "a0", // 64 levels of maps
		strings.Repeat("81", 63) + "81 00"} // scalars add no level
	for _, h := range good {
		if _, err := DecodeStrict(unhex(t, h)); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	bad := []string{
		"18 17",                            // 23 in two bytes
		"19 00ff",                          // 255 in three bytes
		"59 0001 61",                       // length in a non-shortest form
		"5f ff",                            // indefinite byte string
		"bf ff",                            // indefinite map
		"fa 3f800000",                      // 1.0 as float32 (float16 suffices)
		"fb 3ff0000000000000",              // 1.0 as float64
		"a2 61 62 00 61 61 00",             // keys unsorted
		"a2 62 6161 00 61 62 00",           // longer key first
		"a2 61 61 00 61 61 01",             // duplicate key
		"c1 00",                            // tag
		"62 c328",                          // invalid UTF-8
		"00 00",                            // trailing bytes
		"1c",                               // reserved additional information
		"f8 10",                            // simple value in two bytes
		"82 00",                            // truncated
		strings.Repeat("81", 64) + "80",    // 65 levels of arrays
		strings.Repeat("a1 60", 64) + "a0", // 65 levels of maps
	}
	for _, h := range bad {
		if _, err := DecodeStrict(unhex(t, h)); err == nil {
			t.Errorf("%s: accepted", h)
		}
	}
	// Shortest floats.
	for f, want := range map[float64]string{0: "f90000", 1.5: "f93e00", 65504: "f97bff",
		5.960464477539063e-8: "f90001", 100000: "fa47c35000", 1.1: "fb3ff199999999999a"} {
		if got := hex.EncodeToString(Encode(Float(f))); got != want {
			t.Errorf("Encode(%v) = %s, want %s", f, got, want)
		}
	}
}

// TestNotAStore: a directory is a store when it contains a directory
// objects/ and a regular file HEAD (§2); otherwise both refuse it (E011).
func TestNotAStore(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(st string)
	}{
		{"HEAD is a directory", func(st string) {
			os.Remove(filepath.Join(st, "HEAD"))
			os.Mkdir(filepath.Join(st, "HEAD"), 0o755)
		}},
		{"HEAD is missing", func(st string) { os.Remove(filepath.Join(st, "HEAD")) }},
		{"objects is a file", func(st string) {
			os.RemoveAll(filepath.Join(st, "objects"))
			os.WriteFile(filepath.Join(st, "objects"), nil, 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := initProject(t)
			tc.damage(storeOf(p))
			if _, err := Validate(p); !errors.Is(err, ErrNotStore) {
				t.Errorf("formatcheck: %v, want ErrNotStore", err)
			}
			got, v, exit, msg := ctxCodes(t, p)
			if v != nil || !sameCodes(got, codes("E011")) || exit != exitOf["E011"] {
				t.Errorf("ctx verify: %v exit %d, want E011 exit %d\n%s", got, exit, exitOf["E011"], msg)
			}
		})
	}
}

// TestSourcesRead reads ctx's Go sources, so that `go test` caches this
// package's result only while they are unchanged: TestMain builds ctx with
// a `go build` subprocess, which the test cache cannot see.
func TestSourcesRead(t *testing.T) {
	err := filepath.WalkDir(filepath.Join("..", ".."), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && d.Name() != "." && d.Name() != "..") {
			return fs.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum") {
			_, err = os.ReadFile(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
