package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/narrative/view"
	"github.com/ctx-dev/ctx/narrative/where"
	"github.com/ctx-dev/ctx/repo"
)

// ViewCmd groups the commands on saved views (node graph design, "View
// Operations").
type ViewCmd struct {
	Create ViewCreateCmd `cmd:"" help:"Save a view: a filter expression and a token budget."`
	List   ViewListCmd   `cmd:"" help:"List the views, the built-in default among them."`
	Render ViewRenderCmd `cmd:"" help:"Compose a view's nodes within its budget, in Markdown (for hooks) or JSON."`
	Update ViewUpdateCmd `cmd:"" help:"Change a view's query, budget, description or format."`
	Delete ViewDeleteCmd `cmd:"" help:"Delete a view (deleting default brings back the built-in one)."`
}

// ViewCreateCmd is `ctx view create`.
type ViewCreateCmd struct {
	Name        string `arg:"" help:"The view's name: 1-64 of a-z 0-9 - _ (upper case is folded)."`
	Query       string `required:"" placeholder:"EXPR" help:"Which nodes: a filter expression as for ctx list --where (docs/QUERY.md)."`
	Budget      int    `placeholder:"N" help:"Token budget of a rendering (default: CTX_DEFAULT_BUDGET, else 50000)."`
	Description string `placeholder:"TEXT" help:"What the view is for (one line)."`
	Format      string `placeholder:"FORMAT" help:"Format rendered unless told otherwise: markdown (default) or json."`
	Force       bool   `help:"Replace a view of the same name."`
}

// Validate checks the flags before the store is locked.
func (c *ViewCreateCmd) Validate() error {
	if err := checkName(c.Name); err != nil {
		return err
	}
	if err := view.CheckBudget(c.Budget); err != nil {
		return err
	}
	if _, err := optionalFormat(c.Format); err != nil {
		return err
	}
	return view.CheckDescription(c.Description)
}

// Run saves the view.
func (c *ViewCreateCmd) Run(app *App, w *repo.Writer) error {
	def, err := defaultBudget(app, "view create")
	if err != nil {
		return err
	}
	q := strings.TrimSpace(c.Query)
	if _, err := parseQuery(app, "view create", "--query", q); err != nil {
		return err
	}
	f, _ := optionalFormat(c.Format)
	v := &view.View{Name: c.Name, Query: q, Budget: c.Budget, Description: c.Description, Format: f}
	if err := w.Views().Create(v, app.Clock.Now(), c.Force); err != nil {
		return err
	}
	app.printf("created view %s\n", v.Name)
	return app.emit(rowOf(v, def))
}

// ViewListCmd is `ctx view list`.
type ViewListCmd struct{}

// Run lists the views by name; files that are not valid views are
// reported on stderr, and the others listed all the same.
func (c *ViewListCmd) Run(app *App, r *repo.Repo) error {
	views, bad, err := r.Views().List()
	if err != nil {
		return err
	}
	for _, e := range bad {
		fmt.Fprintf(app.Stderr, "ctx: warning: %s\n", message(e))
	}
	def, err := defaultBudget(app, "view list")
	if err != nil {
		return err
	}
	rows := make([]viewRow, len(views))
	width, marked := 0, false
	for i, v := range views {
		rows[i] = rowOf(v, def)
		width = max(width, len(v.Name))
		marked = marked || v.Budget == 0
	}
	for _, row := range rows {
		mark := " "
		if row.DefaultBudget {
			mark = "*"
		}
		app.printf("%-*s  %7d%s  %s\n", width, row.Name, row.Budget, mark, row.Query)
		desc := row.Description
		if row.Builtin {
			desc = strings.TrimSpace(desc + " (built in)")
		}
		if desc != "" {
			app.printf("%-*s  %s\n", width+10, "", desc)
		}
	}
	if marked {
		app.printf("* the default budget (CTX_DEFAULT_BUDGET, else %d)\n", view.DefaultBudget)
	}
	return app.emit(rows)
}

// ViewRenderCmd is `ctx view render`.
type ViewRenderCmd struct {
	Name string `arg:"" help:"The view to render (default: the built-in one unless a file replaces it)."`
	renderFlags
}

// Validate checks the flags before the store is opened.
func (c *ViewRenderCmd) Validate() error {
	if err := checkName(c.Name); err != nil {
		return err
	}
	return c.renderFlags.validate()
}

// Run composes the view and prints the rendering.
func (c *ViewRenderCmd) Run(app *App, r *repo.Repo) error {
	v, err := r.Views().Get(c.Name)
	if err != nil {
		return err
	}
	return compose(app, r, v, &c.renderFlags, "view render", "view "+v.Name+": query")
}

