package install

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/hook"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/regfile"
)

// Skill is the content of SKILL.md.
//
//go:embed SKILL.md
var Skill string

var (
	// ErrSettings means a settings.json is not a JSON object, or its
	// "hooks" is not laid out as Claude Code lays it out.
	ErrSettings = errors.New("install: invalid settings.json")
)

// Scope is where ctx is installed. The zero value is invalid.
type Scope uint8

// The scopes.
const (
	Project Scope = iota + 1 // <project>/.claude/
	User                     // ~/.claude/
)

// String returns "project" or "user".
func (s Scope) String() string {
	switch s {
	case Project:
		return "project"
	case User:
		return "user"
	}
	return ""
}

// Options configure Install and Uninstall.
type Options struct {
	Scope Scope
	// ProjectDir is the project (Scope Project); HomeDir the user's home
	// (Scope User).
	ProjectDir, HomeDir string
	// Program is the command that runs ctx in the hooks: "ctx-core"
	// (found on PATH, installed beside ctx) unless given. The hooks never
	// search: run directly, they skip the front end's process start on
	// every prompt.
	Program string
	// WriteSettings writes settings.json; without it Install only
	// returns the snippet to add and Uninstall leaves the file alone.
	WriteSettings bool
}

// Validate checks the options.
func (o *Options) Validate() error {
	switch o.Scope {
	case Project:
		if o.ProjectDir == "" {
			return fmt.Errorf("install: no project directory")
		}
	case User:
		if o.HomeDir == "" {
			return fmt.Errorf("install: no home directory (HOME is not set)")
		}
	default:
		return fmt.Errorf("install: no scope")
	}
	if strings.ContainsAny(o.Program, "\n\r\x00") {
		return fmt.Errorf("install: program %q is not one line", o.Program)
	}
	return nil
}

// ClaudeDir returns the .claude directory of the scope.
func (o *Options) ClaudeDir() string {
	if o.Scope == User {
		return filepath.Join(o.HomeDir, ".claude")
	}
	return filepath.Join(o.ProjectDir, ".claude")
}

// SkillPath returns where SKILL.md goes.
func (o *Options) SkillPath() string {
	return filepath.Join(o.ClaudeDir(), "skills", "ctx", "SKILL.md")
}

// SettingsPath returns the settings.json of the scope.
func (o *Options) SettingsPath() string { return filepath.Join(o.ClaudeDir(), "settings.json") }

func (o *Options) program() string {
	if o.Program == "" {
		return "ctx-core"
	}
	return o.Program
}

// Result is what Install or Uninstall did.
type Result struct {
	Scope    string `json:"scope"`
	Skill    string `json:"skill"`
	Settings string `json:"settings"`
	// SkillChanged: SKILL.md was written (or removed).
	SkillChanged bool `json:"skill_changed"`
	// Added and Removed are the events whose ctx hook was added or
	// removed (or would be, without WriteSettings).
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	// SettingsWritten: settings.json was written.
	SettingsWritten bool `json:"settings_written"`
	// Snippet is the JSON to merge into settings.json by hand, when
	// settings were not written and hooks are missing.
	Snippet string `json:"snippet,omitempty"`
}

// Install writes the skill and merges the hooks into settings.json (with
// WriteSettings; else Result.Snippet holds them).
func Install(opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	res := &Result{Scope: opts.Scope.String(), Skill: opts.SkillPath(), Settings: opts.SettingsPath(), Added: []string{}, Removed: []string{}}
	old, err := os.ReadFile(res.Skill)
	if err != nil || string(old) != Skill {
		if err := atomicfile.MkdirAll(filepath.Dir(res.Skill)); err != nil {
			return nil, err
		}
		if err := atomicfile.Write(res.Skill, []byte(Skill), 0o644); err != nil {
			return nil, err
		}
		res.SkillChanged = true
	}
	data, err := readSettings(res.Settings)
	if err != nil {
		return nil, err
	}
	merged, added, err := Merge(data, opts.program())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", res.Settings, err)
	}
	res.Added = added
	if len(added) == 0 {
		return res, nil
	}
	if !opts.WriteSettings {
		res.Snippet = Snippet(opts.program())
		return res, nil
	}
	if err := atomicfile.MkdirAll(filepath.Dir(res.Settings)); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(res.Settings, merged, 0o644); err != nil {
		return nil, err
	}
	res.SettingsWritten = true
	return res, nil
}

