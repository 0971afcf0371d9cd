package view

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func names(views []*View) string {
	out := make([]string, len(views))
	for i, v := range views {
		out[i] = v.Name
		if v.Builtin {
			out[i] += "*"
		}
	}
	return strings.Join(out, " ")
}

func TestStore(t *testing.T) {
	s := &Store{Dir: filepath.Join(t.TempDir(), "views")} // missing: no view but the default
	later := now.Add(time.Hour)

	views, bad, err := s.List()
	if err != nil || len(bad) != 0 || names(views) != "default*" {
		t.Fatalf("List of a missing directory: %s %v %v", names(views), bad, err)
	}
	if v, err := s.Get("DEFAULT"); err != nil || !reflect.DeepEqual(v, Default()) {
		t.Fatalf("Get(default) = %+v, %v", v, err)
	}
	if _, err := s.Get("notes"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(notes): %v", err)
	}

	// Create, and refuse to create again without replace.
	notes := &View{Name: "Notes", Query: "type:note", Budget: 1000, Description: "Notes"}
	if err := s.Create(notes, now, false); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get("notes")
	want := &View{Name: "notes", Query: "type:note", Budget: 1000, Description: "Notes", Created: now, Updated: now}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Get(notes) = %+v, %v", got, err)
	}
	if err := s.Create(&View{Name: "notes", Query: "type:fact"}, later, false); !errors.Is(err, ErrExists) {
		t.Fatalf("Create again: %v", err)
	}
	if err := s.Create(&View{Name: "default", Query: "type:fact"}, later, false); !errors.Is(err, ErrExists) {
		t.Fatalf("Create default: %v", err)
	}
	if err := s.Create(&View{Name: "notes", Query: "type:fact"}, later, true); err != nil {
		t.Fatalf("Create with replace: %v", err)
	}
	if got, _ := s.Get("notes"); got.Query != "type:fact" || got.Budget != 0 || !got.Created.Equal(later) {
		t.Fatalf("replaced view: %+v", got)
	}
	for _, v := range []*View{{Name: "a.b", Query: "type:fact"}, {Name: "x", Query: "type:frob"}, {Name: "x", Query: "type:fact", Budget: -1}} {
		if err := s.Create(v, now, false); err == nil {
			t.Errorf("Create(%+v) succeeded", v)
		}
	}
	if _, err := os.Stat(s.Path("x")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an invalid view was written: %v", err)
	}

	// Update: fields left nil stay; the default view gets a file.
	budget, desc := 2000, ""
	v, err := s.Update("notes", Change{Budget: &budget, Description: &desc}, later.Add(time.Hour))
	if err != nil || v.Budget != 2000 || v.Query != "type:fact" || v.Description != "" || !v.Created.Equal(later) || !v.Updated.Equal(later.Add(time.Hour)) {
		t.Fatalf("Update = %+v, %v", v, err)
	}
	bad1 := "type:"
	if _, err := s.Update("notes", Change{Query: &bad1}, later); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Update with a bad query: %v", err)
	}
	if got, _ := s.Get("notes"); got.Query != "type:fact" {
		t.Fatalf("a failed update changed the view: %+v", got)
	}
	if _, err := s.Update("missing", Change{Budget: &budget}, later); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Update(missing): %v", err)
	}
	big := 80000
	d, err := s.Update("default", Change{Budget: &big}, later)
	if err != nil || d.Builtin || d.Query != DefaultQuery || d.Budget != big || !d.Created.Equal(later) {
		t.Fatalf("Update(default) = %+v, %v", d, err)
	}
	if views, _, _ := s.List(); names(views) != "default notes" {
		t.Fatalf("List = %s", names(views))
	}

	// Files that are not views are ignored or reported; a bad view file
	// does not hide the others.
	for name, data := range map[string]string{
		"README.md":            "views",
		".notes.toml.123.tmp":  "half",
		"broken.toml":          "version = 1\n",
		"Upper.toml":           "version = 1\nquery = \"type:fact\"\n",
		"bad name.toml":        "version = 1\nquery = \"type:fact\"\n",
		"ok.toml":              "version = 1\nquery = \"type:fact\"\n",
		".hidden-looking.toml": "x",
	} {
		if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(s.Dir, "dir.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	views, bad, err = s.List()
	if err != nil || names(views) != "default notes ok" || len(bad) != 4 {
		t.Fatalf("List = %s, %v, %v", names(views), bad, err)
	}
	for _, e := range bad {
		if !errors.Is(e, ErrInvalidFile) {
			t.Errorf("problem %v is not ErrInvalidFile", e)
		}
	}
	if _, err := s.Get("broken"); !errors.Is(err, ErrInvalidFile) || !strings.Contains(err.Error(), "broken.toml: no query") {
		t.Fatalf("Get(broken): %v", err)
	}
	if err := s.Create(&View{Name: "broken", Query: "type:fact"}, now, false); !errors.Is(err, ErrExists) {
		t.Fatalf("Create over a damaged file: %v", err)
	}
	if _, err := s.Get("dir"); !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("Get(dir): %v", err)
	}

	// Delete: a file goes; the default view's file goes and the built-in
	// one is back; the built-in one cannot go.
	if err := s.Delete("notes"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("notes"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if err := s.Delete("notes"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete again: %v", err)
	}
	if err := s.Delete("default"); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get("default"); !v.Builtin {
		t.Fatalf("default after Delete: %+v", v)
	}
	if err := s.Delete("default"); !errors.Is(err, ErrBuiltin) {
		t.Fatalf("Delete of the built-in view: %v", err)
	}
	if err := s.Delete("../x"); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("Delete(../x): %v", err)
	}
	// No temporary file is left behind by the writes.
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") && e.Name() != ".notes.toml.123.tmp" {
			t.Errorf("left %s", e.Name())
		}
	}
}
