package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// CatObjectCmd is `ctx cat-object`.
type CatObjectCmd struct {
	Type   bool   `short:"t" xor:"mode" help:"Print the object's type: blob, or the type name of a typed object (commit, tree, …)."`
	Size   bool   `short:"s" xor:"mode" help:"Print the payload size in bytes."`
	Pretty bool   `short:"p" xor:"mode" help:"Print the content: a blob's bytes, a typed object as JSON (the default)."`
	Exists bool   `short:"e" xor:"mode" help:"Print nothing; exit 0 if the object exists and is intact."`
	Raw    bool   `name:"raw" xor:"mode" help:"Print the payload bytes (a typed object's CBOR)."`
	Object string `arg:"" help:"Object id, id prefix or revision."`
}

// Run prints the object.
func (c *CatObjectCmd) Run(app *App, r *repo.Repo) error {
	id, err := r.Resolve(c.Object)
	if err != nil {
		if c.Exists && errors.Is(err, object.ErrNotFound) {
			return &silentError{err}
		}
		return err
	}
	content := !c.Type && !c.Size && !c.Exists // -p, --raw or no flag
	if content && !app.Globals.JSON {
		return c.stream(app, r, id)
	}
	if content {
		// One verified read gives the kind and the payload.
		kind, payload, err := r.Objects.Get(id)
		if err != nil {
			return err
		}
		out, err := c.describe(id, kind, payload)
		if err != nil {
			return err
		}
		return app.emit(out)
	}
	info, _, err := r.Objects.Verify(id)
	if err != nil {
		return err
	}
	typ := info.Type
	if info.Kind == object.KindBlob {
		typ = "blob"
	}
	if c.Exists {
		return app.emit(map[string]any{"id": id, "exists": true})
	}
	if c.Type {
		app.printf("%s\n", typ)
	} else {
		app.printf("%d\n", info.Size)
	}
	return app.emit(map[string]any{"id": id, "kind": info.Kind.String(), "type": typ, "size": info.Size})
}

// describe is the --json form of an object with its content.
func (c *CatObjectCmd) describe(id object.ID, kind object.Kind, payload []byte) (map[string]any, error) {
	out := map[string]any{"id": id, "kind": kind.String(), "type": "blob", "size": len(payload)}
	switch {
	case kind == object.KindTyped && !c.Raw:
		out["type"], _ = object.TypeOf(payload)
		js, err := object.ToJSON(payload, false)
		if err != nil {
			return nil, &object.Error{Op: "decode", ID: id, Path: object.RelPath(id), Err: err}
		}
		out["value"] = json.RawMessage(js)
	case kind == object.KindTyped:
		out["type"], _ = object.TypeOf(payload)
		out["content_base64"] = base64.StdEncoding.EncodeToString(payload)
	case utf8.Valid(payload):
		out["content"] = string(payload)
	default:
		out["content_base64"] = base64.StdEncoding.EncodeToString(payload)
	}
	return out, nil
}

// stream writes a blob's bytes or a typed object's JSON or CBOR to stdout,
// verified before anything is written.
func (c *CatObjectCmd) stream(app *App, r *repo.Repo, id object.ID) error {
	rd, err := r.Objects.Open(id)
	if err != nil {
		return err
	}
	defer rd.Close()
	if rd.Kind() == object.KindTyped && !c.Raw {
		payload, err := io.ReadAll(rd)
		if err != nil {
			return err
		}
		js, err := object.ToJSON(payload, true)
		if err != nil {
			return &object.Error{Op: "decode", ID: id, Path: object.RelPath(id), Err: err}
		}
		_, err = fmt.Fprintf(app.Stdout, "%s\n", js)
		return err
	}
	_, err = io.Copy(app.Stdout, rd)
	return err
}
