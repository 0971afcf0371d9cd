package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

// LogCmd is `ctx log` (also `ctx debug history`).
type LogCmd struct {
	Limit   int      `short:"n" name:"limit" placeholder:"N" help:"Show at most N commits."`
	Oneline bool     `help:"One line per commit: short id and subject."`
	Revs    []string `arg:"" optional:"" name:"rev" help:"Start from these revisions (default: every head of the ref HEAD names). A node id instead shows that node's recorded versions."`
}

type logRow struct {
	ID   object.ID `json:"id"`
	Time string    `json:"time"`
	*object.Commit
	Work *object.WorkCommit `json:"work_commit,omitempty"`
}

// Validate checks the flags before the store is opened.
func (c *LogCmd) Validate() error {
	if c.Limit < 0 {
		return fmt.Errorf("--limit must not be negative")
	}
	return nil
}

// Run prints the history, newest first.
func (c *LogCmd) Run(app *App, r *repo.Repo) error {
	var starts []object.ID
	if len(c.Revs) == 1 && !isRef(r, c.Revs[0]) {
		// A node id (or prefix) shows the node's versions. A full id of a
		// node whose file is gone is looked up in history.
		if cat, err := r.Narrative().Load(); err == nil {
			if n, err := cat.Resolve(c.Revs[0]); err == nil {
				return c.nodeLog(app, r, n.ID, n.Path)
			} else if id, perr := narrative.ParseID(c.Revs[0]); perr == nil && errors.Is(err, narrative.ErrNotFound) {
				return c.nodeLog(app, r, id, "")
			}
		}
	}
	if len(c.Revs) == 0 {
		heads, err := r.Heads(refs.HEAD)
		if err != nil {
			return err
		}
		starts = heads
	}
	for _, rev := range c.Revs {
		id, err := r.Resolve(rev)
		if err != nil {
			return err
		}
		starts = append(starts, id)
	}
	entries, err := r.Log(app.Ctx, starts, c.Limit)
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		rows := make([]logRow, len(entries))
		for i, e := range entries {
			rows[i] = logRow{ID: e.ID, Time: time.Unix(e.Time(), 0).UTC().Format(time.RFC3339), Commit: e.Commit, Work: e.Work}
		}
		return app.emit(rows)
	}
	out := bufio.NewWriter(app.Stdout)
	for i, e := range entries {
		msg := ""
		if e.Commit != nil {
			msg = e.Commit.Message
		} else {
			msg = fmt.Sprintf("[%s] session %s", e.Work.StepKind, e.Work.SessionID)
		}
		if c.Oneline {
			subject, _, _ := strings.Cut(msg, "\n")
			fmt.Fprintf(out, "%s %s\n", e.ID.Short(), subject)
			continue
		}
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "commit %s\n", e.ID)
		if ps := e.Parents(); len(ps) > 1 {
			short := make([]string, len(ps))
			for j, p := range ps {
				short[j] = p.Short()
			}
			fmt.Fprintf(out, "Merge:  %s\n", strings.Join(short, " "))
		}
		if e.Commit != nil && e.Commit.Author != "" {
			fmt.Fprintf(out, "Author: %s\n", e.Commit.Author)
		}
		fmt.Fprintf(out, "Date:   %s\n\n", time.Unix(e.Time(), 0).UTC().Format("2006-01-02 15:04:05 -0700"))
		for _, line := range strings.Split(msg, "\n") {
			fmt.Fprintf(out, "    %s\n", line)
		}
		if e.Commit != nil && len(e.Commit.NarrativeRefs) > 0 {
			fmt.Fprintln(out)
			for _, nr := range e.Commit.NarrativeRefs {
				if nr.Deleted {
					fmt.Fprintf(out, "  narrative/%s (removed)\n", nr.Path)
				} else {
					fmt.Fprintf(out, "  narrative/%s\n", nr.Path)
				}
			}
		}
		if e.Commit != nil && len(e.Commit.EdgeBatches) > 0 {
			fmt.Fprintln(out)
			for _, id := range e.Commit.EdgeBatches {
				printBatch(out, r, id)
			}
		}
	}
	return out.Flush()
}

// isRef reports whether s names an existing ref (HEAD, STAGE, main, …),
// which goes before a node id of the same spelling.
func isRef(r *repo.Repo, s string) bool {
	n, err := refs.ParseName(s)
	if err != nil {
		return false
	}
	_, err = r.Refs.Heads(n)
	return err == nil
}

// nodeLog prints the versions of a node that commits recorded, newest
// first. path is the node's file, or "" when it is gone.
func (c *LogCmd) nodeLog(app *App, r *repo.Repo, id narrative.ID, path string) error {
	heads, err := r.Heads(refs.HEAD)
	if err != nil {
		return err
	}
	versions, err := r.NodeHistory(app.Ctx, heads, id, path)
	if err != nil {
		return err
	}
	if len(versions) == 0 && path == "" {
		return fmt.Errorf("%w: %s is in no file and no commit", narrative.ErrNotFound, id)
	}
	if c.Limit > 0 && len(versions) > c.Limit {
		versions = versions[:c.Limit]
	}
	if app.Globals.JSON {
		if versions == nil {
			versions = []repo.NodeVersion{}
		}
		return app.emit(versions)
	}
	out := bufio.NewWriter(app.Stdout)
	where := ".ctx/narrative/" + path
	if path == "" {
		where = "no longer in the narrative"
	}
	fmt.Fprintf(out, "node %s, %s: %s recorded\n", id, where, plural(len(versions), "version"))
	for _, v := range versions {
		subject, _, _ := strings.Cut(v.Message, "\n")
		state := "active"
		switch {
		case v.Node.Deleted:
			state = "deleted"
		case v.Node.SupersededBy != "":
			state = "superseded by " + string(v.Node.SupersededBy)
		}
		fmt.Fprintf(out, "\ncommit %s  %s  %s\n", v.Commit.Short(), time.Unix(v.Time, 0).UTC().Format("2006-01-02 15:04:05"), subject)
		tags := ""
		if len(v.Node.Tags) > 0 {
			tags = " [" + strings.Join(v.Node.Tags, " ") + "]"
		}
		fmt.Fprintf(out, "  %s (%s, %s)%s\n", v.Node.Title, v.Node.Type, state, tags)
	}
	fmt.Fprintf(out, "\n(ctx show %s@COMMIT shows a version in full)\n", id)
	return out.Flush()
}

// logBatchLines is how many edges of a batch the log shows.
const logBatchLines = 10

// printBatch writes an edge batch's edges (+) and tombstones (-), the
// first few of each.
func printBatch(out io.Writer, r *repo.Repo, id object.ID) {
	b, err := r.ReadEdgeBatch(id)
	if err != nil {
		fmt.Fprintf(out, "  edge batch %s: %s\n", id.Short(), message(err))
		return
	}
	fmt.Fprintf(out, "  edge batch %s: %d edge(s), %d removed\n", id.Short(), len(b.Edges), len(b.Tombstones))
	for i, e := range b.Edges {
		if i == logBatchLines {
			fmt.Fprintf(out, "    … %d more\n", len(b.Edges)-i)
			break
		}
		fmt.Fprintf(out, "    + %s %s %s\n", e.From.Name(), e.Label, e.To.Name())
	}
	for i, t := range b.Tombstones {
		if i == logBatchLines {
			fmt.Fprintf(out, "    … %d more removed\n", len(b.Tombstones)-i)
			break
		}
		fmt.Fprintf(out, "    - %s %s %s\n", t.From.Name(), t.Label, t.To.Name())
	}
}
