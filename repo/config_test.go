package repo

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestDefaultConfigRoundTrip(t *testing.T) {
	for _, id := range []string{"x", "ctx", "my project", `quote " and \ back`, "ünïcödé", "tab\there", "'single'", "#hash", "[brackets]"} {
		t.Run(id, func(t *testing.T) {
			want := DefaultConfig(id)
			if err := want.Validate(); err != nil {
				t.Fatalf("DefaultConfig(%q).Validate: %v", id, err)
			}
			got, err := ParseConfig(want.Text())
			if err != nil {
				t.Fatalf("ParseConfig(Text()): %v\n%s", err, want.Text())
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("ParseConfig(Text()) = %+v, want %+v", got, want)
			}
		})
	}
}

func TestDefaultConfigFresh(t *testing.T) {
	a := DefaultConfig("a")
	a.Ingestion.IgnoreGlobs[0] = "changed"
	if b := DefaultConfig("b"); b.Ingestion.IgnoreGlobs[0] == "changed" {
		t.Fatal("DefaultConfig shares its ignore_globs slice between calls")
	}
}

// TestConfigGolden freezes the config.toml that init writes. Regenerate
// with go test ./repo -run TestConfigGolden -update.
func TestConfigGolden(t *testing.T) {
	c := DefaultConfig("example")
	got := c.Text()
	golden := filepath.Join("testdata", "config.toml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Text() differs from %s (run with -update if intended):\n%s", golden, got)
	}
	parsed, err := ParseConfig(want)
	if err != nil {
		t.Fatalf("ParseConfig(%s): %v", golden, err)
	}
	if !reflect.DeepEqual(parsed, c) {
		t.Errorf("ParseConfig(%s) = %+v, want %+v", golden, parsed, c)
	}
}

