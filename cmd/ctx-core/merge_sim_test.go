package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMergeSimulation is the team simulation of issue 11: K teammates
// clone one shared repository (a bare "origin", as on a git host) with a
// ctx store and, for round after round, each does a random mix of ctx
// work — notes, decisions, facts, tasks, tags and untags, supersedes,
// deletions, relations and unlinks, code edits with ctx add code, whole
// staging sessions with compaction, hand edits of node files, narrative
// commits —
// commits it to git; then teammates in a random order pull the others'
// work with plain `git pull` (a merge) or `git pull --rebase` (no
// ctx-specific git configuration), and push. After every pull: git
// reported no conflict, ctx verify is clean, every node, tag, deletion,
// supersede, relation, journal line and ctx commit the puller has now
// seen is there, and a search and a query find the last pusher's latest
// note (the index refreshed by itself).
//
// CTX_MERGE_SEED picks the seed (default 1: CI's fixed one; "random" for
// a new one, printed), CTX_MERGE_MERGES the number of pulls (default 200).
func TestMergeSimulation(t *testing.T) {
	git := lookGit(t)
	ctx, _ := binaries(t)
	seed := uint64(1)
	switch s := os.Getenv("CTX_MERGE_SEED"); s {
	case "":
	case "random":
		seed = uint64(time.Now().UnixNano())
	default:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("CTX_MERGE_SEED=%q: %v", s, err)
		}
		seed = n
	}
	merges := 200
	if s := os.Getenv("CTX_MERGE_MERGES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("CTX_MERGE_MERGES=%q", s)
		}
		merges = n
	}
	if testing.Short() {
		merges = min(merges, 30)
	}
	t.Logf("seed %d, %d merges (CTX_MERGE_SEED, CTX_MERGE_MERGES)", seed, merges)
	sim := newMergeSim(t, git, ctx, seed)
	clean, done := 0, 0
	for done < merges {
		for _, tm := range sim.order() {
			if sim.rng.IntN(4) > 0 {
				sim.work(tm)
			}
			if sim.rng.IntN(3) > 0 {
				sim.pull(tm)
				done++
				clean++
			}
		}
	}
	// Finally everyone pulls twice: one store, seen alike.
	for range 2 {
		for _, tm := range sim.team {
			sim.pull(tm)
			done++
			clean++
		}
	}
	lines := 0
	for _, l := range sim.origin.journal {
		lines += len(l)
	}
	t.Logf("clean merges: %d of %d (100%%): %v; %d ctx commits, %d nodes, %d journal lines; operations %v", clean, done, sim.pulls, len(sim.origin.commits), len(sim.origin.nodes), lines, sim.ops)
}

type mergeSim struct {
	t        *testing.T
	git, ctx string
	rng      *rand.Rand
	top      string
	genv     []string
	clock    int64 // seconds since the start: every operation is later than the one before
	created  int   // nodes created so far
	team     []*teammate
	// origin is what the shared repository holds: the expected state
	// of whoever pulls it.
	origin *teammate
	ops    map[string]int // operations done, by kind
	pulls  map[string]int // pulls, by how
}

// teammate is a clone and what it has seen: the expected state.
type teammate struct {
	name, dir string
	n         int                    // operations so far, for unique texts
	nodes     map[string]*nodeExpect // every node this clone has seen
	commits   map[string]bool        // every ctx commit this clone has seen
	// relations: node → each assertion of "node mentions src/app.go" it
	// has seen (by who and when) → alive (false: an unlink saw it).
	relations map[string]map[string]bool
	// journal: every line of the journals (daily logs, decisions.md) this
	// clone has seen, by file; journals only grow.
	journal  map[string]map[string]bool
	latest   string   // a word only this clone's latest note holds
	latestID string   // that note
	own      []string // nodes this teammate created (it alone deletes or supersedes them)
	edits    int      // hand edits and code edits, for unique texts
}

