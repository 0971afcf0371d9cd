package workset

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// calls returns the ids of the session's calls by "turn.seq".
func calls(sess *Session) map[string]ID {
	m := map[string]ID{}
	for _, c := range sess.Calls {
		m[fmt.Sprintf("%d.%d", c.Turn, c.Seq)] = c.ID
	}
	return m
}

func TestCollapse(t *testing.T) {
	tests := []struct {
		name string
		// script: "p" a prompt (new turn), "t" a tool call, "pin T.S" a pin,
		// "act T.S" an activation.
		script string
		active []string // the calls active at the end, "turn.seq"
	}{
		{"five per turn", "p t t t t t", []string{"1.1", "1.2", "1.3", "1.4", "1.5"}},
		{"the sixth pushes out the first", "p t t t t t t t", []string{"1.3", "1.4", "1.5", "1.6", "1.7"}},
		{"three turns back", "p t p t p t", []string{"1.1", "2.1", "3.1"}},
		{"the fourth turn collapses the first", "p t p t p t p", []string{"2.1", "3.1"}},
		{"pinned outputs stay", "p t pin 1.1 p p p t t t t t t", []string{"1.1", "4.2", "4.3", "4.4", "4.5", "4.6"}},
		{"re-activated stays until deactivated", "p t p p p act 1.1 p t", []string{"1.1", "5.1"}},
		{"calls before any prompt are turn 1", "t t p p", []string{"1.1", "1.2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, proj := newStore(t)
			update(t, s, func(sess *Session) error {
				words := strings.Fields(tt.script)
				for i := 0; i < len(words); i++ {
					switch words[i] {
					case "p":
						sess.Prompt("go on")
					case "t":
						if _, err := sess.Tool(ToolInput{Tool: "bash", Args: "true", Output: []byte("out"), Cwd: filepath.ToSlash(proj)}); err != nil {
							return err
						}
					case "pin", "act":
						i++
						id := calls(sess)[words[i]]
						op := sess.Pin
						if words[i-1] == "act" {
							op = sess.Activate
						}
						if _, err := op(id.String()); err != nil {
							return err
						}
					}
				}
				return nil
			})
			sess := load(t, s)
			byID := map[ID]string{}
			for k, id := range calls(sess) {
				byID[id] = k
			}
			var got []string
			for _, id := range sess.Active {
				got = append(got, byID[id])
			}
			if strings.Join(got, " ") != strings.Join(tt.active, " ") {
				t.Errorf("active %v, want %v", got, tt.active)
			}
			if len(sess.Pool) != len(sess.Calls) {
				t.Errorf("collapsed outputs left the pool")
			}
		})
	}
}

// buildSession makes a session with a system prompt, files, tool calls
// and turns.
func buildSession(t *testing.T) (*Store, string) {
	s, proj := newStore(t)
	write(t, filepath.Join(proj, "a.go"), "package a\n\nfunc A() {}\n")
	write(t, filepath.Join(proj, "b.md"), strings.Repeat("b", 400)+"\n")
	write(t, filepath.Join(proj, "c.go"), "package c\n")
	update(t, s, func(sess *Session) error {
		if err := sess.SetSystem("You are a careful engineer."); err != nil {
			return err
		}
		sess.Prompt("look at a.go")
		if _, err := sess.ReadFile(filepath.ToSlash(filepath.Join(proj, "a.go")), nil); err != nil {
			return err
		}
		if _, err := sess.Tool(ToolInput{Tool: "bash", CallID: "toolu_1", Args: "ls", Output: []byte("a.go  b.md  c.go\n"), Cwd: filepath.ToSlash(proj)}); err != nil {
			return err
		}
		sess.Reply("a.go defines A.")
		sess.Prompt("and b.md?")
		_, err := sess.ReadFile(filepath.ToSlash(filepath.Join(proj, "b.md")), nil)
		return err
	})
	return s, proj
}

// sections splits a rendered text at its section headers.
func sections(t *testing.T, text string) (sys, pool, chat, active string) {
	t.Helper()
	i := strings.Index(text, "METADATA_POOL\n")
	j := strings.Index(text, "CHAT\n")
	k := strings.Index(text, "ACTIVE_CONTENT id=")
	if k < 0 {
		k = len(text)
	}
	if !strings.HasPrefix(text, "SYSTEM_PROMPT\n") || i < 0 || j < i || k < j {
		t.Fatalf("sections out of order:\n%s", text)
	}
	return text[:i], text[i:j], text[j:k], text[k:]
}