func TestParseConfigOverDefaults(t *testing.T) {
	tests := []struct {
		name string
		text string
		edit func(c *Config)
	}{
		{"only id", "[repo]\nid = \"p\"\n", func(c *Config) {}},
		{"id and version", "[repo]\nid = \"p\"\nctx_version = \"9.9.9\"\n", func(c *Config) { c.Repo.CtxVersion = "9.9.9" }},
		{"compression", "[repo]\nid = \"p\"\n[storage]\ncompression_level = 19\n", func(c *Config) { c.Storage.CompressionLevel = 19 }},
		{"compression zero", "[repo]\nid = \"p\"\n[storage]\ncompression_level = 0\n", func(c *Config) { c.Storage.CompressionLevel = 0 }},
		{"no ignore globs", "[repo]\nid = \"p\"\n[ingestion]\nignore_globs = []\n", func(c *Config) { c.Ingestion.IgnoreGlobs = []string{} }},
		{"one ignore glob", "[repo]\nid = \"p\"\n[ingestion]\nignore_globs = [\"*.log\"]\n", func(c *Config) { c.Ingestion.IgnoreGlobs = []string{"*.log"} }},
		{"more ignore globs than defaults", "[repo]\nid = \"p\"\n[ingestion]\nignore_globs = [\"a\", \"b\", \"c\", \"d\", \"e\"]\n", func(c *Config) {
			c.Ingestion.IgnoreGlobs = []string{"a", "b", "c", "d", "e"}
		}},
		{"narrative off", "[repo]\nid = \"p\"\n[retrieval]\ninclude_narrative = false\ndefault_depth = 0\n", func(c *Config) {
			c.Retrieval.IncludeNarrative = false
			c.Retrieval.DefaultDepth = 0
		}},
		{"https and empty model", "[repo]\nid = \"p\"\n[llm]\nserver_url = \"https://llm.example:443/v1\"\nmodel = \"\"\n", func(c *Config) {
			c.LLM.ServerURL = "https://llm.example:443/v1"
			c.LLM.Model = ""
		}},
		{"openai with a key and prompt texts", "[repo]\nid = \"p\"\n[llm]\napi = \"openai\"\napi_key_env = \"OPENAI_API_KEY\"\ntemperature = 0\ntimeout = \"5m\"\nretries = 0\nstream = false\ncache_prompt = false\nslot = 2\nsystem_prefix = \"\"\"\nYou help.\n\"\"\"\nresponse_instruction = \"Answer.\"\n", func(c *Config) {
			c.LLM.API, c.LLM.APIKeyEnv, c.LLM.Temperature, c.LLM.Timeout, c.LLM.Retries = "openai", "OPENAI_API_KEY", 0, "5m", 0
			c.LLM.Stream, c.LLM.CachePrompt, c.LLM.Slot = false, false, 2
			c.LLM.SystemPrefix, c.LLM.ResponseInstruction = "You help.\n", "Answer."
		}},
		{"integer temperature", "[repo]\nid = \"p\"\n[llm]\ntemperature = 1\n", func(c *Config) { c.LLM.Temperature = 1 }},
		{"inline tables", "repo = {id = \"p\"}\nstorage = {compression_level = 1}\n", func(c *Config) { c.Storage.CompressionLevel = 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := DefaultConfig("p")
			tc.edit(&want)
			got, err := ParseConfig([]byte(tc.text))
			if err != nil {
				t.Fatalf("ParseConfig: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("ParseConfig = %+v, want %+v", got, want)
			}
		})
	}
}

// TestParseConfigUnknownKeys: keys this ctx does not know (a typo, or a
// key of a newer ctx) are ignored and reported, sorted; the known ones
// still apply.
func TestParseConfigUnknownKeys(t *testing.T) {
	tests := []struct {
		name, text string
		unknown    []string
	}{
		{"none", "[repo]\nid = \"p\"\n", nil},
		{"unknown key", "[repo]\nid = \"p\"\nbogus = 1\n", []string{"repo.bogus"}},
		{"unknown keys sorted", "[repo]\nid = \"p\"\nzz = 1\n[storage]\naa = 2\n", []string{"repo.zz", "storage.aa"}},
		{"unknown table", "[repo]\nid = \"p\"\n[extra]\nk = 2\n", []string{"extra", "extra.k"}},
		{"unknown top-level key", "id = \"p\"\n[repo]\nid = \"p\"\n", []string{"id"}},
		{"misspelled key", "[repo]\nid = \"p\"\n[storage]\ncompresion_level = 9\ncompression_level = 5\n", []string{"storage.compresion_level"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Unknown, tc.unknown) {
				t.Errorf("Unknown = %q, want %q", c.Unknown, tc.unknown)
			}
			w := c.UnknownKeysWarning()
			if (w == "") != (len(tc.unknown) == 0) {
				t.Errorf("warning %q with unknown keys %q", w, tc.unknown)
			}
			for _, k := range tc.unknown {
				if !strings.Contains(w, k) {
					t.Errorf("warning %q does not name %s", w, k)
				}
			}
			if c.Repo.ID != "p" {
				t.Errorf("repo.id = %q", c.Repo.ID)
			}
		})
	}
	c, err := ParseConfig([]byte("[repo]\nid = \"p\"\n[storage]\ncompresion_level = 9\ncompression_level = 5\n"))
	if err != nil || c.Storage.CompressionLevel != 5 {
		t.Errorf("the known key beside an unknown one: %d %v", c.Storage.CompressionLevel, err)
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		words []string // the message names these
	}{
		{"empty", "", []string{"repo.id"}},
		{"syntax", "[repo\nid = \"p\"\n", []string{"toml"}},
		{"duplicate key", "[repo]\nid = \"p\"\nid = \"q\"\n", []string{"toml"}},
		{"wrong type", "[repo]\nid = \"p\"\n[storage]\ncompression_level = \"high\"\n", []string{"compression_level"}},
		{"float for int", "[repo]\nid = \"p\"\n[storage]\ncompression_level = 3.5\n", []string{"compression_level"}},
		{"table for value", "[repo]\nid = \"p\"\n[llm.server_url]\nx = 1\n", []string{"server_url"}},
		{"invalid value", "[repo]\nid = \"p\"\n[storage]\ncompression_level = 23\n", []string{"storage.compression_level 23"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.text))
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("ParseConfig = %+v, %v; want ErrConfig", c, err)
			}
			for _, w := range tc.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if !reflect.DeepEqual(c, Config{}) {
				t.Errorf("ParseConfig returned %+v with its error", c)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(c *Config)
		word string // "" means valid
	}{
		{"default", func(c *Config) {}, ""},
		{"empty id", func(c *Config) { c.Repo.ID = "" }, "repo.id"},
		{"id with newline", func(c *Config) { c.Repo.ID = "a\nb" }, "repo.id"},
		{"id with NUL", func(c *Config) { c.Repo.ID = "a\x00b" }, "repo.id"},
		{"compression 0", func(c *Config) { c.Storage.CompressionLevel = 0 }, ""},
		{"compression 22", func(c *Config) { c.Storage.CompressionLevel = 22 }, ""},
		{"compression 23", func(c *Config) { c.Storage.CompressionLevel = 23 }, "storage.compression_level 23"},
		{"compression -1", func(c *Config) { c.Storage.CompressionLevel = -1 }, "storage.compression_level -1"},
		{"no globs", func(c *Config) { c.Ingestion.IgnoreGlobs = nil }, ""},
		{"empty glob", func(c *Config) { c.Ingestion.IgnoreGlobs = []string{""} }, "ingestion.ignore_globs"},
		{"bad glob", func(c *Config) { c.Ingestion.IgnoreGlobs = []string{"a/[b"} }, `"a/[b"`},
		{"bad escape glob", func(c *Config) { c.Ingestion.IgnoreGlobs = []string{"a\\"} }, "ingestion.ignore_globs"},
		{"zero max files", func(c *Config) { c.Ingestion.MaxFilesPerStep = 0 }, "ingestion.max_files_per_step"},
		{"negative max bytes", func(c *Config) { c.Ingestion.MaxBytesPerStep = -1 }, "ingestion.max_bytes_per_step"},
		{"zero max file bytes", func(c *Config) { c.Ingestion.MaxFileBytes = 0 }, "ingestion.max_file_bytes"},
		{"zero budget", func(c *Config) { c.Retrieval.DefaultBudget = 0 }, "retrieval.default_budget"},
		{"depth 0", func(c *Config) { c.Retrieval.DefaultDepth = 0 }, ""},
		{"depth 16", func(c *Config) { c.Retrieval.DefaultDepth = 16 }, ""},
		{"negative depth", func(c *Config) { c.Retrieval.DefaultDepth = -1 }, "retrieval.default_depth -1"},
		{"depth 17", func(c *Config) { c.Retrieval.DefaultDepth = 17 }, "retrieval.default_depth 17"},
		{"https url", func(c *Config) { c.LLM.ServerURL = "https://example.com" }, ""},
		{"empty url", func(c *Config) { c.LLM.ServerURL = "" }, "llm.server_url"},
		{"url without scheme", func(c *Config) { c.LLM.ServerURL = "127.0.0.1:8080" }, "llm.server_url"},
		{"ftp url", func(c *Config) { c.LLM.ServerURL = "ftp://example.com" }, "llm.server_url"},
		{"url without host", func(c *Config) { c.LLM.ServerURL = "http:///path" }, "llm.server_url"},
		{"unparsable url", func(c *Config) { c.LLM.ServerURL = "http://a b\x7f" }, "llm.server_url"},
		{"zero response tokens", func(c *Config) { c.LLM.MaxResponseTokens = 0 }, "llm.max_response_tokens"},
		{"openai api", func(c *Config) { c.LLM.API = "openai" }, ""},
		{"unknown api", func(c *Config) { c.LLM.API = "anthropic" }, "llm.api"},
		{"empty api", func(c *Config) { c.LLM.API = "" }, "llm.api"},
		{"key variable", func(c *Config) { c.LLM.APIKeyEnv = "MY_KEY_2" }, ""},
		{"key variable with a dash", func(c *Config) { c.LLM.APIKeyEnv = "MY-KEY" }, "llm.api_key_env"},
		{"key variable starting with a digit", func(c *Config) { c.LLM.APIKeyEnv = "2KEY" }, "llm.api_key_env"},
		{"a key, not its variable", func(c *Config) { c.LLM.APIKeyEnv = "sk-abc=def" }, "llm.api_key_env"},
		{"temperature 2", func(c *Config) { c.LLM.Temperature = 2 }, ""},
		{"temperature 2.5", func(c *Config) { c.LLM.Temperature = 2.5 }, "llm.temperature"},
		{"negative temperature", func(c *Config) { c.LLM.Temperature = -0.1 }, "llm.temperature"},
		{"zero timeout", func(c *Config) { c.LLM.Timeout = "0" }, "llm.timeout"},
		{"timeout without unit", func(c *Config) { c.LLM.Timeout = "30" }, "llm.timeout"},
		{"retries 10", func(c *Config) { c.LLM.Retries = 10 }, ""},
		{"retries 11", func(c *Config) { c.LLM.Retries = 11 }, "llm.retries"},
		{"negative retries", func(c *Config) { c.LLM.Retries = -1 }, "llm.retries"},
		{"slot 0", func(c *Config) { c.LLM.Slot = 0 }, ""},
		{"slot -2", func(c *Config) { c.LLM.Slot = -2 }, "llm.slot"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig("p")
			tc.edit(&c)
			err := c.Validate()
			if tc.word == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("Validate: %v, want ErrConfig", err)
			}
			if !strings.Contains(err.Error(), tc.word) {
				t.Errorf("error %q does not mention %q", err, tc.word)
			}
			// What Validate rejects, ParseConfig rejects too.
			if _, err := ParseConfig(c.Text()); !errors.Is(err, ErrConfig) {
				t.Errorf("ParseConfig(Text()) of an invalid config: %v, want ErrConfig", err)
			}
		})
	}
}