// ViewUpdateCmd is `ctx view update`.
type ViewUpdateCmd struct {
	Name        string  `arg:"" help:"The view to change (default gets a file of its own)."`
	Query       *string `placeholder:"EXPR" help:"New filter expression."`
	Budget      *int    `placeholder:"N" help:"New token budget; 0 for the default budget."`
	Description *string `placeholder:"TEXT" help:"New description; \"\" removes it."`
	Format      *string `placeholder:"FORMAT" help:"New format: markdown or json; \"\" for the default (markdown)."`
}

// Validate checks the flags before the store is locked.
func (c *ViewUpdateCmd) Validate() error {
	if err := checkName(c.Name); err != nil {
		return err
	}
	if c.Query == nil && c.Budget == nil && c.Description == nil && c.Format == nil {
		return fmt.Errorf("nothing to update: give --query, --budget, --description or --format")
	}
	if c.Budget != nil {
		if err := view.CheckBudget(*c.Budget); err != nil {
			return err
		}
	}
	if c.Format != nil {
		if _, err := optionalFormat(*c.Format); err != nil {
			return err
		}
	}
	if c.Description != nil {
		return view.CheckDescription(*c.Description)
	}
	return nil
}

// Run changes the view.
func (c *ViewUpdateCmd) Run(app *App, w *repo.Writer) error {
	def, err := defaultBudget(app, "view update")
	if err != nil {
		return err
	}
	ch := view.Change{Budget: c.Budget, Description: c.Description}
	if c.Query != nil {
		q := strings.TrimSpace(*c.Query)
		if _, err := parseQuery(app, "view update", "--query", q); err != nil {
			return err
		}
		ch.Query = &q
	}
	if c.Format != nil {
		f, _ := optionalFormat(*c.Format)
		ch.Format = &f
	}
	v, err := w.Views().Update(c.Name, ch, app.Clock.Now())
	if err != nil {
		return err
	}
	app.printf("updated view %s\n", v.Name)
	return app.emit(rowOf(v, def))
}

// ViewDeleteCmd is `ctx view delete`.
type ViewDeleteCmd struct {
	Name string `arg:"" help:"The view to delete."`
}

// Run deletes the view's file.
func (c *ViewDeleteCmd) Run(app *App, w *repo.Writer) error {
	name, err := view.ParseName(c.Name)
	if err != nil {
		return err
	}
	if err := w.Views().Delete(name); err != nil {
		return err
	}
	app.printf("deleted view %s\n", name)
	if name == view.DefaultName {
		app.printf("the built-in default view applies again\n")
	}
	return app.emit(map[string]any{"deleted": name})
}

// ComposeCmd is `ctx compose`: a rendering without a saved view.
type ComposeCmd struct {
	Query *string `placeholder:"EXPR" help:"Which nodes: a filter expression (docs/QUERY.md); without it, the default view."`
	renderFlags
}

// Validate checks the flags before the store is opened.
func (c *ComposeCmd) Validate() error { return c.renderFlags.validate() }

// Run composes the nodes the query selects and prints the rendering.
func (c *ComposeCmd) Run(app *App, r *repo.Repo) error {
	if c.Query == nil {
		v, err := r.Views().Get(view.DefaultName)
		if err != nil {
			return err
		}
		return compose(app, r, v, &c.renderFlags, "compose", "view default: query")
	}
	return compose(app, r, &view.View{Query: *c.Query}, &c.renderFlags, "compose", "--query")
}

// renderFlags are the flags of view render and compose.
type renderFlags struct {
	Budget            *int   `placeholder:"N" help:"Token budget of the whole output (default: the view's, else CTX_DEFAULT_BUDGET, else 50000)."`
	Format            string `placeholder:"FORMAT" help:"markdown (for hooks) or json (for scripts; also with --json); default: the view's, else markdown."`
	IncludeSuperseded bool   `name:"include-superseded" help:"Also superseded nodes."`
	IncludeDeleted    bool   `name:"include-deleted" help:"Also deleted nodes."`
}

func (f *renderFlags) validate() error {
	if f.Budget != nil && (*f.Budget < 1 || *f.Budget > view.MaxBudget) {
		return fmt.Errorf("--budget %d: give a number of tokens from 1 to %d", *f.Budget, view.MaxBudget)
	}
	_, err := optionalFormat(f.Format)
	return err
}