func TestRenderOrder(t *testing.T) {
	s, proj := buildSession(t)
	r, err := load(t, s).Render(RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sys, pool, chat, active := sections(t, r.Text)
	if !strings.Contains(sys, "You are a careful engineer.\n") {
		t.Errorf("system section: %q", sys)
	}
	want := []string{
		"type=file path=" + filepath.ToSlash(filepath.Join(proj, "a.go")) + " file_type=go char_count=23",
		"type=toolcall tool=bash status=ok",
		"type=file path=" + filepath.ToSlash(filepath.Join(proj, "b.md")) + " file_type=md char_count=401",
		"type=file path=" + filepath.ToSlash(filepath.Join(proj, "c.go")) + " file_type=go [unread]",
	}
	lines := strings.Split(strings.TrimSpace(strings.TrimPrefix(pool, "METADATA_POOL\n")), "\n")
	if len(lines) != len(want) {
		t.Fatalf("pool:\n%s", pool)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], "id=") || !strings.HasSuffix(lines[i], w) {
			t.Errorf("pool line %d: %q, want …%q", i, lines[i], w)
		}
	}
	if !strings.Contains(chat, "toolcall_ref id=") || strings.Contains(chat, "a.go  b.md") {
		t.Errorf("the chat must hold a reference, not the output:\n%s", chat)
	}
	if strings.Count(active, "ACTIVE_CONTENT id=") != 3 || !strings.Contains(active, "func A() {}") {
		t.Errorf("active:\n%s", active)
	}
	// b.md was read after the stub was made: it is now read, not [unread].
	r2, _ := load(t, s).Render(RenderOptions{})
	if r2.Text != r.Text {
		t.Error("rendering is not deterministic")
	}
	if r.Tokens != Tokens(r.Text) {
		t.Errorf("tokens %d, text has %d", r.Tokens, Tokens(r.Text))
	}
}

