package repo

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/regfile"
)

// Version is the version of ctx that writes new stores.
const Version = "0.1.0"

// Config is .ctx/config.toml. Keys missing from the file take the values
// of DefaultConfig; unknown keys are ignored and listed in Unknown, so
// that typos are reported and a key of a newer ctx does not stop an older
// one.
type Config struct {
	Repo      RepoConfig      `toml:"repo"`
	Storage   StorageConfig   `toml:"storage"`
	Ingestion IngestionConfig `toml:"ingestion"`
	Retrieval RetrievalConfig `toml:"retrieval"`
	LLM       LLMConfig       `toml:"llm"`
	Stage     StageConfig     `toml:"stage"`
	Hooks     HooksConfig     `toml:"hooks"`
	// Unknown lists the keys of the file this version of ctx does not
	// know, sorted: they are ignored (UnknownKeysWarning says so).
	Unknown []string `toml:"-"`
}

// UnknownKeysWarning is the warning for c.Unknown; "" when there are none.
func (c *Config) UnknownKeysWarning() string {
	if len(c.Unknown) == 0 {
		return ""
	}
	return fmt.Sprintf("config.toml: unknown key(s) %s: ignored (a typo, or a key of a newer ctx; docs/FORMAT.md §8 lists every key)", strings.Join(c.Unknown, ", "))
}

// HooksConfig is the [hooks] table: the Claude Code hooks (package hook,
// docs/CLAUDE_CODE.md).
type HooksConfig struct {
	// MaxContextChars bounds the context one hook injects, in characters,
	// whatever the budget of the view it renders: Claude Code does not
	// inline hook output over 50,000 characters.
	MaxContextChars int `toml:"max_context_chars"`
}

// MaxHookContextChars is the largest hooks.max_context_chars: well under
// the 50,000 characters above which Claude Code stops inlining a hook's
// output.
const MaxHookContextChars = 40000

// RepoConfig is the [repo] table.
type RepoConfig struct {
	// ID identifies the repository; stable node ids of files are derived
	// from it, so every clone must share it (config.toml is tracked).
	ID string `toml:"id"`
	// CtxVersion is the version of ctx that created the store.
	CtxVersion string `toml:"ctx_version"`
}

// StorageConfig is the [storage] table.
type StorageConfig struct {
	// CompressionLevel is the zstd level of stored objects, 1-22 (0 means
	// the default, 3). Teammates sharing a store must use the same level,
	// which is why it lives in the tracked config.
	CompressionLevel int `toml:"compression_level"`
}

// IngestionConfig is the [ingestion] table.
type IngestionConfig struct {
	IgnoreGlobs     []string `toml:"ignore_globs"`
	MaxFilesPerStep int      `toml:"max_files_per_step"`
	MaxBytesPerStep int64    `toml:"max_bytes_per_step"`
	MaxFileBytes    int64    `toml:"max_file_bytes"`
	MaxLogLines     int      `toml:"max_log_lines"`
}

// RetrievalConfig is the [retrieval] table.
type RetrievalConfig struct {
	DefaultBudget    int  `toml:"default_budget"`
	DefaultDepth     int  `toml:"default_depth"`
	IncludeNarrative bool `toml:"include_narrative"`
}

// LLMConfig is the [llm] table: the server ctx llm talks to (design
// §14, appendix A.3) and how it composes prompts.
type LLMConfig struct {
	ServerURL         string `toml:"server_url"`
	Model             string `toml:"model"`
	MaxResponseTokens int    `toml:"max_response_tokens"`
	// API is the server's protocol: "llamacpp" (POST /completion) or
	// "openai" (POST /v1/chat/completions).
	API string `toml:"api"`
	// APIKeyEnv names the environment variable holding the API key sent
	// as a bearer token; "" sends none. The key itself is never stored:
	// config.toml is tracked in git.
	APIKeyEnv string `toml:"api_key_env"`
	// Temperature is the sampling temperature, 0-2.
	Temperature float64 `toml:"temperature"`
	// Timeout is how long ctx waits for the server without receiving
	// anything (a Go duration).
	Timeout string `toml:"timeout"`
	// Retries is how many times a request the server refused before
	// reading it (connection refused, 429, 503) is tried again, 0-10.
	Retries int `toml:"retries"`
	// Stream asks for the response as server-sent events.
	Stream bool `toml:"stream"`
	// CachePrompt lets llama.cpp reuse the KV cache of the prompt prefix
	// a slot holds (cache_prompt).
	CachePrompt bool `toml:"cache_prompt"`
	// Slot is the llama.cpp slot (id_slot) to use; -1 lets ctx choose the
	// slot whose last prompt shares the longest prefix (§14.4).
	Slot int `toml:"slot"`
	// SystemPrefix starts every prompt and ResponseInstruction ends it;
	// "" means the built-in texts (package llm).
	SystemPrefix        string `toml:"system_prefix"`
	ResponseInstruction string `toml:"response_instruction"`
}

