package formatcheck

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// The typed objects of code ingestion (FORMAT.md §4.8–§4.13) and the rules
// §4.3 and §4.8 put on the trees a commit reaches.

// ---------------------------------------------------------------- field helpers

// intValue returns the value of an integer checked by asInt.
func intValue(x Value) int64 {
	if x.Kind == KNint {
		return -1 - int64(x.U)
	}
	return int64(x.U)
}

// reqIntValue reads a required integer field (§4.1: within the signed
// 64-bit range) and returns its value.
func reqIntValue(get func(string) (Value, bool), where, key string) (int64, error) {
	x, err := req(get, where, key)
	if err != nil {
		return 0, err
	}
	if err := asInt(x, where+"."+key); err != nil {
		return 0, err
	}
	return intValue(x), nil
}

// reqIntMin reads a required integer field that must be at least min.
func reqIntMin(get func(string) (Value, bool), where, key string, min int64) (int64, error) {
	n, err := reqIntValue(get, where, key)
	if err != nil {
		return 0, err
	}
	if n < min {
		return 0, fmt.Errorf("%s.%s: %d is less than %d", where, key, n, min)
	}
	return n, nil
}

// optPositive reads an optional integer field: absent (0), or present and
// positive, since an optional integer present as 0 is the encoding of an
// absent value that is not the canonical one (§4.1). It returns 0 when the
// field is absent.
func optPositive(get func(string) (Value, bool), where, key string) (int64, error) {
	x, ok, err := opt(get, where, key)
	if err != nil || !ok {
		return 0, err
	}
	if err := asInt(x, where+"."+key); err != nil {
		return 0, err
	}
	n := intValue(x)
	if n == 0 {
		return 0, fmt.Errorf("%s.%s: optional integer present as 0 (absent when 0)", where, key)
	}
	if n < 0 {
		return 0, fmt.Errorf("%s.%s: %d is negative", where, key, n)
	}
	return n, nil
}

// optTrue reads an optional boolean field: absent, or present as true
// (§4.1: present as false is not canonical). It reports whether it is
// present.
func optTrue(get func(string) (Value, bool), where, key string) (bool, error) {
	x, ok, err := opt(get, where, key)
	if err != nil || !ok {
		return false, err
	}
	switch {
	case x.Kind == KSimple && x.U == 21:
		return true, nil
	case x.Kind == KSimple && x.U == 20:
		return false, fmt.Errorf("%s.%s: optional boolean present as false (present only when true)", where, key)
	}
	return false, fmt.Errorf("%s.%s: not a boolean", where, key)
}

// optTextValue reads an optional text field as optText checks it and
// returns its value ("" when absent).
func optTextValue(get func(string) (Value, bool), where, key string) (string, error) {
	if err := optText(get, where, key); err != nil {
		return "", err
	}
	x, ok := get(key)
	if !ok {
		return "", nil
	}
	return x.S, nil
}

// reqNonEmpty reads a required text field that must not be empty.
func reqNonEmpty(get func(string) (Value, bool), where, key string) (string, error) {
	t, err := reqText(get, where, key)
	if err != nil {
		return "", err
	}
	if t == "" {
		return "", fmt.Errorf("%s.%s: empty", where, key)
	}
	return t, nil
}

// oneLine reports whether s holds no CR or LF (§4.12: "one line").
func oneLine(s string) bool { return !strings.ContainsAny(s, "\r\n") }

// rootDir reports whether p is a root-relative directory (§4.9): "." or
// "/"-separated elements none of which is empty, "." or "..".
func rootDir(p string) bool {
	if p == "." {
		return true
	}
	for _, e := range strings.Split(p, "/") {
		if e == "" || e == "." || e == ".." {
			return false
		}
	}
	return true
}

// rootFile reports whether p is a root-relative file (§4.9): a
// root-relative directory other than ".".
func rootFile(p string) bool { return p != "." && rootDir(p) }