func TestRenderBudgetNeverExceeded(t *testing.T) {
	s, _ := buildSession(t)
	sess := load(t, s)
	full, err := sess.Render(RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tooSmall := 0
	for budget := 1; budget <= full.Tokens+5; budget++ {
		r, err := sess.Render(RenderOptions{Budget: budget})
		if errors.Is(err, ErrBudget) {
			tooSmall++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Tokens > budget || Tokens(r.Text) > budget {
			t.Fatalf("budget %d: %d tokens", budget, r.Tokens)
		}
		sys, pool, _, _ := sections(t, r.Text)
		fs, fp, _, _ := sections(t, full.Text)
		if sys != fs || pool != fp {
			t.Fatalf("budget %d: the stable sections changed", budget)
		}
		if r.Tokens < full.Tokens && r.Stopped != "budget" {
			t.Fatalf("budget %d: something was left out but Stopped is %q", budget, r.Stopped)
		}
	}
	if tooSmall == 0 || tooSmall > full.Tokens {
		t.Errorf("%d budgets too small", tooSmall)
	}
	if r, _ := sess.Render(RenderOptions{Budget: full.Tokens}); r.Text != full.Text {
		t.Error("an exact budget left something out")
	}
}

func TestRenderPrefixStable(t *testing.T) {
	s, _ := buildSession(t)
	before, err := load(t, s).Render(RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	update(t, s, func(sess *Session) error { sess.Reply("b.md is all b."); return nil })
	mid, err := load(t, s).Render(RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	update(t, s, func(sess *Session) error { sess.Prompt("thanks"); return nil })
	after, err := load(t, s).Render(RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bs, bp, bc, _ := sections(t, before.Text)
	for _, r := range []*Rendered{mid, after} {
		s2, p2, c2, _ := sections(t, r.Text)
		if s2 != bs || p2 != bp {
			t.Error("system prompt or metadata pool changed when only the chat grew")
		}
		// The chat is append-only: the earlier chat, without its closing
		// blank line, starts the later one.
		if !strings.HasPrefix(c2, strings.TrimSuffix(bc, "\n")) {
			t.Errorf("the chat was rewritten:\n%s\n---\n%s", bc, c2)
		}
		if !strings.HasPrefix(r.Text, bs+bp+strings.TrimSuffix(bc, "\n")) {
			t.Error("the prefix up to the chat's end is not byte-identical")
		}
	}
}

func TestMounts(t *testing.T) {
	ms := Mounts{
		{Agent: "/workspace", Canonical: "/home/me/project", FilesystemID: "host"},
		{Agent: "/workspace/vendor", Canonical: "/srv/vendor", FilesystemID: "host"},
		{Agent: "/data", Canonical: "/mnt/data", FilesystemID: "nas"},
	}
	tests := []struct {
		agent, canonical, fs string
		mapped               bool
	}{
		{"/workspace", "/home/me/project", "host", true},
		{"/workspace/src/a.go", "/home/me/project/src/a.go", "host", true},
		{"/workspace/vendor/x/y.go", "/srv/vendor/x/y.go", "host", true}, // the longest prefix
		{"/workspacex/a", "/workspacex/a", "", false},                    // a prefix is a whole path element
		{"/data/f", "/mnt/data/f", "nas", true},
		{"/tmp/f", "/tmp/f", "", false},
	}
	for _, tt := range tests {
		c, fs, ok := ms.Forward(tt.agent)
		if c != tt.canonical || fs != tt.fs || ok != tt.mapped {
			t.Errorf("Forward(%s) = %s %s %v", tt.agent, c, fs, ok)
		}
		if ok {
			if back := ms.Reverse(c, fs); back != tt.agent {
				t.Errorf("Reverse(Forward(%s)) = %s", tt.agent, back)
			}
		}
	}
	if got := ms.Reverse("/mnt/data/f", "host"); got != "/mnt/data/f" {
		t.Errorf("reverse on another file system: %s", got)
	}
	if got := ms.Reverse("/elsewhere/f", "host"); got != "/elsewhere/f" {
		t.Errorf("reverse fallback: %s", got)
	}
	root := Mounts{{Agent: "/", Canonical: "/chroot", FilesystemID: "h"}}
	if c, _, _ := root.Forward("/a/b"); c != "/chroot/a/b" || root.Reverse(c, "h") != "/a/b" {
		t.Errorf("root mount: %s", c)
	}
	for _, bad := range []Mount{{Agent: "rel", Canonical: "/x", FilesystemID: "h"}, {Agent: "/a/", Canonical: "/x", FilesystemID: "h"}, {Agent: "/a", Canonical: "/x"}} {
		if bad.Validate() == nil {
			t.Errorf("%+v is valid", bad)
		}
	}
}

func TestSandboxSession(t *testing.T) {
	s, proj := newStore(t)
	write(t, filepath.Join(proj, "src", "a.go"), "package a\n")
	hostA := filepath.ToSlash(filepath.Join(proj, "src", "a.go"))
	var inside, outside, host Change
	update(t, s, func(sess *Session) error {
		if err := sess.AddMount(Mount{Agent: "/workspace", Canonical: filepath.ToSlash(proj)}); err != nil {
			return err
		}
		var err error
		if inside, err = sess.ReadFile("/workspace/src/a.go", nil); err != nil {
			return err
		}
		// The sandbox's own files are never read from the host.
		if _, err := sess.ReadFile("/etc/hostname", nil); !errors.Is(err, ErrUnreadable) {
			t.Errorf("reading a sandbox file from the host: %v", err)
		}
		if outside, err = sess.ReadFile("/tmp/notes.txt", []byte("inside the sandbox")); err != nil {
			return err
		}
		_, err = sess.Tool(ToolInput{Tool: "bash", Args: "find .", Output: []byte("./src/a.go\n"), Cwd: "/workspace"})
		return err
	})
	// A session without mounts reading the host path gets the same object.
	if err := s.Update(t.Context(), "plain", func(sess *Session) error {
		var err error
		host, err = sess.ReadFile(hostA, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if inside.ID != host.ID || host.Outcome != Unchanged {
		t.Errorf("a bind-mounted file is not the host's object: %+v %+v", inside, host)
	}
	if inside.Path != "/workspace/src/a.go" || host.Path != hostA {
		t.Errorf("display paths %q, %q", inside.Path, host.Path)
	}
	sess := load(t, s)
	r, err := sess.Render(RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, "path=/workspace/src/a.go ") || strings.Contains(r.Text, "path="+hostA) {
		t.Errorf("the agent must see its own paths:\n%s", r.Text)
	}
	f, err := s.File(outside.ID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Source.FilesystemID == testFS || f.Source.Path != "/tmp/notes.txt" {
		t.Errorf("a sandbox file on the host's file system: %+v", f.Source)
	}
	if len(sess.Pool) != 3 { // a.go (read, then found again by find), notes.txt, the find call
		t.Errorf("pool %d", len(sess.Pool))
	}
}

func TestSetWindow(t *testing.T) {
	s, proj := newStore(t)
	update(t, s, func(sess *Session) error {
		sess.Prompt("go")
		for range 4 {
			if _, err := sess.Tool(ToolInput{Tool: "bash", Output: []byte("x"), Cwd: filepath.ToSlash(proj)}); err != nil {
				return err
			}
		}
		if _, err := sess.Pin(calls(sess)["1.1"].String()); err != nil {
			return err
		}
		collapsed, err := sess.SetWindow(Window{PerTurn: 2, Turns: 1})
		if err != nil {
			return err
		}
		if len(collapsed) != 1 || collapsed[0].ID != calls(sess)["1.2"] {
			t.Errorf("collapsed %+v, want 1.2 only (1.1 is pinned)", collapsed)
		}
		if _, err := sess.SetWindow(Window{PerTurn: 0, Turns: 1}); !errors.Is(err, ErrInvalid) {
			t.Errorf("a window of 0: %v", err)
		}
		return nil
	})
	if w := load(t, s).Window; w != (Window{PerTurn: 2, Turns: 1}) {
		t.Errorf("window %+v not saved", w)
	}
}