// Uninstall removes the skill and, with WriteSettings, ctx's hooks from
// settings.json; every other setting stays.
func Uninstall(opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	res := &Result{Scope: opts.Scope.String(), Skill: opts.SkillPath(), Settings: opts.SettingsPath(), Added: []string{}, Removed: []string{}}
	if _, err := os.Lstat(res.Skill); err == nil {
		if err := atomicfile.Remove(res.Skill); err != nil {
			return nil, err
		}
		_ = os.Remove(filepath.Dir(res.Skill)) // only if empty
		res.SkillChanged = true
	}
	data, err := readSettings(res.Settings)
	if err != nil || data == nil {
		return res, err
	}
	out, removed, err := Remove(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", res.Settings, err)
	}
	res.Removed = removed
	if len(removed) == 0 || !opts.WriteSettings {
		return res, nil
	}
	if err := atomicfile.Write(res.Settings, out, 0o644); err != nil {
		return nil, err
	}
	res.SettingsWritten = true
	return res, nil
}

// readSettings returns the file's bytes, nil if it does not exist.
func readSettings(p string) ([]byte, error) {
	b, err := regfile.Read(p, 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	return b, nil
}

// Command returns the hook command of an event.
func Command(program string, e hook.Event) string { return program + " hook " + e.Command() }

// Snippet returns the settings.json fragment that installs every hook.
func Snippet(program string) string {
	out, _, _ := Merge(nil, program)
	return string(out)
}

// isCtxHook reports whether a command is ctx's hook for the event.
func isCtxHook(command string, e hook.Event) bool {
	f := strings.Fields(command)
	if len(f) != 3 || f[1] != "hook" || f[2] != e.Command() {
		return false
	}
	switch filepath.Base(strings.Trim(f[0], `"'`)) {
	case "ctx", "ctx.exe", "ctx-core", "ctx-core.exe":
		return true
	}
	return false
}

// member is one key and raw value of a JSON object, in file order.
type member struct {
	Key   string
	Value json.RawMessage
}

// object is a JSON object whose key order is kept.
type object []member

func (o object) get(k string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == k {
			return m.Value, true
		}
	}
	return nil, false
}

func (o *object) set(k string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].Key == k {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, member{k, v})
}

func (o *object) del(k string) {
	for i := range *o {
		if (*o)[i].Key == k {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// parseObject decodes a JSON object keeping its key order; a repeated key
// keeps its last value at its first place, as JSON decoders do.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(k, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("data after the object")
	}
	return o, nil
}

func (o object) marshal() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonString(m.Key))
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// group is a matcher group of an event, as far as ctx reads it.
type group struct {
	Matcher *string `json:"matcher,omitempty"`
	Hooks   []struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	} `json:"hooks"`
}

// settings splits a settings.json into its top-level object and its
// "hooks" object.
func settings(data []byte) (top, hooks object, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return object{}, object{}, nil
	}
	if top, err = parseObject(data); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrSettings, err)
	}
	raw, ok := top.get("hooks")
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return top, object{}, nil
	}
	if hooks, err = parseObject(raw); err != nil {
		return nil, nil, fmt.Errorf("%w: \"hooks\": %v", ErrSettings, err)
	}
	return top, hooks, nil
}

// groups decodes an event's list of matcher groups.
func groups(raw json.RawMessage) ([]json.RawMessage, error) {
	var gs []json.RawMessage
	if err := json.Unmarshal(raw, &gs); err != nil {
		return nil, fmt.Errorf("%w: an event's hooks must be a list of matcher groups: %v", ErrSettings, err)
	}
	return gs, nil
}