// textSet reads a list of text that is a sorted set (§4.10): strictly
// increasing, bytewise, without empty elements, each passing ok.
func textSet(x Value, where string, ok func(string) bool) error {
	a, err := asArray(x, where)
	if err != nil {
		return err
	}
	prev := ""
	for i, e := range a {
		we := fmt.Sprintf("%s[%d]", where, i)
		t, err := asText(e, we)
		if err != nil {
			return err
		}
		if t == "" {
			return fmt.Errorf("%s: empty", we)
		}
		if ok != nil && !ok(t) {
			return fmt.Errorf("%s: %q is not valid here", we, t)
		}
		if i > 0 && t <= prev {
			return fmt.Errorf("%s: %q does not sort strictly after %q (a sorted set)", we, t, prev)
		}
		prev = t
	}
	return nil
}

// optTextSet reads an optional sorted set of text (absent when empty). It
// reports whether it is present.
func optTextSet(get func(string) (Value, bool), where, key string, ok func(string) bool) (bool, error) {
	x, present, err := opt(get, where, key)
	if err != nil || !present {
		return false, err
	}
	if x.Kind == KArray && len(x.A) == 0 {
		return false, fmt.Errorf("%s.%s: optional list present but empty", where, key)
	}
	return true, textSet(x, where+"."+key, ok)
}

// optList reads an optional array: absent, or present and not empty
// (§4.1). It returns nil when absent.
func optList(get func(string) (Value, bool), where, key string) ([]Value, error) {
	x, ok, err := opt(get, where, key)
	if err != nil || !ok {
		return nil, err
	}
	a, err := asArray(x, where+"."+key)
	if err != nil {
		return nil, err
	}
	if len(a) == 0 {
		return nil, fmt.Errorf("%s.%s: optional list present but empty", where, key)
	}
	return a, nil
}

// reqList reads a required array.
func reqList(get func(string) (Value, bool), where, key string) ([]Value, error) {
	x, err := req(get, where, key)
	if err != nil {
		return nil, err
	}
	return asArray(x, where+"."+key)
}

// ---------------------------------------------------------------- 4.8 file_version

var (
	itemKinds = []string{"function", "method", "struct", "class", "interface", "trait", "enum", "type",
		"const", "var", "static", "macro", "module", "impl"}
	visibilities = []string{"public", "package", "private"}
	confidences  = []string{"high", "medium", "low"}
)

