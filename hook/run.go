package hook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/hook/directive"
	"github.com/ctx-dev/ctx/hook/transcript"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/view"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// Options configure Run.
type Options struct {
	// Event is the hook run.
	Event Event
	// Input is what Claude Code wrote on standard input.
	Input Input
	// Response, if not nil, is the assistant's text for Stop and
	// PreCompact instead of the transcript's (`ctx hook stop --response`,
	// for tests and other agents).
	Response *string
	// LockTimeout bounds the wait for the store's writer lock.
	LockTimeout time.Duration
	// MaxChars bounds the injected context, in characters; 0 means the
	// store's hooks.max_context_chars.
	MaxChars int
	// DefaultBudget is the token budget of a view that has none; 0 means
	// view.DefaultBudget. MaxChars caps it in any case.
	DefaultBudget int
	// Warn receives warnings (for standard error); nil drops them.
	Warn func(string)
}

// Validate checks the options.
func (o *Options) Validate() error {
	if eventNames[o.Event][0] == "" {
		return fmt.Errorf("%w: no hook event", ErrInvalidInput)
	}
	if o.MaxChars < 0 || o.MaxChars > repo.MaxHookContextChars {
		return fmt.Errorf("%w: max chars %d outside 0-%d", ErrInvalidInput, o.MaxChars, repo.MaxHookContextChars)
	}
	return nil
}

// gcAge is how long the state of an idle session is kept.
const gcAge = 30 * 24 * time.Hour

// Run runs a hook against the store r and returns its answer. The error
// is not nil only when the store is damaged (IsCorrupt) or the options
// are invalid; every other failure is reported in the Output's system
// message and through Warn, so that the agent goes on.
func Run(ctx context.Context, r *repo.Repo, opts Options) (*Output, error) {
	if err := opts.Validate(); err != nil {
		return &Output{}, err
	}
	h := &runner{ctx: ctx, r: r, opts: opts, out: &Output{}, st: OpenState(r.Root, opts.Input.SessionID)}
	h.max = opts.MaxChars
	if h.max == 0 {
		h.max = r.Config.Hooks.MaxContextChars
	}
	if h.max <= 0 {
		h.max = repo.DefaultConfig("").Hooks.MaxContextChars
	}
	var err error
	switch opts.Event {
	case SessionStart:
		err = h.sessionStart()
	case PromptSubmit:
		err = h.promptSubmit()
	case Stop, PreCompact:
		err = h.stop()
	case SessionEnd:
		_, err = GC(r.Root, r.Clock.Now().Add(-gcAge), 1000)
	case PostToolUse:
		err = h.postToolUse()
	}
	if err != nil {
		if IsCorrupt(err) {
			h.out.warn("the store is damaged (run `ctx verify`): %v", err)
			return h.out, err
		}
		h.warn("%s: %v", opts.Event.Command(), err)
		h.out.warn("%s: %v", opts.Event.Command(), err)
	}
	return h.out, nil
}

type runner struct {
	ctx  context.Context
	r    *repo.Repo
	opts Options
	out  *Output
	st   *State
	max  int
}

func (h *runner) warn(format string, args ...any) {
	if h.opts.Warn != nil {
		h.opts.Warn(fmt.Sprintf(format, args...))
	}
}

// inject sets the additional context, "" for none.
func (h *runner) inject(text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	h.out.Specific = &Specific{HookEventName: h.opts.Event.String(), AdditionalContext: text}
}

// sessionStart injects the session's pending results and the default
// view, within the budget: the results first, the view in what is left.
func (h *runner) sessionStart() error {
	cat, err := h.r.Narrative().Load()
	if err != nil {
		return err
	}
	pending, err := h.pending(cat)
	if err != nil {
		h.warn("pending results: %v", err)
	}
	room := h.max - len(pending)
	if pending != "" {
		room -= 2
	}
	text, err := h.defaultView(cat, room)
	switch {
	case errors.Is(err, view.ErrBudget):
		text = "" // the pending results took the room
	case err != nil:
		return err
	}
	switch {
	case text == "":
		h.inject(pending)
	case pending == "":
		h.inject(text)
	default:
		h.inject(text + "\n\n" + pending)
	}
	return nil
}

