package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// HashObjectCmd is `ctx hash-object`.
type HashObjectCmd struct {
	Write      bool     `short:"w" help:"Store the objects (all made durable together before ctx exits)."`
	Type       string   `short:"t" default:"blob" enum:"blob,typed" help:"Object kind: blob (raw bytes) or typed (a CBOR typed payload, checked against the schema)."`
	Input      string   `name:"input" default:"cbor" enum:"cbor,json" help:"For -t typed: the input is the CBOR payload (cbor) or the JSON form that cat-object -p prints (json)."`
	Stdin      bool     `name:"stdin" help:"Read the object from standard input."`
	StdinPaths bool     `name:"stdin-paths" help:"Read file paths from standard input, one per line (NUL-separated with -z)."`
	Zero       bool     `short:"z" help:"With --stdin-paths, paths are separated by NUL bytes."`
	Files      []string `arg:"" optional:"" name:"file" help:"Files to hash."`
}

// Validate checks the flags before anything is read.
func (c *HashObjectCmd) Validate() error {
	sources := 0
	for _, b := range []bool{c.Stdin, c.StdinPaths, len(c.Files) > 0} {
		if b {
			sources++
		}
	}
	if sources != 1 {
		return fmt.Errorf("give exactly one of --stdin, --stdin-paths or FILE...")
	}
	if c.Zero && !c.StdinPaths {
		return fmt.Errorf("-z needs --stdin-paths")
	}
	return nil
}

// Run hashes the input and prints one id per line.
func (c *HashObjectCmd) Run(app *App) error {
	paths := c.Files
	if c.StdinPaths {
		var err error
		if paths, err = readPaths(app.Stdin, c.Zero); err != nil {
			return err
		}
	}
	var r *repo.Repo
	if c.Write {
		var err error
		if r, err = app.openRepo(); err != nil {
			return err
		}
	}
	var ids []object.ID
	var err error
	if c.Type == "typed" {
		ids, err = c.hashTyped(app, r, paths)
	} else {
		ids, err = c.hashBlobs(app, r, paths)
	}
	if err != nil {
		return err
	}
	type row struct {
		Path string    `json:"path,omitempty"`
		ID   object.ID `json:"id"`
	}
	rows := make([]row, len(ids))
	out := bufio.NewWriter(app.Stdout)
	for i, id := range ids {
		if !c.Stdin {
			rows[i].Path = paths[i]
		}
		rows[i].ID = id
		if !app.Globals.JSON {
			fmt.Fprintln(out, id)
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	return app.emit(rows)
}

func (c *HashObjectCmd) hashBlobs(app *App, r *repo.Repo, paths []string) ([]object.ID, error) {
	if c.Stdin {
		data, err := readInput(app.Stdin)
		if err != nil {
			return nil, err
		}
		return c.store(r, [][]byte{data}, object.KindBlob)
	}
	if r == nil {
		return object.PutFiles(app.Ctx, nil, paths, 0)
	}
	app.interruptible()
	b := r.Objects.NewBatch()
	ids, err := object.PutFiles(app.Ctx, b, paths, 0)
	if err != nil {
		b.Abort()
		return nil, err
	}
	return ids, b.Commit()
}

func (c *HashObjectCmd) hashTyped(app *App, r *repo.Repo, paths []string) ([]object.ID, error) {
	types, err := repo.Registry()
	if err != nil {
		return nil, err
	}
	var inputs [][]byte
	if c.Stdin {
		data, err := readInput(app.Stdin)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, data)
	}
	for _, p := range paths {
		data, err := regfile.Read(p, object.MaxInMemory)
		if errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, regfile.ErrTooLarge) {
			return nil, fmt.Errorf("%w: %w", object.ErrInvalidArgument, err)
		}
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, data)
	}
	for i, data := range inputs {
		if inputs[i], err = types.Parse(data, c.Input == "json"); err != nil {
			return nil, err
		}
	}
	return c.store(r, inputs, object.KindTyped)
}

// store computes the ids of payloads and, with a store, writes them in one
// batch.
func (c *HashObjectCmd) store(r *repo.Repo, payloads [][]byte, kind object.Kind) ([]object.ID, error) {
	ids := make([]object.ID, len(payloads))
	if r == nil {
		for i, p := range payloads {
			ids[i] = object.Sum(kind, p)
		}
		return ids, nil
	}
	b := r.Objects.NewBatch()
	for i, p := range payloads {
		var err error
		if ids[i], err = b.Put(kind, p); err != nil {
			b.Abort()
			return nil, err
		}
	}
	return ids, b.Commit()
}

// readInput reads standard input, up to the largest object held in memory.
func readInput(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, object.MaxInMemory+1))
	if err != nil {
		return nil, err
	}
	if len(data) > object.MaxInMemory {
		return nil, fmt.Errorf("%w: standard input is larger than %d bytes; store the file by its path instead", object.ErrInvalidArgument, object.MaxInMemory)
	}
	return data, nil
}

// readPaths reads newline- or NUL-separated paths, skipping empty ones.
func readPaths(r io.Reader, nul bool) ([]string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	sep := []byte{'\n'}
	if nul {
		sep = []byte{0}
	}
	var paths []string
	for _, p := range bytes.Split(data, sep) {
		if !nul {
			p = bytes.TrimSuffix(p, []byte{'\r'})
		}
		if len(p) > 0 {
			paths = append(paths, string(p))
		}
	}
	return paths, nil
}