func (s *schema) fileVersion(b Value) error {
	const w = "file_version"
	get, err := s.body(w, b, "path", "blob", "bytes", "lines", "language", "binary", "module",
		"syntax_errors", "items", "imports", "nodes", "edges")
	if err != nil {
		return err
	}
	p, err := reqText(get, w, "path")
	if err != nil {
		return err
	}
	if !cleanRelPath(p) {
		return fmt.Errorf("%s.path: %q is not a clean relative path", w, p)
	}
	if err := s.reqID(get, w, "blob", "blob", "E001"); err != nil {
		return err
	}
	s.facts.path, s.facts.blob = p, s.refs[len(s.refs)-1].id
	for _, k := range []string{"bytes", "lines"} {
		if _, err := reqIntMin(get, w, k, 0); err != nil {
			return err
		}
	}
	if err := optText(get, w, "language"); err != nil {
		return err
	}
	if _, err := optTrue(get, w, "binary"); err != nil {
		return err
	}
	if m, ok, err := opt(get, w, "module"); err != nil {
		return err
	} else if ok {
		if err := s.codeNode(m, w+".module"); err != nil {
			return err
		}
	}
	if _, err := optPositive(get, w, "syntax_errors"); err != nil {
		return err
	}
	items, err := optList(get, w, "items")
	if err != nil {
		return err
	}
	for i, it := range items {
		if err := s.item(it, fmt.Sprintf("%s.items[%d]", w, i)); err != nil {
			return err
		}
	}
	imports, err := optList(get, w, "imports")
	if err != nil {
		return err
	}
	for i, im := range imports {
		wi := fmt.Sprintf("%s.imports[%d]", w, i)
		g, err := s.body(wi, im, "path", "alias", "target", "span")
		if err != nil {
			return err
		}
		if _, err := reqText(g, wi, "path"); err != nil {
			return err
		}
		if err := optText(g, wi, "alias"); err != nil {
			return err
		}
		t, err := req(g, wi, "target")
		if err != nil {
			return err
		}
		if err := s.codeNode(t, wi+".target"); err != nil {
			return err
		}
		if err := s.declSpan(g, wi); err != nil {
			return err
		}
	}
	nodes, err := optList(get, w, "nodes")
	if err != nil {
		return err
	}
	for i, n := range nodes {
		if err := s.codeNode(n, fmt.Sprintf("%s.nodes[%d]", w, i)); err != nil {
			return err
		}
	}
	edges, err := optList(get, w, "edges")
	if err != nil {
		return err
	}
	for i, e := range edges {
		we := fmt.Sprintf("%s.edges[%d]", w, i)
		g, err := s.body(we, e, "from", "to", "label", "span", "confidence")
		if err != nil {
			return err
		}
		for _, k := range []string{"from", "to"} {
			n, err := reqIntMin(g, we, k, 0)
			if err != nil {
				return err
			}
			if n >= int64(len(nodes)) {
				return fmt.Errorf("%s.%s: index %d, but %d nodes", we, k, n, len(nodes))
			}
		}
		l, err := reqText(g, we, "label")
		if err != nil {
			return err
		}
		if err := oneOf(l, we+".label", edgeLabels...); err != nil {
			return err
		}
		if sp, ok, err := opt(g, we, "span"); err != nil {
			return err
		} else if ok {
			if err := s.span(sp, we+".span"); err != nil {
				return err
			}
		}
		c, err := reqText(g, we, "confidence")
		if err != nil {
			return err
		}
		if err := oneOf(c, we+".confidence", confidences...); err != nil {
			return err
		}
	}
	return nil
}

// codeNode checks a node of a file_version (§4.8): kind one of §4.5's,
// key required text, ecosystem optional text and required for packages.
func (s *schema) codeNode(n Value, w string) error {
	g, err := s.body(w, n, "kind", "key", "ecosystem")
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
	if _, err := reqText(g, w, "key"); err != nil {
		return err
	}
	eco, err := optTextValue(g, w, "ecosystem")
	if err != nil {
		return err
	}
	if k == "package" && eco == "" {
		return fmt.Errorf("%s: a package node without ecosystem", w)
	}
	return nil
}

func (s *schema) item(it Value, w string) error {
	g, err := s.body(w, it, "kind", "name", "key", "parent", "visibility", "span", "signature_hash", "doc")
	if err != nil {
		return err
	}
	k, err := reqText(g, w, "kind")
	if err != nil {
		return err
	}
	if err := oneOf(k, w+".kind", itemKinds...); err != nil {
		return err
	}
	for _, f := range []string{"name", "key"} {
		if _, err := reqText(g, w, f); err != nil {
			return err
		}
	}
	if err := optText(g, w, "parent"); err != nil {
		return err
	}
	vis, err := reqText(g, w, "visibility")
	if err != nil {
		return err
	}
	if err := oneOf(vis, w+".visibility", visibilities...); err != nil {
		return err
	}
	if err := s.declSpan(g, w); err != nil {
		return err
	}
	if h, ok, err := opt(g, w, "signature_hash"); err != nil {
		return err
	} else if ok && (h.Kind != KBytes || len(h.B) != 16) {
		return fmt.Errorf("%s.signature_hash: not a byte string of 16 bytes", w)
	}
	return optText(g, w, "doc")
}