type nodeExpect struct {
	seq          int // creation order: choices among nodes follow it, not the random ids, so a seed replays
	owner        string
	deleted      bool
	supersededBy string
	tags         map[string]bool // tag → present
	lines        []string        // hand-edited lines the node file must hold
}

func (e *nodeExpect) clone() *nodeExpect {
	c := *e
	c.tags = map[string]bool{}
	for k, v := range e.tags {
		c.tags[k] = v
	}
	c.lines = slices.Clone(e.lines)
	return &c
}

func newMergeSim(t *testing.T, git, ctx string, seed uint64) *mergeSim {
	top := t.TempDir()
	s := &mergeSim{t: t, git: git, ctx: ctx, rng: rand.New(rand.NewPCG(seed, 11)), top: top, genv: gitEnv(top),
		ops: map[string]int{}, pulls: map[string]int{}}
	first := filepath.Join(top, "first")
	writeFiles(t, first, map[string]string{
		"go.mod":     "module example.com/sim\n\ngo 1.22\n",
		"src/app.go": "package src\n\n// Run runs the app.\nfunc Run() {}\n",
	})
	s.g(first, "init", "-q", "-b", "main")
	s.c(first, "init")
	s.c(first, "add", "code", "-q")
	s.g(first, "add", "-A")
	s.g(first, "commit", "-q", "-m", "start")
	origin := filepath.Join(top, "origin.git")
	s.g(top, "clone", "-q", "--bare", first, origin)
	s.origin = &teammate{name: "origin", dir: origin, nodes: map[string]*nodeExpect{}, commits: map[string]bool{}, relations: map[string]map[string]bool{}, journal: map[string]map[string]bool{}}
	s.origin.commits[s.c(first, "rev-parse", "main")] = true
	for _, name := range []string{"ada", "bob", "cy"} {
		dir := filepath.Join(top, name)
		s.g(top, "clone", "-q", origin, dir)
		tm := &teammate{name: name, dir: dir, nodes: map[string]*nodeExpect{}, commits: map[string]bool{}, relations: map[string]map[string]bool{}, journal: map[string]map[string]bool{}}
		tm.commits[s.c(dir, "rev-parse", "main")] = true
		s.team = append(s.team, tm)
	}
	return s
}

func (s *mergeSim) g(dir string, args ...string) string {
	s.t.Helper()
	return must(s.t, dir, s.genv, "", s.git, args...)
}

// c runs ctx at the next tick of the simulation's clock.
func (s *mergeSim) c(dir string, args ...string) string {
	s.t.Helper()
	cmd := args
	if cmd[0] == "--json" {
		cmd = cmd[1:]
	}
	switch op := cmd[0]; op {
	case "add", "stage":
		s.ops[op+" "+cmd[1]]++
	case "tag", "untag", "supersede", "delete", "relate", "unlink", "commit":
		s.ops[op]++
	}
	s.clock++
	date := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC).Add(time.Duration(s.clock) * time.Second).Format(time.RFC3339)
	return must(s.t, dir, append(s.genv, "CTX_DATE="+date), "", s.ctx, args...)
}