func TestValidateListsEveryProblem(t *testing.T) {
	c := DefaultConfig("")
	c.Storage.CompressionLevel = 99
	c.LLM.ServerURL = "nope"
	err := c.Validate()
	for _, w := range []string{"repo.id", "storage.compression_level", "llm.server_url"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Validate = %v, want it to mention %s", err, w)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadConfig(filepath.Join(dir, "missing.toml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadConfig of a missing file: %v, want fs.ErrNotExist", err)
	}
	p := filepath.Join(dir, "config.toml")
	want := DefaultConfig("loaded")
	if err := os.WriteFile(p, want.Text(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadConfig(p)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("LoadConfig = %+v, %v; want %+v", got, err, want)
	}
}

func FuzzParseConfig(f *testing.F) {
	def := DefaultConfig("seed")
	f.Add(def.Text())
	f.Add([]byte("[repo]\nid = \"p\"\n"))
	f.Add([]byte("[repo]\nid = \"p\"\n[ingestion]\nignore_globs = []\n"))
	f.Add([]byte("repo = {id = 'p'}\n[llm]\nserver_url = 'https://x'\n"))
	f.Add([]byte("[repo]\nid = \"p\"\nbogus = 1\n"))
	f.Add([]byte("[repo\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("ParseConfig: %v, want ErrConfig", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("ParseConfig accepted a config that does not validate: %v", err)
		}
		// What ParseConfig accepts, Text writes back unchanged.
		text := c.Text()
		back, err := ParseConfig(text)
		if err != nil {
			t.Fatalf("ParseConfig(Text()): %v\n%s", err, text)
		}
		if !bytes.Equal(back.Text(), text) {
			t.Fatalf("Text does not round-trip:\n%s\nbecame\n%s", text, back.Text())
		}
	})
}