// TimeoutDuration returns Timeout as a duration (valid after Validate).
func (l LLMConfig) TimeoutDuration() time.Duration {
	d, _ := time.ParseDuration(l.Timeout)
	return d
}

// StageConfig is the [stage] table: staging sessions' budgets and the
// triggers that compact them (design §15.2; the manual trigger is
// `ctx stage compact`).
type StageConfig struct {
	// MaxEdgesPerStep bounds the edges one step of a session asserts.
	MaxEdgesPerStep int `toml:"max_edges_per_step"`
	// CompactAtTokens compacts a session, which then goes on, once what
	// it staged since its last compaction is estimated at this many
	// tokens; 0 never.
	CompactAtTokens int64 `toml:"compact_at_tokens"`
	// CompactAfter compacts a session, which then goes on, at its first
	// step this long after its start or last compaction (a Go duration,
	// "4h"); "0" never.
	CompactAfter string `toml:"compact_after"`
	// CompactOnTaskDone compacts and ends a session when the task it
	// works on is done (tagged done, status done, superseded or deleted).
	CompactOnTaskDone bool `toml:"compact_on_task_done"`
	// CompactOnSwitch compacts and ends the current session when
	// `ctx stage start` starts another one in its place.
	CompactOnSwitch bool `toml:"compact_on_switch"`
}