// declSpan checks the required span of an item or import (§4.8): §4.5's
// four fields, unsigned 32-bit integers, with no rule on the lines (all 0
// when the parser could not place it).
func (s *schema) declSpan(g func(string) (Value, bool), w string) error {
	v, err := req(g, w, "span")
	if err != nil {
		return err
	}
	gs, err := s.body(w+".span", v, "start_line", "start_col", "end_line", "end_col")
	if err != nil {
		return err
	}
	for _, k := range []string{"start_line", "start_col", "end_line", "end_col"} {
		x, err := req(gs, w+".span", k)
		if err != nil {
			return err
		}
		if _, err := asUint32(x, w+".span."+k); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------- 4.9 build_snapshot

// snapshotTypes maps a build_snapshot entry's ecosystem to the type of its
// snapshot (§4.9).
var snapshotTypes = map[string]string{"go": "go_packages", "cargo": "cargo_metadata"}

func (s *schema) buildSnapshot(b Value) error {
	const w = "build_snapshot"
	get, err := s.body(w, b, "entries")
	if err != nil {
		return err
	}
	entries, err := reqList(get, w, "entries")
	if err != nil {
		return err
	}
	var pe, pr string
	for i, e := range entries {
		we := fmt.Sprintf("%s.entries[%d]", w, i)
		g, err := s.body(we, e, "ecosystem", "root", "snapshot")
		if err != nil {
			return err
		}
		eco, err := reqText(g, we, "ecosystem")
		if err != nil {
			return err
		}
		if err := oneOf(eco, we+".ecosystem", "go", "cargo"); err != nil {
			return err
		}
		root, err := reqText(g, we, "root")
		if err != nil {
			return err
		}
		if !rootDir(root) {
			return fmt.Errorf("%s.root: %q is not a root-relative directory", we, root)
		}
		if i > 0 && (eco < pe || eco == pe && root <= pr) {
			return fmt.Errorf("%s: %s %q does not sort strictly after %s %q (by ecosystem, then root)", we, eco, root, pe, pr)
		}
		pe, pr = eco, root
		if err := s.reqID(g, we, "snapshot", snapshotTypes[eco], "E001"); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------- 4.10 go_packages

func (s *schema) goPackages(b Value) error {
	const w = "go_packages"
	get, err := s.body(w, b, "modules", "packages")
	if err != nil {
		return err
	}
	mods, err := reqList(get, w, "modules")
	if err != nil {
		return err
	}
	prev := ""
	for i, m := range mods {
		wm := fmt.Sprintf("%s.modules[%d]", w, i)
		g, err := s.body(wm, m, "path", "version", "main", "dir", "go_version", "replace")
		if err != nil {
			return err
		}
		p, err := reqNonEmpty(g, wm, "path")
		if err != nil {
			return err
		}
		if i > 0 && p <= prev {
			return fmt.Errorf("%s.path: %q does not sort strictly after %q", wm, p, prev)
		}
		prev = p
		for _, k := range []string{"version", "go_version", "replace"} {
			if err := optText(g, wm, k); err != nil {
				return err
			}
		}
		if _, err := optTrue(g, wm, "main"); err != nil {
			return err
		}
		if d, err := optTextValue(g, wm, "dir"); err != nil {
			return err
		} else if d != "" && !rootDir(d) {
			return fmt.Errorf("%s.dir: %q is not a root-relative directory", wm, d)
		}
	}
	pkgs, err := reqList(get, w, "packages")
	if err != nil {
		return err
	}
	prev = ""
	for i, p := range pkgs {
		wp := fmt.Sprintf("%s.packages[%d]", w, i)
		if err := s.goPackage(p, wp, i, &prev); err != nil {
			return err
		}
	}
	return nil
}

func (s *schema) goPackage(p Value, w string, i int, prev *string) error {
	g, err := s.body(w, p, "import_path", "name", "dir", "standard", "module", "go_files",
		"test_go_files", "xtest_go_files", "imports", "test_imports", "xtest_imports", "error",
		"deps_errors", "test_errors")
	if err != nil {
		return err
	}
	ip, err := reqNonEmpty(g, w, "import_path")
	if err != nil {
		return err
	}
	if i > 0 && ip <= *prev {
		return fmt.Errorf("%s.import_path: %q does not sort strictly after %q", w, ip, *prev)
	}
	*prev = ip
	name, err := optTextValue(g, w, "name")
	if err != nil {
		return err
	}
	dir, err := optTextValue(g, w, "dir")
	if err != nil {
		return err
	}
	if dir != "" && !rootDir(dir) {
		return fmt.Errorf("%s.dir: %q is not a root-relative directory", w, dir)
	}
	if _, err := optTrue(g, w, "standard"); err != nil {
		return err
	}
	for _, k := range []string{"module", "error"} {
		if err := optText(g, w, k); err != nil {
			return err
		}
	}
	project := name != ""
	for _, k := range []string{"go_files", "test_go_files", "xtest_go_files"} {
		present, err := optTextSet(g, w, k, rootFile)
		if err != nil {
			return err
		}
		project = project || present
	}
	for _, k := range []string{"imports", "test_imports", "xtest_imports"} {
		present, err := optTextSet(g, w, k, nil)
		if err != nil {
			return err
		}
		project = project || present
	}
	for _, k := range []string{"deps_errors", "test_errors"} {
		if _, err := optTextSet(g, w, k, nil); err != nil {
			return err
		}
	}
	if dir == "" && project {
		return fmt.Errorf("%s: name, files or imports without dir (only project packages have them)", w)
	}
	return nil
}

// ---------------------------------------------------------------- 4.11 cargo_metadata

var (
	targetKinds = []string{"lib", "bin", "test", "bench", "example", "proc_macro", "custom_build"}
	depKinds    = []string{"normal", "dev", "build"}
)

func (s *schema) cargoMetadata(b Value) error {
	const w = "cargo_metadata"
	get, err := s.body(w, b, "workspace_root", "packages", "resolve")
	if err != nil {
		return err
	}
	if _, err := reqNonEmpty(get, w, "workspace_root"); err != nil {
		return err
	}
	pkgs, err := reqList(get, w, "packages")
	if err != nil {
		return err
	}
	ids := map[string]bool{}
	prev := ""
	for i, p := range pkgs {
		wp := fmt.Sprintf("%s.packages[%d]", w, i)
		id, err := s.cargoPackage(p, wp)
		if err != nil {
			return err
		}
		if i > 0 && id <= prev {
			return fmt.Errorf("%s.package_id: %q does not sort strictly after %q", wp, id, prev)
		}
		prev = id
		ids[id] = true
	}
	deps, err := reqList(get, w, "resolve")
	if err != nil {
		return err
	}
	var pk [4]string
	for i, d := range deps {
		wd := fmt.Sprintf("%s.resolve[%d]", w, i)
		g, err := s.body(wd, d, "from_package_id", "to_package_id", "dep_kind", "target", "optional", "features_enabled")
		if err != nil {
			return err
		}
		var k [4]string
		for j, f := range []string{"from_package_id", "to_package_id"} {
			if k[j], err = reqText(g, wd, f); err != nil {
				return err
			}
			if !ids[k[j]] {
				return fmt.Errorf("%s.%s: %q is not a package_id of packages", wd, f, k[j])
			}
		}
		if k[2], err = reqText(g, wd, "dep_kind"); err != nil {
			return err
		}
		if err := oneOf(k[2], wd+".dep_kind", depKinds...); err != nil {
			return err
		}
		if k[3], err = optTextValue(g, wd, "target"); err != nil {
			return err
		}
		if _, err := optTrue(g, wd, "optional"); err != nil {
			return err
		}
		if _, err := optTextSet(g, wd, "features_enabled", nil); err != nil {
			return err
		}
		if i > 0 && !lessTuple(pk[:], k[:]) {
			return fmt.Errorf("%s: does not sort strictly after resolve[%d] (by from_package_id, to_package_id, dep_kind, target)", wd, i-1)
		}
		pk = k
	}
	return nil
}

// lessTuple compares text tuples bytewise, element by element.
func lessTuple(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func (s *schema) cargoPackage(p Value, w string) (string, error) {
	g, err := s.body(w, p, "package_id", "name", "version", "manifest_path", "edition", "source",
		"workspace_member", "features", "targets")
	if err != nil {
		return "", err
	}
	id, err := reqNonEmpty(g, w, "package_id")
	if err != nil {
		return "", err
	}
	if _, err := reqNonEmpty(g, w, "name"); err != nil {
		return "", err
	}
	for _, k := range []string{"version", "edition"} {
		if _, err := reqText(g, w, k); err != nil {
			return "", err
		}
	}
	if m, err := optTextValue(g, w, "manifest_path"); err != nil {
		return "", err
	} else if m != "" && !rootFile(m) {
		return "", fmt.Errorf("%s.manifest_path: %q is not a root-relative file", w, m)
	}
	if err := optText(g, w, "source"); err != nil {
		return "", err
	}
	if _, err := optTrue(g, w, "workspace_member"); err != nil {
		return "", err
	}
	if _, err := optTextSet(g, w, "features", nil); err != nil {
		return "", err
	}
	targets, err := reqList(g, w, "targets")
	if err != nil {
		return "", err
	}
	var pk [2]string
	for i, t := range targets {
		wt := fmt.Sprintf("%s.targets[%d]", w, i)
		gt, err := s.body(wt, t, "name", "kind", "src_path", "crate_types")
		if err != nil {
			return "", err
		}
		var k [2]string
		if k[1], err = reqNonEmpty(gt, wt, "name"); err != nil {
			return "", err
		}
		if k[0], err = reqText(gt, wt, "kind"); err != nil {
			return "", err
		}
		if err := oneOf(k[0], wt+".kind", targetKinds...); err != nil {
			return "", err
		}
		if sp, err := optTextValue(gt, wt, "src_path"); err != nil {
			return "", err
		} else if sp != "" && !rootFile(sp) {
			return "", fmt.Errorf("%s.src_path: %q is not a root-relative file", wt, sp)
		}
		ct, err := req(gt, wt, "crate_types")
		if err != nil {
			return "", err
		}
		if err := textSet(ct, wt+".crate_types", nil); err != nil {
			return "", err
		}
		if i > 0 && !lessTuple(pk[:], k[:]) {
			return "", fmt.Errorf("%s: %s %q does not sort strictly after %s %q (by kind, then name)", wt, k[0], k[1], pk[0], pk[1])
		}
		pk = k
	}
	return id, nil
}

// ---------------------------------------------------------------- 4.12 command_run

var severities = []string{"error", "warning", "info", "hint"}

func (s *schema) commandRun(b Value) error {
	const w = "command_run"
	get, err := s.body(w, b, "name", "argv", "exit_code", "started_at", "duration_ms", "output",
		"truncated", "summary", "diagnostics")
	if err != nil {
		return err
	}
	name, err := reqNonEmpty(get, w, "name")
	if err != nil {
		return err
	}
	if !oneLine(name) {
		return fmt.Errorf("%s.name: more than one line", w)
	}
	argv, err := optList(get, w, "argv")
	if err != nil {
		return err
	}
	for i, a := range argv {
		if _, err := asText(a, fmt.Sprintf("%s.argv[%d]", w, i)); err != nil {
			return err
		}
	}
	for _, k := range []string{"exit_code", "started_at"} {
		if _, err := reqIntValue(get, w, k); err != nil {
			return err
		}
	}
	if _, err := reqIntMin(get, w, "duration_ms", 0); err != nil {
		return err
	}
	n := len(s.refs)
	if err := s.optID(get, w, "output", "blob"); err != nil {
		return err
	}
	output := len(s.refs) > n
	if t, err := optTrue(get, w, "truncated"); err != nil {
		return err
	} else if t && !output {
		return fmt.Errorf("%s.truncated: without output", w)
	}
	sum, err := req(get, w, "summary")
	if err != nil {
		return err
	}
	if err := s.summary(sum, w+".summary"); err != nil {
		return err
	}
	diags, err := reqList(get, w, "diagnostics")
	if err != nil {
		return err
	}
	for i, d := range diags {
		if err := s.diagnostic(d, fmt.Sprintf("%s.diagnostics[%d]", w, i)); err != nil {
			return err
		}
	}
	return nil
}

func (s *schema) summary(v Value, w string) error {
	g, err := s.body(w, v, "tool", "passed", "failed", "skipped", "errors", "warnings", "text")
	if err != nil {
		return err
	}
	for _, k := range []string{"tool", "text"} {
		t, err := reqText(g, w, k)
		if err != nil {
			return err
		}
		if !oneLine(t) {
			return fmt.Errorf("%s.%s: more than one line", w, k)
		}
	}
	for _, k := range []string{"passed", "failed", "skipped"} {
		if _, err := reqIntMin(g, w, k, -1); err != nil {
			return err
		}
	}
	for _, k := range []string{"errors", "warnings"} {
		if _, err := reqIntMin(g, w, k, 0); err != nil {
			return err
		}
	}
	return nil
}

// Limits on a diagnostic's text (§4.12).
const (
	maxMessageBytes = 2048
	maxDetailLines  = 40
	maxDetailBytes  = 8192
)

func (s *schema) diagnostic(v Value, w string) error {
	g, err := s.body(w, v, "severity", "code", "message", "detail", "path", "external", "line", "col",
		"end_line", "end_col", "test", "tool")
	if err != nil {
		return err
	}
	sev, err := reqText(g, w, "severity")
	if err != nil {
		return err
	}
	if err := oneOf(sev, w+".severity", severities...); err != nil {
		return err
	}
	msg, err := reqNonEmpty(g, w, "message")
	if err != nil {
		return err
	}
	if !oneLine(msg) {
		return fmt.Errorf("%s.message: more than one line", w)
	}
	if len(msg) > maxMessageBytes {
		return fmt.Errorf("%s.message: %d bytes, more than %d", w, len(msg), maxMessageBytes)
	}
	detail, err := optTextValue(g, w, "detail")
	if err != nil {
		return err
	}
	if len(detail) > maxDetailBytes || strings.Count(detail, "\n") >= maxDetailLines {
		return fmt.Errorf("%s.detail: more than %d lines or %d bytes", w, maxDetailLines, maxDetailBytes)
	}
	for _, k := range []string{"code", "path", "test", "tool"} {
		t, err := optTextValue(g, w, k)
		if err != nil {
			return err
		}
		if !oneLine(t) {
			return fmt.Errorf("%s.%s: more than one line", w, k)
		}
	}
	p, _ := g("path")
	if p.Kind == KText && (p.S == "." || path.Clean(p.S) != p.S) {
		return fmt.Errorf("%s.path: %q is not clean", w, p.S)
	}
	if ext, err := optTrue(g, w, "external"); err != nil {
		return err
	} else if ext && p.Kind != KText {
		return fmt.Errorf("%s.external: without path", w)
	}
	var pos [4]int64
	for i, k := range []string{"line", "col", "end_line", "end_col"} {
		if pos[i], err = optPositive(g, w, k); err != nil {
			return err
		}
	}
	line, col, endLine, endCol := pos[0], pos[1], pos[2], pos[3]
	switch {
	case line == 0 && (col != 0 || endLine != 0):
		return fmt.Errorf("%s: col or end_line without line", w)
	case endLine == 0 && endCol != 0:
		return fmt.Errorf("%s: end_col without end_line", w)
	case endLine != 0 && endLine < line:
		return fmt.Errorf("%s: end_line %d before line %d", w, endLine, line)
	case endLine != 0 && endLine == line && endCol != 0 && endCol < col:
		return fmt.Errorf("%s: end_col %d before col %d on one line", w, endCol, col)
	}
	return nil
}

// ---------------------------------------------------------------- 4.13 diagnostics_snapshot

func (s *schema) diagnosticsSnapshot(b Value) error {
	const w = "diagnostics_snapshot"
	get, err := s.body(w, b, "runs")
	if err != nil {
		return err
	}
	runs, err := reqList(get, w, "runs")
	if err != nil {
		return err
	}
	prev := ""
	for i, r := range runs {
		wr := fmt.Sprintf("%s.runs[%d]", w, i)
		g, err := s.body(wr, r, "name", "run")
		if err != nil {
			return err
		}
		name, err := reqNonEmpty(g, wr, "name")
		if err != nil {
			return err
		}
		if i > 0 && name <= prev {
			return fmt.Errorf("%s.name: %q does not sort strictly after %q", wr, name, prev)
		}
		prev = name
		if err := s.reqID(g, wr, "run", "command_run", "E001"); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------- 4.3, 4.8 trees of a commit

// leaf is a non-tree entry found below a tree, by its path from that tree.
type leaf struct {
	kind, id string
}

// listing is the non-tree entries below a tree, by their "/"-joined
// paths relative to it; complete is false when a tree below it is
// missing, damaged or not a tree (a problem reported elsewhere), so that
// entries may be lacking.
type listing struct {
	leaves   map[string]leaf
	complete bool
}

// flatten lists the tree id, memoized per tree.
func (v *validator) flatten(id string, memo map[string]*listing) *listing {
	if l, ok := memo[id]; ok {
		return l
	}
	l := &listing{leaves: map[string]leaf{}, complete: true}
	memo[id] = l
	o, ok := v.objects[id]
	if !ok || !o.ok || o.typeName != "tree" {
		l.complete = false
		return l
	}
	for _, e := range o.facts.entries {
		if e.kind != "tree" {
			l.leaves[e.name] = leaf{e.kind, e.id}
			continue
		}
		sub := v.flatten(e.id, memo)
		l.complete = l.complete && sub.complete
		for p, x := range sub.leaves {
			l.leaves[e.name+"/"+p] = x
		}
	}
	return l
}

// checkCommitTrees applies §4.3 and §4.8 to the trees every intact commit
// reaches: below its root_tree only blob and tree entries; below its
// semantic_snapshot only tree and typed entries, each typed entry naming a
// file_version whose path is the entry's and whose blob is the root
// tree's at that path. A problem is E004 (§12), reported for the commit.
// References that are missing or of the wrong kind are left to
// checkReferences.
func (v *validator) checkCommitTrees() {
	ids := make([]string, 0, len(v.objects))
	for id, o := range v.objects {
		if o.ok && o.typeName == "commit" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	memo := map[string]*listing{}
	for _, id := range ids {
		c := v.objects[id]
		root := v.flatten(c.facts.rootTree, memo)
		files := root.leaves
		for _, p := range sortedKeys(files) {
			if l := files[p]; l.kind != "blob" {
				v.problem("E004", c.path, "root_tree: %s is a %s entry (§4.3: below a root tree, only blob and tree entries)", p, l.kind)
			}
		}
		if c.facts.semantic == "" {
			continue
		}
		if t, ok := v.objects[c.facts.semantic]; !ok || !t.ok || t.typeName != "tree" {
			continue // checkReferences reports it
		}
		versions := v.flatten(c.facts.semantic, memo).leaves
		for _, p := range sortedKeys(versions) {
			l := versions[p]
			if l.kind != "typed" {
				v.problem("E004", c.path, "semantic_snapshot: %s is a %s entry (§4.8: only tree and typed entries)", p, l.kind)
				continue
			}
			fv, ok := v.objects[l.id]
			if !ok || !fv.ok || fv.kind != KindTyped {
				continue // missing, damaged or a blob: reported for the tree
			}
			if fv.typeName != "file_version" {
				v.problem("E004", c.path, "semantic_snapshot: %s names %s, a %s, want a file_version (§4.8)", p, l.id, fv.typeName)
				continue
			}
			if fv.facts.path != p {
				v.problem("E004", c.path, "semantic_snapshot: %s names a file_version of path %q (§4.8)", p, fv.facts.path)
			}
			f, ok := files[p]
			switch {
			case !ok && root.complete:
				v.problem("E004", c.path, "semantic_snapshot: %s has a version, but the root tree has no file there (§4.8)", p)
			case f.kind == "blob" && f.id != fv.facts.blob:
				v.problem("E004", c.path, "semantic_snapshot: %s: the version's blob %s is not the root tree's %s (§4.8)", p, fv.facts.blob, f.id)
			}
		}
	}
}

func sortedKeys[T any](m map[string]T) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
