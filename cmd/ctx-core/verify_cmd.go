package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/repo"
)

// VerifyCmd is `ctx verify` (also `ctx debug verify`).
type VerifyCmd struct{}

// Run checks the store and prints a report on stdout (also on failure:
// the report is the command's product); each problem is printed on stderr
// with its code, and the exit status is the first problem's.
func (c *VerifyCmd) Run(app *App, r *repo.Repo) error {
	rep, err := r.Verify(app.Ctx, repo.VerifyOptions{})
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		type problem struct {
			Code    string `json:"code"`
			Name    string `json:"name"`
			Path    string `json:"path,omitempty"`
			Message string `json:"message"`
		}
		type ref struct {
			Name  string   `json:"name"`
			Heads []string `json:"heads"`
		}
		out := struct {
			*repo.Report
			OK       bool      `json:"ok"`
			Refs     []ref     `json:"refs"`
			Problems []problem `json:"problems"`
		}{Report: rep, OK: rep.OK(), Refs: []ref{}, Problems: []problem{}}
		if out.Warnings == nil {
			out.Warnings = []string{}
		}
		for _, rf := range rep.Refs {
			hs := make([]string, len(rf.Heads))
			for i, h := range rf.Heads {
				hs[i] = h.String()
			}
			out.Refs = append(out.Refs, ref{rf.Name.String(), hs})
		}
		for _, p := range rep.Problems {
			cd := classify(p.Err)
			out.Problems = append(out.Problems, problem{cd.ID, cd.Name, p.Path, message(p.Err)})
		}
		if err := app.emit(out); err != nil {
			return err
		}
	} else {
		var types []string
		for t, n := range rep.Typed {
			types = append(types, fmt.Sprintf("%d %s", n, t))
		}
		sort.Strings(types)
		app.printf("checked %s: %s, %d typed", plural(rep.Objects, "object"), plural(rep.Blobs, "blob"), rep.Objects-rep.Blobs)
		if len(types) > 0 {
			app.printf(" (%s)", strings.Join(types, ", "))
		}
		app.printf("; %s of content in %s on disk\n", humanBytes(int64(rep.PayloadBytes)), humanBytes(rep.StoredBytes))
		for _, rf := range rep.Refs {
			hs := make([]string, len(rf.Heads))
			for i, h := range rf.Heads {
				hs[i] = h.Short()
			}
			app.printf("%s -> %s\n", rf.Name, strings.Join(hs, ", "))
		}
		for _, w := range rep.Warnings {
			app.printf("warning: %s\n", w)
		}
		if rep.OK() {
			app.printf("ok: no problems found\n")
		} else {
			app.printf("%d problem(s) found\n", len(rep.Problems))
		}
	}
	if rep.OK() {
		return nil
	}
	if app.Globals.JSON {
		return rep.Problems[0]
	}
	for _, p := range rep.Problems {
		cd := classify(p.Err)
		fmt.Fprintf(app.Stderr, "ctx: %s %s: %s\n", cd.ID, cd.Name, message(p))
	}
	fmt.Fprintf(app.Stderr, "hint: %s\n", classify(rep.Problems[0].Err).Hint)
	return &silentError{rep.Problems[0]}
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