func (s *mergeSim) order() []*teammate {
	out := slices.Clone(s.team)
	s.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// recordHead notes the ctx commit main names now (after a ctx write).
func (s *mergeSim) recordHead(tm *teammate) {
	tm.commits[s.c(tm.dir, "rev-parse", "main")] = true
}

// work does one to three random operations, then commits to git.
func (s *mergeSim) work(tm *teammate) {
	s.t.Helper()
	ops := 1 + s.rng.IntN(3)
	for range ops {
		tm.n++
		switch k := s.rng.IntN(10); {
		case k < 3 || len(tm.own) == 0:
			s.addNode(tm)
		case k == 3:
			s.tag(tm)
		case k == 4:
			s.supersedeOrDelete(tm)
		case k == 5:
			if s.rng.IntN(3) == 0 {
				s.unlink(tm)
			} else {
				s.relate(tm)
			}
		case k == 6:
			s.editCode(tm)
		case k == 7:
			s.session(tm)
		case k == 8:
			s.handEdit(tm)
		default:
			s.untag(tm)
		}
	}
	// Record the narrative (a no-op when nothing changed) and share.
	if out := s.c(tm.dir, "status"); strings.Contains(out, "to commit") {
		s.c(tm.dir, "commit", "-m", fmt.Sprintf("%s work %d", tm.name, tm.n))
	}
	s.recordHead(tm)
	s.readJournals(tm, func(file, line string) {
		if tm.journal[file] == nil {
			tm.journal[file] = map[string]bool{}
		}
		tm.journal[file][line] = true
	})
	s.g(tm.dir, "add", "-A")
	if s.g(tm.dir, "status", "--porcelain") != "" {
		s.g(tm.dir, "commit", "-q", "-m", fmt.Sprintf("%s round %d", tm.name, tm.n))
	}
}

// readJournals calls fn for every non-empty line of tm's journals: the
// daily logs and decisions.md.
func (s *mergeSim) readJournals(tm *teammate, fn func(file, line string)) {
	s.t.Helper()
	narr := filepath.Join(tm.dir, ".ctx", "narrative")
	files, err := filepath.Glob(filepath.Join(narr, "log", "*.md"))
	if err != nil {
		s.t.Fatal(err)
	}
	for _, p := range append(files, filepath.Join(narr, "decisions.md")) {
		data, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			s.t.Fatal(err)
		}
		rel, _ := filepath.Rel(narr, p)
		for _, l := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(l) != "" {
				fn(filepath.ToSlash(rel), l)
			}
		}
	}
}

func (s *mergeSim) addNode(tm *teammate) {
	types := []string{"note", "decision", "fact", "task"}
	typ := types[s.rng.IntN(len(types))]
	word := fmt.Sprintf("zq%s%dx", tm.name, tm.n)
	id := s.c(tm.dir, "add", typ, fmt.Sprintf("%s finding %d: %s", tm.name, tm.n, word))
	s.created++
	tm.nodes[id] = &nodeExpect{seq: s.created, owner: tm.name, tags: map[string]bool{}}
	tm.own = append(tm.own, id)
	tm.latest, tm.latestID = word, id
}