func hasCtx(gs []json.RawMessage, e hook.Event) bool {
	for _, g := range gs {
		var x group
		if json.Unmarshal(g, &x) != nil {
			continue
		}
		for _, h := range x.Hooks {
			if isCtxHook(h.Command, e) {
				return true
			}
		}
	}
	return false
}

func finish(top, hooks object) []byte {
	top.set("hooks", hooks.marshal())
	var b bytes.Buffer
	if err := json.Indent(&b, top.marshal(), "", "  "); err != nil {
		return top.marshal() // cannot happen: built from valid JSON
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// toolMatcher names the tools whose PostToolUse feeds the working set
// (hook.PostToolUse): Claude Code runs the hook only after those.
const toolMatcher = "Read|Write|Edit|MultiEdit|NotebookEdit|Bash|Grep|Glob"

// matcher is the matcher of ctx's hook for event e: every tool, or for
// PostToolUse the tools it follows.
func matcher(e hook.Event) string {
	if e == hook.PostToolUse {
		return toolMatcher
	}
	return ""
}

// Merge returns settings.json data with ctx's hook added to every event
// (hook.Events) that lacks one, and the events it added to. Everything
// else is kept in its order; the result is indented with two spaces.
func Merge(data []byte, program string) ([]byte, []string, error) {
	top, hooks, err := settings(data)
	if err != nil {
		return nil, nil, err
	}
	added := []string{}
	for _, e := range hook.Events {
		var gs []json.RawMessage
		if raw, ok := hooks.get(e.String()); ok {
			if gs, err = groups(raw); err != nil {
				return nil, nil, err
			}
		}
		if hasCtx(gs, e) {
			continue
		}
		g := object{{"matcher", jsonString(matcher(e))}, {"hooks", rawArray([]json.RawMessage{
			object{{"type", jsonString("command")}, {"command", jsonString(Command(program, e))}}.marshal(),
		})}}
		gs = append(gs, g.marshal())
		hooks.set(e.String(), rawArray(gs))
		added = append(added, e.String())
	}
	return finish(top, hooks), added, nil
}

// Remove returns settings.json data without ctx's hooks, and the events
// it removed them from. A matcher group left without hooks goes, and so
// does an event left without groups.
func Remove(data []byte) ([]byte, []string, error) {
	top, hooks, err := settings(data)
	if err != nil {
		return nil, nil, err
	}
	removed := []string{}
	for _, e := range hook.Events {
		raw, ok := hooks.get(e.String())
		if !ok {
			continue
		}
		gs, err := groups(raw)
		if err != nil {
			return nil, nil, err
		}
		var keep []json.RawMessage
		changed := false
		for _, g := range gs {
			o, err := parseObject(g)
			if err != nil {
				keep = append(keep, g)
				continue
			}
			hraw, ok := o.get("hooks")
			var hs []json.RawMessage
			if !ok || json.Unmarshal(hraw, &hs) != nil {
				keep = append(keep, g)
				continue
			}
			var rest []json.RawMessage
			for _, h := range hs {
				var x struct {
					Command string `json:"command"`
				}
				if json.Unmarshal(h, &x) == nil && isCtxHook(x.Command, e) {
					changed = true
					continue
				}
				rest = append(rest, h)
			}
			if len(rest) == len(hs) {
				keep = append(keep, g)
				continue
			}
			if len(rest) == 0 {
				continue
			}
			o.set("hooks", rawArray(rest))
			keep = append(keep, o.marshal())
		}
		if !changed {
			continue
		}
		removed = append(removed, e.String())
		if len(keep) == 0 {
			hooks.del(e.String())
			continue
		}
		hooks.set(e.String(), rawArray(keep))
	}
	if len(removed) == 0 {
		return data, removed, nil
	}
	return finish(top, hooks), removed, nil
}

// rawArray writes values as a JSON array, as they are: json.Marshal would
// escape the HTML characters of a user's hook commands (&&, <, >).
func rawArray(vs []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// jsonString encodes s without escaping HTML characters.
func jsonString(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSpace(b.Bytes())
}