// defaultView renders the default view in Markdown within room
// characters and the view's own budget.
func (h *runner) defaultView(cat *narrative.Catalog, room int) (string, error) {
	v, err := h.r.Views().Get(view.DefaultName)
	if err != nil {
		return "", err
	}
	budget := v.Budget
	if budget == 0 {
		budget = h.opts.DefaultBudget
	}
	if budget == 0 {
		budget = view.DefaultBudget
	}
	if chars := room / 4; chars < budget {
		budget = chars // Tokens(text) ≤ budget ⇒ len(text) ≤ 4·budget ≤ room
	}
	if budget < 1 {
		return "", view.ErrBudget
	}
	now := h.r.Clock.Now()
	nodes, err := selectNodes(h.ctx, h.r, cat, v.Query, now)
	if err != nil {
		return "", err
	}
	var edges view.Edges
	if len(nodes) > 0 {
		if edges, err = narrativeEdges(h.ctx, h.r, cat); err != nil {
			return "", err
		}
	}
	res, err := view.Render(cat, nodes, edges, view.RenderOptions{Budget: budget, Format: view.Markdown, Now: now, View: v.Name})
	if err != nil {
		return "", err
	}
	return strings.TrimRight(res.Text, "\n"), nil
}

// promptSubmit injects the session's pending results, once.
func (h *runner) promptSubmit() error {
	if !h.st.HasPending() {
		return nil // the common case: no file read, no catalog parsed
	}
	text, err := h.pending(nil)
	if err != nil {
		return err
	}
	h.inject(text)
	return nil
}

// pending claims the session's pending results and renders them within
// the budget. cat is loaded if an expansion needs it and cat is nil.
func (h *runner) pending(cat *narrative.Catalog) (string, error) {
	items, bad, err := h.st.Claim()
	for _, b := range bad {
		h.warn("dropped a pending result that does not read: %s", b)
	}
	if err != nil || len(items) == 0 {
		return "", err
	}
	task, _ := h.st.Task()
	var parts []string
	for _, it := range items {
		text := it.Text
		if it.Kind == KindExpand {
			if cat == nil {
				if cat, err = h.r.Narrative().Load(); err != nil {
					return "", err
				}
			}
			text = renderExpand(cat, it, h.max)
		}
		if strings.TrimSpace(text) != "" {
			parts = append(parts, strings.TrimRight(text, "\n"))
		}
	}
	if len(parts) == 0 {
		return "", nil
	}
	head := "<!-- ctx: results of your <ctx:*> commands -->"
	if task != "" {
		head += "\n\nCurrent task: " + task
	}
	return fit(head, parts, h.max), nil
}

// fit joins head and parts with blank lines within max characters: parts
// are kept in order while they fit, the first that does not is cut, and
// a last line counts those left out.
func fit(head string, parts []string, max int) string {
	const note = "\n\n<!-- ctx: %d more result(s) left out: over hooks.max_context_chars -->"
	var b strings.Builder
	b.WriteString(head)
	for i, p := range parts {
		room := max - b.Len() - 2 - len(note) - 8
		if len(p) > room {
			if room > 200 {
				b.WriteString("\n\n")
				b.WriteString(narrative.Truncate(p, room))
				i++
			}
			if left := len(parts) - i; left > 0 {
				fmt.Fprintf(&b, note, left)
			}
			break
		}
		b.WriteString("\n\n")
		b.WriteString(p)
	}
	return b.String()
}