// live returns a node neither deleted nor superseded, from all known (own
// only when ownOnly).
func (s *mergeSim) live(tm *teammate, ownOnly bool) string {
	var ids []string
	for id, e := range tm.nodes {
		if !e.deleted && e.supersededBy == "" && (!ownOnly || e.owner == tm.name) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	s.bySeq(tm, ids)
	return ids[s.rng.IntN(len(ids))]
}

// bySeq sorts node ids in creation order.
func (s *mergeSim) bySeq(tm *teammate, ids []string) {
	slices.SortFunc(ids, func(a, b string) int { return tm.nodes[a].seq - tm.nodes[b].seq })
}

func (s *mergeSim) tag(tm *teammate) {
	id := s.live(tm, false)
	if id == "" {
		return
	}
	tag := fmt.Sprintf("t%s%d", tm.name, tm.n)
	s.c(tm.dir, "tag", id, tag)
	tm.nodes[id].tags[tag] = true
}

// untag removes a tag this teammate added (nobody else adds the same tag).
func (s *mergeSim) untag(tm *teammate) {
	var pairs [][2]string
	for id, e := range tm.nodes {
		for tag, on := range e.tags {
			if on && strings.HasPrefix(tag, "t"+tm.name) && !e.deleted {
				pairs = append(pairs, [2]string{id, tag})
			}
		}
	}
	if len(pairs) == 0 {
		s.tag(tm)
		return
	}
	slices.SortFunc(pairs, func(a, b [2]string) int {
		if c := tm.nodes[a[0]].seq - tm.nodes[b[0]].seq; c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	p := pairs[s.rng.IntN(len(pairs))]
	s.c(tm.dir, "untag", p[0], p[1])
	tm.nodes[p[0]].tags[p[1]] = false
}

func (s *mergeSim) supersedeOrDelete(tm *teammate) {
	old := s.live(tm, true)
	if old == "" {
		return
	}
	if s.rng.IntN(2) == 0 {
		s.c(tm.dir, "delete", old)
		tm.nodes[old].deleted = true
		return
	}
	s.addNode(tm)
	nw := tm.own[len(tm.own)-1]
	s.c(tm.dir, "supersede", old, nw)
	tm.nodes[old].supersededBy = nw
}

func (s *mergeSim) relate(tm *teammate) {
	id := s.live(tm, false)
	if id == "" {
		return
	}
	var res struct {
		Added []json.RawMessage `json:"added"`
	}
	if err := json.Unmarshal([]byte(s.c(tm.dir, "--json", "relate", id, "mentions", "src/app.go")), &res); err != nil {
		s.t.Fatalf("relate: %v", err)
	}
	s.recordHead(tm)
	if len(res.Added) == 0 {
		// The edge is there already: relate is idempotent and records
		// nothing, so this is no assertion a concurrent unlink must
		// lose to (docs/FORMAT.md §15.2).
		return
	}
	if tm.relations[id] == nil {
		tm.relations[id] = map[string]bool{}
	}
	tm.relations[id][fmt.Sprintf("%s%d", tm.name, tm.n)] = true
}

// unlink removes a relation: a tombstone for every assertion of it this
// teammate has seen. One it has not seen (a teammate's, concurrent)
// survives the merge: add wins.
func (s *mergeSim) unlink(tm *teammate) {
	var ids []string
	for id, adds := range tm.relations {
		for _, alive := range adds {
			if alive {
				ids = append(ids, id)
				break
			}
		}
	}
	if len(ids) == 0 {
		s.relate(tm)
		return
	}
	s.bySeq(tm, ids)
	id := ids[s.rng.IntN(len(ids))]
	s.c(tm.dir, "unlink", id, "src/app.go", "--type", "mentions")
	s.recordHead(tm)
	for add := range tm.relations[id] {
		tm.relations[id][add] = false
	}
}

// editCode adds a function to this teammate's own file and snapshots it.
func (s *mergeSim) editCode(tm *teammate) {
	tm.edits++
	path := filepath.Join(tm.dir, "src", tm.name+".go")
	old, err := os.ReadFile(path)
	if err != nil {
		old = []byte("package src\n")
	}
	fn := fmt.Sprintf("\n// F%s%d is edit %d of %s.\nfunc F%s%d() {}\n", tm.name, tm.edits, tm.edits, tm.name, tm.name, tm.edits)
	if err := os.WriteFile(path, append(old, fn...), 0o644); err != nil {
		s.t.Fatal(err)
	}
	s.c(tm.dir, "add", "code", "-q")
	s.recordHead(tm)
}

// session runs a whole staging session: a note, a code edit, compaction.
func (s *mergeSim) session(tm *teammate) {
	id := fmt.Sprintf("%s-%d", tm.name, tm.n)
	s.c(tm.dir, "stage", "start", "session "+id, "--id", id)
	s.addNode(tm)
	s.editCode(tm)
	s.c(tm.dir, "stage", "compact", "-m", "session "+id)
	s.recordHead(tm)
}

// handEdit appends a line to a node file (anyone's: two teammates may
// append to the same file), as an editor would.
func (s *mergeSim) handEdit(tm *teammate) {
	id := s.live(tm, false)
	if id == "" {
		return
	}
	var n struct {
		File string `json:"file"`
	}
	if err := json.Unmarshal([]byte(s.c(tm.dir, "--json", "show", id)), &n); err != nil || n.File == "" {
		s.t.Fatalf("show %s: %v", id, err)
	}
	tm.edits++
	s.ops["hand edit"]++
	line := fmt.Sprintf("Hand edit %d by %s.", tm.edits, tm.name)
	p := filepath.Join(tm.dir, n.File)
	data, err := os.ReadFile(p)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, append(data, "\n"+line+"\n"...), 0o644); err != nil {
		s.t.Fatal(err)
	}
	tm.nodes[id].lines = append(tm.nodes[id].lines, line)
}

// pull brings origin's work into a's clone with plain git, checks a,
// and pushes a's work (after ctx reconcile) back.
func (s *mergeSim) pull(a *teammate) {
	s.t.Helper()
	b := s.origin
	args := []string{"pull", "-q", "--no-rebase", "--no-edit", "origin", "main"}
	how := "merge"
	if s.rng.IntN(2) == 0 {
		args = []string{"pull", "-q", "--rebase", "origin", "main"}
		how = "rebase"
	}
	r := run(s.t, a.dir, s.genv, "", s.git, args...)
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "CONFLICT") {
		s.t.Fatalf("%s: git pull (%s): exit %d\n%s%s", a.name, how, r.code, r.stdout, r.stderr)
	}
	// What a has seen now: its own and all b had seen.
	for id, e := range b.nodes {
		mine, ok := a.nodes[id]
		if !ok {
			a.nodes[id] = e.clone()
			continue
		}
		mine.deleted = mine.deleted || e.deleted
		if mine.supersededBy == "" {
			mine.supersededBy = e.supersededBy
		}
		for tag, on := range e.tags {
			if have, seen := mine.tags[tag]; !seen || have && !on {
				// Only the tag's author changes it: its latest word wins
				// when both saw it (untag after tag).
				mine.tags[tag] = on
			}
		}
		for _, l := range e.lines {
			if !slices.Contains(mine.lines, l) {
				mine.lines = append(mine.lines, l)
			}
		}
	}
	for c := range b.commits {
		a.commits[c] = true
	}
	mergeRelations(a.relations, b.relations)
	mergeJournal(a.journal, b.journal)
	s.pulls[how]++
	s.check(a, b, how)
	// Reconcile the heads the merge left, and share that as any change.
	s.c(a.dir, "reconcile")
	s.recordHead(a)
	s.g(a.dir, "add", "-A")
	if s.g(a.dir, "status", "--porcelain") != "" {
		s.g(a.dir, "commit", "-q", "-m", a.name+" reconciles")
	}
	s.g(a.dir, "push", "-q", "origin", "main")
	// origin now holds all a has seen.
	o := s.origin
	for id, e := range a.nodes {
		o.nodes[id] = e.clone()
	}
	for c := range a.commits {
		o.commits[c] = true
	}
	mergeRelations(o.relations, a.relations)
	mergeJournal(o.journal, a.journal)
	if a.latest != "" {
		o.latest, o.latestID = a.latest, a.latestID
	}
}

// mergeRelations adds what src has seen of the relations to dst: an
// assertion is dead once either side saw an unlink of it.
func mergeRelations(dst, src map[string]map[string]bool) {
	for id, adds := range src {
		if dst[id] == nil {
			dst[id] = map[string]bool{}
		}
		for add, alive := range adds {
			if have, seen := dst[id][add]; seen {
				dst[id][add] = have && alive
			} else {
				dst[id][add] = alive
			}
		}
	}
}

// mergeJournal adds the journal lines src has seen to dst.
func mergeJournal(dst, src map[string]map[string]bool) {
	for file, lines := range src {
		if dst[file] == nil {
			dst[file] = map[string]bool{}
		}
		for l := range lines {
			dst[file][l] = true
		}
	}
}

func (s *mergeSim) check(a, b *teammate, how string) {
	s.t.Helper()
	where := fmt.Sprintf("%s after a git pull (%s)", a.name, how)
	if r := run(s.t, a.dir, s.genv, "", s.ctx, "verify"); r.code != 0 {
		s.t.Fatalf("%s: ctx verify: exit %d\n%s%s", where, r.code, r.stdout, r.stderr)
	}
	var list []struct {
		ID           string   `json:"id"`
		Tags         []string `json:"tags"`
		Deleted      bool     `json:"deleted"`
		SupersededBy string   `json:"superseded_by"`
		File         string   `json:"file"`
	}
	if err := json.Unmarshal([]byte(s.c(a.dir, "--json", "list", "--include-deleted", "--include-superseded", "-n", "100000")), &list); err != nil {
		s.t.Fatalf("%s: list: %v", where, err)
	}
	got := map[string]int{}
	for i, n := range list {
		got[n.ID] = i
	}
	for id, e := range a.nodes {
		i, ok := got[id]
		if !ok {
			s.t.Fatalf("%s: node %s (by %s) is missing", where, id, e.owner)
		}
		n := list[i]
		if n.Deleted != e.deleted {
			s.t.Fatalf("%s: node %s deleted=%v, want %v", where, id, n.Deleted, e.deleted)
		}
		if n.SupersededBy != e.supersededBy {
			s.t.Fatalf("%s: node %s superseded by %q, want %q", where, id, n.SupersededBy, e.supersededBy)
		}
		for tag, on := range e.tags {
			if slices.Contains(n.Tags, tag) != on {
				s.t.Fatalf("%s: node %s tag %s present=%v, want %v (tags %v)", where, id, tag, !on, on, n.Tags)
			}
		}
		if len(e.lines) > 0 {
			data, err := os.ReadFile(filepath.Join(a.dir, n.File))
			if err != nil {
				s.t.Fatal(err)
			}
			for _, l := range e.lines {
				if !strings.Contains(string(data), l) {
					s.t.Fatalf("%s: node %s lost the hand edit %q", where, id, l)
				}
			}
		}
	}
	// Every ctx commit seen is in the history.
	var log []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(s.c(a.dir, "--json", "log")), &log); err != nil {
		s.t.Fatalf("%s: log: %v", where, err)
	}
	inLog := map[string]bool{}
	for _, e := range log {
		inLog[e.ID] = true
	}
	for c := range a.commits {
		if !inLog[c] {
			s.t.Fatalf("%s: ctx commit %s is not in the history", where, c[:12])
		}
	}
	// Journals: every line seen is still there.
	have := map[string]map[string]bool{}
	s.readJournals(a, func(file, line string) {
		if have[file] == nil {
			have[file] = map[string]bool{}
		}
		have[file][line] = true
	})
	for file, lines := range a.journal {
		for l := range lines {
			if !have[file][l] {
				s.t.Fatalf("%s: journal %s lost the line %q", where, file, l)
			}
		}
	}
	// Relations: every node related to src/app.go mentions it.
	var edges struct {
		Edges []struct {
			Label string `json:"label"`
			From  struct {
				Key string `json:"key"`
			} `json:"from"`
		} `json:"edges"`
	}
	if err := json.Unmarshal([]byte(s.c(a.dir, "--json", "edges", "src/app.go", "--direction", "in", "--label", "mentions")), &edges); err != nil {
		s.t.Fatalf("%s: edges: %v", where, err)
	}
	from := map[string]bool{}
	for _, e := range edges.Edges {
		from[e.From.Key] = true
	}
	for id, adds := range a.relations {
		alive := false
		for _, on := range adds {
			alive = alive || on
		}
		if from[id] != alive {
			s.t.Fatalf("%s: %s mentions src/app.go: present %v, want %v (assertions seen: %v)", where, id, from[id], alive, adds)
		}
	}
	// The index follows by itself: the last pusher's latest note is
	// found by search and by query.
	if e := a.nodes[b.latestID]; b.latest != "" && e != nil && !e.deleted && e.supersededBy == "" {
		if out := s.c(a.dir, "search", b.latest); !strings.Contains(out, b.latest) {
			s.t.Fatalf("%s: search %s found nothing:\n%s", where, b.latest, out)
		}
		if out := s.c(a.dir, "query", "--format", "text", b.latest); !strings.Contains(out, b.latest) {
			s.t.Fatalf("%s: query %s does not show it:\n%s", where, b.latest, out)
		}
	}
}
