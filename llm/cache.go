package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/internal/regfile"
)

// CacheFile is the prefix-cache state's path in a store (FORMAT.md §18):
// local, per machine, gitignored with the rest of local/.
const CacheFile = "local/llm-cache"

// CacheVersion is the version of the state file's format.
//
//	1: {"version":1,"slots":[{server, api, slot, prefix: [{section, hash,
//	   tokens}], prompt_tokens, cached_tokens, updated}]}
const CacheVersion = 1

// Bounds of the state file: entries kept (the least recently updated go
// first) and bytes read.
const (
	maxCacheEntries = 64
	maxCacheBytes   = 1 << 20
)

// Cache is the prefix-cache state (design §14.4): for each server and
// slot, the prefix marks of the last prompt sent there. Entries are kept
// sorted by server, API and slot, so that the file's bytes depend only on
// its content.
type Cache struct {
	Version int          `json:"version"`
	Slots   []CacheEntry `json:"slots"`
}

// CacheEntry is the last prompt a server's slot processed.
type CacheEntry struct {
	// Server is the endpoint's URL as Display shows it.
	Server string `json:"server"`
	API    API    `json:"api"`
	// Slot is llama.cpp's id_slot; -1 for a server without slots (the
	// OpenAI API) or when the server did not say.
	Slot int `json:"slot"`
	// Prefix are the prompt's marks (Prompt.Marks).
	Prefix []Mark `json:"prefix"`
	// PromptTokens and CachedTokens are the server's counts for that
	// prompt (0 when it reported none).
	PromptTokens int `json:"prompt_tokens"`
	CachedTokens int `json:"cached_tokens"`
	// Updated is when it was sent, Unix seconds.
	Updated int64 `json:"updated"`
}

// LoadCache reads the state file. A missing file is an empty state; so
// is one that does not parse or has another version (it is a hint, and
// the next Save replaces it), which is reported as damaged.
func LoadCache(path string) (c *Cache, damaged bool, err error) {
	c = &Cache{Version: CacheVersion}
	data, err := regfile.Read(path, maxCacheBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c, false, nil
	case errors.Is(err, regfile.ErrTooLarge), errors.Is(err, regfile.ErrNotRegular):
		return c, true, nil
	case err != nil:
		return nil, false, fmt.Errorf("llm: read %s: %w", path, err)
	}
	var got Cache
	if json.Unmarshal(data, &got) != nil || got.Version != CacheVersion {
		return c, true, nil
	}
	for _, e := range got.Slots {
		if e.Server != "" && e.Slot >= -1 {
			c.Slots = append(c.Slots, e)
		}
	}
	c.sort()
	return c, false, nil
}

// Save writes the state file atomically (temporary file, fsync, rename,
// fsync of the directory), creating local/ if needed.
func (c *Cache) Save(path string) error {
	c.Version = CacheVersion
	c.sort()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("llm: encode cache state: %w", err)
	}
	if err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	return nil
}

func (c *Cache) sort() {
	slices.SortFunc(c.Slots, func(a, b CacheEntry) int {
		if x := strings.Compare(a.Server, b.Server); x != 0 {
			return x
		}
		if x := strings.Compare(string(a.API), string(b.API)); x != 0 {
			return x
		}
		return a.Slot - b.Slot
	})
}

// CacheMatch is what the state says of a new prompt: the slot whose last
// prompt shares the longest prefix with it, and how long that prefix is.
type CacheMatch struct {
	// Slot is the slot chosen (-1: none shares a prefix, or the API has
	// no slots).
	Slot int `json:"slot"`
	// Sections and Tokens measure the shared prefix: whole sections, and
	// their estimated tokens.
	Sections int `json:"shared_sections"`
	Tokens   int `json:"shared_tokens"`
}

// Match finds the entry of server and api whose prefix shares the most
// sections with marks; ties go to the most recently updated, then the
// lowest slot.
func (c *Cache) Match(server string, api API, marks []Mark) CacheMatch {
	best := CacheMatch{Slot: -1}
	var bestAt int64
	for _, e := range c.Slots {
		if e.Server != server || e.API != api {
			continue
		}
		n := 0
		for n < len(marks) && n < len(e.Prefix) && marks[n] == e.Prefix[n] {
			n++
		}
		if n == 0 {
			continue
		}
		if n > best.Sections || n == best.Sections && e.Updated > bestAt {
			best = CacheMatch{Slot: e.Slot, Sections: n, Tokens: marks[n-1].Tokens}
			bestAt = e.Updated
		}
	}
	return best
}