// compose renders the view v: its query (labelled for errors), its
// budget and format unless the flags override them.
func compose(app *App, r *repo.Repo, v *view.View, f *renderFlags, cmd, label string) error {
	format, _ := optionalFormat(f.Format)
	switch {
	case app.Globals.JSON && format == view.Markdown:
		return &usageError{err: errors.New("--json prints JSON: give --format json or leave --format out"), cmd: cmd}
	case format != 0:
	case app.Globals.JSON:
		format = view.JSON
	default:
		format = v.Format
	}
	budget := v.Budget
	if f.Budget != nil {
		budget = *f.Budget
	}
	if budget == 0 {
		var err error
		if budget, err = defaultBudget(app, cmd); err != nil {
			return err
		}
	}
	now := app.Clock.Now()
	expr, err := parseQuery(app, cmd, label, v.Query)
	if err != nil {
		return err
	}
	cat, err := loadCatalog(app, r)
	if err != nil {
		return err
	}
	if err := resolveWhere(app, expr, cat); err != nil {
		return relabel(err, label)
	}
	wg, err := newWhereGraph(app, r, cat, expr)
	if err != nil {
		return err
	}
	defer wg.Close()
	nodes := view.Select(cat, expr, wg, view.SelectOptions{IncludeSuperseded: f.IncludeSuperseded, IncludeDeleted: f.IncludeDeleted})
	var edges view.Edges
	if len(nodes) > 0 {
		// The edges between narrative nodes alone: the code's would cost
		// a hook far more than they could add here.
		g, err := r.Graph(app.Ctx, repo.GraphOptions{Catalog: cat, NoCode: true})
		if err != nil {
			return err
		}
		edges = g
	}
	res, err := view.Render(cat, nodes, edges, view.RenderOptions{Budget: budget, Format: format, Now: now, View: v.Name})
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(app.Stdout, res.Text)
	return err
}

// defaultBudget is the budget of a rendering that neither a flag nor its
// view gives one: CTX_DEFAULT_BUDGET, else view.DefaultBudget (hooks
// design §10).
func defaultBudget(app *App, cmd string) (int, error) {
	s := app.Getenv("CTX_DEFAULT_BUDGET")
	if s == "" {
		return view.DefaultBudget, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > view.MaxBudget {
		return 0, &usageError{err: fmt.Errorf("CTX_DEFAULT_BUDGET=%q: want a whole number of tokens from 1 to %d", s, view.MaxBudget), cmd: cmd}
	}
	return n, nil
}

// checkName checks a view name given as an argument; a missing one is
// left for kong to report as missing.
func checkName(name string) error {
	if name == "" {
		return nil
	}
	_, err := view.ParseName(name)
	return err
}

// optionalFormat reads a --format value; "" is none.
func optionalFormat(s string) (view.Format, error) {
	if s == "" {
		return 0, nil
	}
	return view.ParseFormat(s)
}

// parseQuery parses a view's filter expression as parseWhere does, with
// its errors labelled by where the expression came from ("--query", or
// the view whose query it is).
func parseQuery(app *App, cmd, label, q string) (*where.Expr, error) {
	e, err := parseWhere(app, cmd, q)
	return e, relabel(err, label)
}

// relabel names the source of an expression in a --where error of
// where.go, keeping its caret and its code.
func relabel(err error, label string) error {
	var we *whereError
	if !errors.As(err, &we) {
		return err
	}
	qe := &queryError{label: label, err: we}
	var ue *usageError
	if errors.As(err, &ue) {
		return &usageError{err: qe, cmd: ue.cmd}
	}
	return qe
}

// queryError is a whereError said of another source than --where:
//
//	--query: column 15: expected a value after "tag:"
type queryError struct {
	label string
	err   *whereError
}

func (e *queryError) Error() string {
	return e.label + strings.TrimPrefix(e.err.Error(), "--where")
}

func (e *queryError) Unwrap() error { return e.err }

// viewRow is a view as --json prints it.
type viewRow struct {
	Name          string    `json:"name"`
	Query         string    `json:"query"`
	Budget        int       `json:"budget"`         // the budget a rendering gets
	DefaultBudget bool      `json:"default_budget"` // the view has none of its own
	Description   string    `json:"description,omitempty"`
	Format        string    `json:"format,omitempty"`
	Created       time.Time `json:"created,omitzero"`
	Updated       time.Time `json:"updated,omitzero"`
	Builtin       bool      `json:"builtin"`
	File          string    `json:"file,omitempty"` // relative to the project directory
}

func rowOf(v *view.View, def int) viewRow {
	row := viewRow{Name: v.Name, Query: v.Query, Budget: v.Budget, Description: v.Description, Format: v.Format.String(),
		Created: v.Created, Updated: v.Updated, Builtin: v.Builtin}
	if row.Budget == 0 {
		row.Budget, row.DefaultBudget = def, true
	}
	if !v.Builtin {
		row.File = ".ctx/views/" + v.Name + view.Ext
	}
	return row
}