// stop runs the <ctx:*> commands of the assistant's text: the response
// given, or the transcript's turn after the cursor.
func (h *runner) stop() error {
	in := h.opts.Input
	if in.StopHookActive {
		// Claude Code is continuing because a Stop hook blocked; ctx never
		// blocks, and the cursor keeps commands from running twice.
		h.warn("stop_hook_active: another Stop hook is continuing the turn")
	}
	var text, last string
	switch {
	case h.opts.Response != nil:
		text = *h.opts.Response
	case in.TranscriptPath == "":
		h.warn("no transcript_path in the input and no --response: nothing to read")
		return nil
	default:
		cursor, err := h.st.Cursor()
		if err != nil {
			h.warn("%v (reading the last turn)", err)
		}
		turn, err := transcript.ReadFile(in.TranscriptPath, cursor)
		if err != nil {
			return err
		}
		text, last = turn.Text, turn.Last
	}
	ds, probs := directive.Parse(text)
	for _, p := range probs {
		h.warn("<ctx:*> %v", p)
	}
	var malformed []string
	for _, p := range probs {
		malformed = append(malformed, fmt.Sprintf("line %d: %s", p.Line, p.Msg))
	}
	if len(ds) == 0 {
		if len(probs) > 0 {
			h.out.warn("%d malformed <ctx:*> command(s): %s", len(probs), probs[0].Msg)
			if err := h.st.Push(h.r.Clock.Now(), randomHex(), Item{Kind: KindNotice, Text: noticeText(nil, malformed)}); err != nil {
				return err
			}
		}
		return h.advance(last)
	}
	w, err := h.r.Lock(h.ctx, repo.LockOptions{Timeout: h.opts.LockTimeout, Command: "ctx hook " + h.opts.Event.Command()})
	if err != nil {
		// The cursor stays: the next Stop runs these commands.
		return fmt.Errorf("the <ctx:*> commands wait for the next Stop: %w", err)
	}
	x := &executor{ctx: h.ctx, w: w, st: h.st, max: h.max, now: h.r.Clock.Now(), warnf: h.warn}
	for i := range ds {
		x.run(&ds[i])
	}
	stepErr := h.recordStep(w)
	for _, n := range w.Notices {
		h.warn("%s", n)
	}
	if err := w.Unlock(); err != nil {
		h.warn("unlock: %v", err)
	}
	if x.fatal != nil {
		return x.fatal
	}
	if stepErr != nil {
		x.failed = append(x.failed, stepErr.Error())
	}
	items := x.items
	if failed := append(malformed, x.failed...); len(x.done) > 0 || len(failed) > 0 {
		items = append(items, Item{Kind: KindNotice, Text: noticeText(x.done, failed)})
	}
	if err := h.st.Push(h.r.Clock.Now(), randomHex(), items...); err != nil {
		return err
	}
	if n := len(x.failed) + len(probs); n > 0 {
		msg := ""
		if len(x.failed) > 0 {
			msg = x.failed[0]
		} else {
			msg = probs[0].Msg
		}
		h.out.warn("%d of %d <ctx:*> command(s) failed: %s", n, len(ds)+len(probs), msg)
	}
	return h.advance(last)
}

// advance records the transcript cursor, if the text came from one.
func (h *runner) advance(last string) error {
	if last == "" {
		return nil
	}
	return h.st.SetCursor(last)
}

// recordStep records the commands' narrative changes as a step of the
// active staging session, as every narrative command does (outside a
// session they wait for ctx commit).
func (h *runner) recordStep(w *repo.Writer) error {
	s, err := w.ActiveSession()
	if err != nil || s == nil {
		return nil
	}
	_, err = w.NarrativeStep(h.ctx, s, "ctx hook "+h.opts.Event.Command()+": <ctx:*> commands", "", object.StepNote)
	return err
}

// noticeText tells the agent what its commands did, so that it learns
// the ids of the nodes it created.
func noticeText(done, failed []string) string {
	var b strings.Builder
	b.WriteString("## ctx commands")
	if len(done) > 0 {
		b.WriteString("\n")
		for _, d := range done {
			b.WriteString("\n- " + d)
		}
	}
	if len(failed) > 0 {
		b.WriteString("\n\nFailed:\n")
		for _, f := range failed {
			b.WriteString("\n- " + f)
		}
	}
	return b.String()
}

func randomHex() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