// After returns CompactAfter as a duration; 0 means never.
func (s StageConfig) After() time.Duration {
	d, err := time.ParseDuration(s.CompactAfter)
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// tomlFloat writes a float as TOML reads it back as a float: with a
// decimal point.
func tomlFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// envName is what an environment variable's name may be.
var envName = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// DefaultConfig returns the defaults of design appendix A.3.
func DefaultConfig(repoID string) Config {
	return Config{
		Repo:    RepoConfig{ID: repoID, CtxVersion: Version},
		Storage: StorageConfig{CompressionLevel: 3},
		Ingestion: IngestionConfig{
			IgnoreGlobs:     []string{"target/**", ".git/**", "node_modules/**", ".ctx/**"},
			MaxFilesPerStep: 10,
			MaxBytesPerStep: 1 << 20,
			MaxFileBytes:    1 << 20,
			MaxLogLines:     500,
		},
		Retrieval: RetrievalConfig{DefaultBudget: 16000, DefaultDepth: 2, IncludeNarrative: true},
		LLM:       LLMConfig{ServerURL: "http://127.0.0.1:8080", Model: "default", MaxResponseTokens: 2048, API: "llamacpp", Temperature: 0.7, Timeout: "120s", Retries: 3, Stream: true, CachePrompt: true, Slot: -1},
		Hooks:     HooksConfig{MaxContextChars: 10000},
		Stage:     StageConfig{MaxEdgesPerStep: 10000, CompactAtTokens: 200000, CompactAfter: "4h", CompactOnTaskDone: true, CompactOnSwitch: true},
	}
}

// Validate checks every value's range.
func (c *Config) Validate() error {
	var bad []string
	check := func(ok bool, format string, args ...any) {
		if !ok {
			bad = append(bad, fmt.Sprintf(format, args...))
		}
	}
	check(c.Repo.ID != "" && !strings.ContainsAny(c.Repo.ID, "\x00\r\n"), "repo.id must be a non-empty single line")
	check(c.Storage.CompressionLevel >= 0 && c.Storage.CompressionLevel <= 22, "storage.compression_level %d is outside 0-22", c.Storage.CompressionLevel)
	for _, g := range c.Ingestion.IgnoreGlobs {
		_, err := path.Match(strings.ReplaceAll(g, "**", "*"), "")
		check(err == nil && g != "", "ingestion.ignore_globs: %q is not a valid glob", g)
	}
	check(c.Ingestion.MaxFilesPerStep > 0, "ingestion.max_files_per_step must be positive")
	check(c.Ingestion.MaxBytesPerStep > 0, "ingestion.max_bytes_per_step must be positive")
	check(c.Ingestion.MaxFileBytes > 0, "ingestion.max_file_bytes must be positive")
	check(c.Ingestion.MaxLogLines > 0, "ingestion.max_log_lines must be positive")
	check(c.Retrieval.DefaultBudget > 0, "retrieval.default_budget must be positive")
	check(c.Retrieval.DefaultDepth >= 0 && c.Retrieval.DefaultDepth <= 16, "retrieval.default_depth %d is outside 0-16", c.Retrieval.DefaultDepth)
	u, err := url.Parse(c.LLM.ServerURL)
	check(err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != "", "llm.server_url %q is not an http(s) URL with a host", c.LLM.ServerURL)
	check(c.LLM.MaxResponseTokens > 0, "llm.max_response_tokens must be positive")
	check(c.LLM.API == "llamacpp" || c.LLM.API == "openai", "llm.api %q is not llamacpp or openai", c.LLM.API)
	check(c.LLM.APIKeyEnv == "" || envName.MatchString(c.LLM.APIKeyEnv), "llm.api_key_env %q is not the name of an environment variable (letters, digits and _, not starting with a digit)", c.LLM.APIKeyEnv)
	check(c.LLM.Temperature >= 0 && c.LLM.Temperature <= 2, "llm.temperature %g is outside 0-2", c.LLM.Temperature)
	if d, err := time.ParseDuration(c.LLM.Timeout); err != nil || d <= 0 {
		check(false, "llm.timeout %q is not a positive duration such as \"120s\"", c.LLM.Timeout)
	}
	check(c.LLM.Retries >= 0 && c.LLM.Retries <= 10, "llm.retries %d is outside 0-10", c.LLM.Retries)
	check(c.LLM.Slot >= -1, "llm.slot %d must be -1 (ctx chooses) or a slot number", c.LLM.Slot)
	check(c.Stage.MaxEdgesPerStep > 0, "stage.max_edges_per_step must be positive")
	check(c.Hooks.MaxContextChars >= 1000 && c.Hooks.MaxContextChars <= MaxHookContextChars, "hooks.max_context_chars %d is outside 1000-%d", c.Hooks.MaxContextChars, MaxHookContextChars)
	check(c.Stage.CompactAtTokens >= 0, "stage.compact_at_tokens must be 0 (never) or positive")
	if d, err := time.ParseDuration(c.Stage.CompactAfter); err != nil || d < 0 {
		check(false, "stage.compact_after %q is not a duration such as \"4h\" or \"0\" (never)", c.Stage.CompactAfter)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s", ErrConfig, strings.Join(bad, "; "))
	}
	return nil
}

// LoadConfig reads a config file over the defaults.
func LoadConfig(file string) (Config, error) {
	data, err := regfile.Read(file, 1<<20)
	if err != nil {
		if errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, regfile.ErrTooLarge) {
			return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		return Config{}, fmt.Errorf("repo: read config: %w", err)
	}
	return ParseConfig(data)
}

// ParseConfig parses config.toml text over the defaults.
func ParseConfig(data []byte) (Config, error) {
	c := DefaultConfig("")
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&c)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		// A typo, or a key a newer ctx knows (a teammate's ctx wrote it):
		// ignored and reported, so that a team on several versions of ctx
		// keeps working.
		c.Unknown = make([]string, len(und))
		for i, k := range und {
			c.Unknown[i] = k.String()
		}
		sort.Strings(c.Unknown)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Text renders the config as the commented config.toml that init writes.
func (c *Config) Text() []byte {
	q := func(s string) string {
		var b bytes.Buffer
		_ = toml.NewEncoder(&b).Encode(map[string]string{"v": s})
		return strings.TrimSpace(strings.TrimPrefix(b.String(), "v = "))
	}
	globs := make([]string, len(c.Ingestion.IgnoreGlobs))
	for i, g := range c.Ingestion.IgnoreGlobs {
		globs[i] = "  " + q(g) + ","
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# ctx store configuration. Tracked in git and shared by everyone who
# works on this repository. See docs/FORMAT.md for every key.

[repo]
# Repository identity. Stable node ids derive from it: never change it.
id = %s
# Version of ctx that created this store.
ctx_version = %s

[storage]
# zstd level of stored objects, 1 (fast) to 22 (small); 0 means the
# default, 3. Object ids do not depend on it. Teammates must use the same
# level, so that they write identical object files.
compression_level = %d

[ingestion]
# Paths never ingested (globs; ** matches across directories).
ignore_globs = [
%s
]
# Budgets of one staging step.
max_files_per_step = %d
max_bytes_per_step = %d
# Files larger than this are skipped (and reported).
max_file_bytes = %d
# Lines of a failing command's output kept (passing runs keep a summary).
max_log_lines = %d

[retrieval]
# Default token budget of a prompt pack.
default_budget = %d
# Default graph expansion depth.
default_depth = %d
# Include narrative (decisions, tasks, log) in prompt packs by default.
include_narrative = %t

[llm]
# Default server URL (llama.cpp or OpenAI-compatible).
server_url = %s
# Default model name.
model = %s
# Response token limit.
max_response_tokens = %d
# Protocol: llamacpp (POST /completion) or openai (/v1/chat/completions:
# llama.cpp, Ollama, vLLM, hosted APIs).
api = %s
# Environment variable holding the API key, if the server wants one
# (e.g. "OPENAI_API_KEY"). The key itself never goes in this file.
api_key_env = %s
# Sampling temperature, 0-2.
temperature = %s
# Longest wait for the server without receiving anything.
timeout = %s
# Retries of a request the server refused (connection refused, 429, 503).
retries = %d
# Stream the response as it is generated.
stream = %t
# Let llama.cpp reuse the cached prompt prefix of its slot.
cache_prompt = %t
# llama.cpp slot (id_slot); -1: the slot whose last prompt shares the
# longest prefix with this one (.ctx/local/llm-cache), else any.
slot = %d
# The text that starts every prompt and the one that ends it; absent or
# "": the built-in texts (docs/FORMAT.md §8). Multi-line: """…""".
# system_prefix = ""
# response_instruction = ""

[stage]
# Staging sessions (ctx stage). Edges one step may assert.
max_edges_per_step = %d
# Compact a session (which goes on) once it staged about this many
# tokens; 0 never.
compact_at_tokens = %d
# Compact a session (which goes on) at its first step this long after its
# start or last compaction; "0" never.
compact_after = %s
# Compact and end a session when its task is done.
compact_on_task_done = %t
# Compact and end the current session when ctx stage start replaces it.
compact_on_switch = %t
`, q(c.Repo.ID), q(c.Repo.CtxVersion), c.Storage.CompressionLevel,
		strings.Join(globs, "\n"), c.Ingestion.MaxFilesPerStep, c.Ingestion.MaxBytesPerStep, c.Ingestion.MaxFileBytes, c.Ingestion.MaxLogLines,
		c.Retrieval.DefaultBudget, c.Retrieval.DefaultDepth, c.Retrieval.IncludeNarrative,
		q(c.LLM.ServerURL), q(c.LLM.Model), c.LLM.MaxResponseTokens,
		q(c.LLM.API), q(c.LLM.APIKeyEnv), tomlFloat(c.LLM.Temperature), q(c.LLM.Timeout), c.LLM.Retries, c.LLM.Stream, c.LLM.CachePrompt, c.LLM.Slot,
		c.Stage.MaxEdgesPerStep, c.Stage.CompactAtTokens, q(c.Stage.CompactAfter), c.Stage.CompactOnTaskDone, c.Stage.CompactOnSwitch)
	return []byte(b.String())
}