// Record remembers marks as the last prompt of server's slot.
func (c *Cache) Record(server string, api API, slot int, marks []Mark, u Usage, now int64) {
	e := CacheEntry{Server: server, API: api, Slot: slot, Prefix: marks, PromptTokens: u.PromptTokens, CachedTokens: u.CachedTokens, Updated: now}
	for i := range c.Slots {
		if c.Slots[i].Server == server && c.Slots[i].API == api && c.Slots[i].Slot == slot {
			c.Slots[i] = e
			return
		}
	}
	c.Slots = append(c.Slots, e)
	if len(c.Slots) > maxCacheEntries {
		slices.SortStableFunc(c.Slots, func(a, b CacheEntry) int {
			switch {
			case a.Updated > b.Updated:
				return -1
			case a.Updated < b.Updated:
				return 1
			}
			return 0
		})
		c.Slots = c.Slots[:maxCacheEntries]
	}
	c.sort()
}

// AskOptions configure Ask.
type AskOptions struct {
	Options
	// CachePath is the state file; "" keeps no state.
	CachePath string
}

// Exchange is a prompt sent and its response.
type Exchange struct {
	// Endpoint is the URL posted to (Display form).
	Endpoint string `json:"endpoint"`
	API      API    `json:"api"`
	Model    string `json:"model"`
	// Prompt describes what was sent: its estimated tokens, hash and
	// sections.
	Prompt PromptInfo `json:"prompt"`
	// Cache is what the prefix-cache state said before sending.
	Cache    CacheMatch `json:"cache"`
	Response *Response  `json:"result"`
	// CacheDamaged is true when the state file did not read and was
	// started over.
	CacheDamaged bool `json:"cache_damaged,omitempty"`
}

// PromptInfo describes a prompt.
type PromptInfo struct {
	Task   string `json:"task"`
	Tokens int    `json:"tokens"`
	Hash   string `json:"hash"`
	Marks  []Mark `json:"sections"`
}

// Ask sends a prompt with the prefix-cache state of §14.4: for llama.cpp
// with Slot -1 it sends id_slot of the slot whose last prompt shares the
// longest prefix with p (-1 if none does), and after a response records
// p's marks as the last prompt of the slot that served it. The state is
// written only after a response: a failed request changes nothing. An
// error writing it is returned with the exchange, which is complete.
func Ask(ctx context.Context, p Prompt, o AskOptions) (*Exchange, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ep, _ := Endpoint(o.Server, o.API)
	marks := p.Marks()
	x := &Exchange{Endpoint: Display(ep), API: o.API, Model: o.Model, Cache: CacheMatch{Slot: -1}}
	x.Prompt = PromptInfo{Task: p.Task, Tokens: p.Tokens(), Marks: marks}
	if len(marks) > 0 {
		x.Prompt.Hash = marks[len(marks)-1].Hash
	}
	var state *Cache
	if o.CachePath != "" {
		var err error
		if state, x.CacheDamaged, err = LoadCache(o.CachePath); err != nil {
			return nil, err
		}
		x.Cache = state.Match(x.Endpoint, o.API, marks)
	}
	opts := o.Options
	if opts.API == LlamaCPP && opts.Slot == -1 {
		opts.Slot = x.Cache.Slot
	}
	resp, err := Complete(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	x.Response = resp
	if state != nil {
		slot := resp.Slot
		if slot == -1 && o.API == LlamaCPP {
			slot = opts.Slot
		}
		if o.API != LlamaCPP {
			slot = -1
		}
		now := o.Clock
		if now == nil {
			now = clock.Real{}
		}
		state.Record(x.Endpoint, o.API, slot, marks, resp.Usage, now.Now().Unix())
		if err := state.Save(o.CachePath); err != nil {
			return x, err
		}
	}
	return x, nil
}
