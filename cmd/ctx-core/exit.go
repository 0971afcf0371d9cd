package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/exchange"
	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/lockfile"
	"github.com/ctx-dev/ctx/llm"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/view"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/pack"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
	"github.com/ctx-dev/ctx/staging"
	"github.com/ctx-dev/ctx/workset"
)

// code is one row of the error-code table of docs/CLI.md.
type code struct {
	ID   string // "E002"; "" for an error without a code
	Name string
	Exit int
	Hint string
}

var (
	codeNone            = code{"", "Error", 1, ""}
	codeObjectNotFound  = code{"E001", "ObjectNotFound", 21, "the object is not in this store: check the id with `ctx rev-parse`, or `git pull` if a teammate created it"}
	codeHashMismatch    = code{"E002", "HashMismatch", 22, "the object's file is damaged: restore it from git (`git checkout -- .ctx/objects`) or a backup, then run `ctx verify`"}
	codeInvalidEnvelope = code{"E003", "InvalidEnvelope", 23, "the object was not written by ctx: restore it from git or a backup, then run `ctx verify`"}
	codeDecode          = code{"E004", "DeserializationFailed", 24, "run `ctx verify`; if the object was written by a newer ctx, upgrade ctx"}
	codeRefNotFound     = code{"E005", "RefNotFound", 25, "list the refs with `ctx show-ref`"}
	codeLockConflict    = code{"E006", "LockConflict", 26, "another ctx process is writing to this store: wait for it, or raise --lock-timeout"}
	codeStaging         = code{"E008", "StagingConflict", 28, "run `ctx stage recover`; `ctx stage list` shows the sessions"}
	codeCommitOrphan    = code{"E009", "CommitOrphan", 29, "a commit's parent is missing: `git pull` the rest of the store, or restore .ctx/objects from a backup"}
	codeBudgetExceeded  = code{"E010", "BudgetExceeded", 30, "store less per step (name fewer paths), pass --force, raise the budget in .ctx/config.toml [ingestion], or import the whole project with `ctx add code`"}
	codePackBudget      = code{"E010", "BudgetExceeded", 30, "raise --budget (or [retrieval] default_budget in .ctx/config.toml), or lower --reserve"}
	codeViewBudget      = code{"E010", "BudgetExceeded", 30, "raise --budget (or the view's: ctx view update NAME --budget N, or CTX_DEFAULT_BUDGET)"}
	codeStoreNotFound   = code{"E011", "StoreNotFound", 31, "run `ctx init` in the project's root directory, or pass --dir"}
	codeStoreExists     = code{"E012", "StoreExists", 32, "`ctx init --force` replaces the store, losing everything in it"}
	codeRefConflict     = code{"E013", "RefConflict", 33, "the ref moved since it was read: read it again with `ctx rev-parse` and retry"}
	codeRefDiverged     = code{"E014", "RefDiverged", 34, "a git merge left several heads: run `ctx reconcile` to merge them into one commit"}
	codeInvalidArgument = code{"E015", "InvalidArgument", 2, "see `ctx --help`"}
	codeConfigInvalid   = code{"E016", "ConfigInvalid", 36, "fix .ctx/config.toml; docs/FORMAT.md lists every key"}
	codeAmbiguousID     = code{"E017", "AmbiguousID", 37, "give more characters of the id; the error lists the candidates"}
	codeRefCorrupt      = code{"E018", "RefCorrupt", 38, "restore the file from git (`git checkout -- .ctx/refs .ctx/HEAD`); HEAD must hold `ref: refs/main`; a bad head goes with `ctx update-ref -d REF ID`"}
	codeNodeNotFound    = code{"E019", "NodeNotFound", 39, "list the nodes with `ctx list` (--include-deleted for deleted ones)"}
	codeLLM             = code{"E020", "LLMRequestFailed", 40, ""}
	codeInterrupted     = code{"", "Interrupted", 130, ""}
)

// usageError is a command line that does not parse or makes no sense.
type usageError struct {
	err error
	cmd string // the command, for the hint
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// silentError fails with its code but prints nothing (cat-object -e).
type silentError struct{ err error }

func (e *silentError) Error() string { return e.err.Error() }
func (e *silentError) Unwrap() error { return e.err }

// classify maps an error to its row of the table. This is the only place
// where errors become exit codes.
func classify(err error) code {
	var ue *usageError
	switch {
	case errors.Is(err, context.Canceled):
		return codeInterrupted
	case errors.As(err, &ue):
		c := codeInvalidArgument
		if cmd := strings.TrimSuffix(ue.cmd, " node"); cmd != "" { // "add node" is add's hidden --type form
			c.Hint = "see `ctx " + cmd + " --help`"
		}
		return c
	case errors.Is(err, workset.ErrBudget):
		c := codeBudgetExceeded
		c.Hint = "raise --budget, or shorten the system prompt"
		return c
	case errors.Is(err, workset.ErrNotFound):
		c := codeNodeNotFound
		c.Hint = "`ctx context show` lists the session's objects (--agent names the session)"
		return c
	case errors.Is(err, workset.ErrAmbiguous):
		return codeAmbiguousID
	case errors.Is(err, workset.ErrInvalid):
		c := codeInvalidArgument
		c.Hint = "see `ctx context --help`"
		return c
	case errors.Is(err, workset.ErrState):
		c := codeDecode
		c.Hint = "a working-set state file under .ctx/local/workset/ is damaged or newer than this ctx; removing the session's directory starts it over"
		return c
	case errors.Is(err, workset.ErrUnreadable):
		c := codeNone
		c.Hint = "the file cannot be read here (gone, not a regular file, over 8 MiB, or inside a sandbox): pass its content with --stdin"
		return c
	case errors.Is(err, view.ErrBudget):
		return codeViewBudget
	case errors.Is(err, view.ErrInvalidFile):
		c := codeConfigInvalid
		c.Hint = "fix the view file (docs/FORMAT.md §17 lists its keys), or replace it: ctx view create NAME --force --query EXPR"
		return c
	case errors.Is(err, view.ErrNotFound):
		c := codeInvalidArgument
		c.Hint = "`ctx view list` lists the views"
		return c
	case errors.Is(err, view.ErrExists):
		c := codeInvalidArgument
		c.Hint = "`ctx view update` changes it; `ctx view create --force` replaces it"
		return c
	case errors.Is(err, view.ErrInvalidName), errors.Is(err, view.ErrInvalid), errors.Is(err, view.ErrBuiltin):
		c := codeInvalidArgument
		c.Hint = "see `ctx view --help`"
		return c
	case errors.Is(err, object.ErrHashMismatch), errors.Is(err, object.ErrPackCorrupt):
		return codeHashMismatch
	case errors.Is(err, object.ErrInvalidEnvelope):
		return codeInvalidEnvelope
	case errors.Is(err, repo.ErrSessionDamaged):
		return codeStaging
	case errors.Is(err, repo.ErrNoSession):
		c := codeStaging
		c.Hint = "`ctx stage list` lists the sessions; --session and CTX_SESSION name one"
		return c
	case errors.Is(err, repo.ErrSessionState):
		c := codeStaging
		c.Hint = "`ctx stage status` shows the session; `ctx stage start \"TASK\"` starts one"
		return c
	case errors.Is(err, staging.ErrInvalidID):
		c := codeInvalidArgument
		c.Hint = "a session ID is 1-64 of a-z 0-9 . _ -, starting with a letter or digit"
		return c
	case errors.Is(err, repo.ErrOrphanCommit):
		return codeCommitOrphan
	case errors.Is(err, object.ErrDecode), errors.Is(err, repo.ErrWrongTarget), errors.Is(err, repo.ErrNotCommit):
		return codeDecode
	case errors.Is(err, object.ErrNotFound), errors.Is(err, repo.ErrDanglingLink):
		return codeObjectNotFound
	case errors.Is(err, refs.ErrCorrupt):
		return codeRefCorrupt
	case index.Damaged(err):
		c := codeNone
		c.Hint = "the index (.ctx/index/, derived data) is damaged: `ctx rebuild` rebuilds it, and deleting .ctx/index/ is always safe"
		return c
	case errors.Is(err, refs.ErrNotFound):
		return codeRefNotFound
	case errors.Is(err, lockfile.ErrLocked):
		return codeLockConflict
	case errors.Is(err, repo.ErrBudgetExceeded):
		return codeBudgetExceeded
	case errors.Is(err, pack.ErrBudget):
		return codePackBudget
	case errors.Is(err, repo.ErrToolMissing):
		c := codeNone
		c.Hint = "install the tool (the message says which), or leave this step out"
		return c
	case errors.Is(err, repo.ErrToolFailed):
		c := codeNone
		c.Hint = "fix what the tool reports (run it yourself to see all of it); nothing was recorded"
		return c
	case errors.Is(err, repo.ErrNotAStore):
		return codeStoreNotFound
	case errors.Is(err, repo.ErrExists):
		return codeStoreExists
	case errors.Is(err, refs.ErrChanged):
		return codeRefConflict
	case errors.Is(err, repo.ErrDiverged):
		return codeRefDiverged
	case errors.Is(err, repo.ErrAmbiguousNode):
		c := codeAmbiguousID
		c.Hint = "name the node with its kind (file:PATH, dir:PATH, item:KEY, commit:REV, node:ID) or by a longer id"
		return c
	case errors.Is(err, object.ErrAmbiguous), errors.Is(err, narrative.ErrAmbiguous):
		return codeAmbiguousID
	case errors.Is(err, repo.ErrNodeNotFound):
		c := codeNodeNotFound
		c.Hint = "name a node by id, path, title or symbol, or as file:PATH, item:KEY, commit:REV, node:ID; `ctx list` lists the narrative's nodes, `ctx debug graph` the graph's"
		return c
	case errors.Is(err, narrative.ErrNotFound):
		return codeNodeNotFound
	case errors.Is(err, graph.ErrInvalidLabel):
		return codeInvalidArgument
	case errors.Is(err, narrative.ErrInvalidType), errors.Is(err, narrative.ErrInvalidTag), errors.Is(err, narrative.ErrInvalidContent),
		errors.Is(err, narrative.ErrInvalidMeta), errors.Is(err, narrative.ErrInvalidID), errors.Is(err, narrative.ErrInvalidStream):
		return codeInvalidArgument
	case errors.Is(err, narrative.ErrMalformed):
		c := codeNone
		c.Hint = "fix the narrative file at the position given; `ctx status` lists every problem"
		return c
	case errors.Is(err, repo.ErrConfig):
		return codeConfigInvalid
	case errors.Is(err, llm.ErrUnreachable):
		c := codeLLM
		c.Hint = "start the model server (llama.cpp: llama-server -m MODEL.gguf --port 8080) or point ctx at it: --server URL, or [llm] server_url in .ctx/config.toml; nothing was recorded"
		return c
	case errors.Is(err, llm.ErrTimeout):
		c := codeLLM
		c.Hint = "the server sent nothing for the whole timeout: check that it is up and not overloaded, or raise --timeout ([llm] timeout); nothing was recorded"
		return c
	case errors.Is(err, llm.ErrStatus):
		c := codeLLM
		c.Hint = "the server refused or failed the request: check --model, --api (llamacpp or openai), the key variable of [llm] api_key_env, and the server's log; nothing was recorded"
		return c
	case errors.Is(err, llm.ErrMalformed), errors.Is(err, llm.ErrTruncated):
		c := codeLLM
		c.Hint = "the response was cut off or not in the API's format: check that --api matches the server (llamacpp: POST /completion; openai: POST /v1/chat/completions) and the server's log; nothing was recorded"
		return c
	case errors.Is(err, llm.ErrInvalidInput):
		c := codeInvalidArgument
		c.Hint = "pipe a prompt pack in (ctx query \"…\" | ctx llm), or give --pack FILE or --query TEXT"
		return c
	case errors.Is(err, llm.ErrInvalidOptions):
		c := codeInvalidArgument
		c.Hint = "see `ctx llm --help`; [llm] of .ctx/config.toml holds the defaults"
		return c
	case errors.Is(err, exchange.ErrInvalid):
		c := codeInvalidArgument
		c.Hint = "give a file ctx export wrote (docs/EXPORT.md is its schema) and fix the entries named; nothing was imported"
		return c
	case errors.Is(err, exchange.ErrConflict):
		c := codeInvalidArgument
		c.Hint = "import with --merge (identical nodes are skipped, older ones updated, newer ones kept), or into an empty store"
		return c
	case errors.Is(err, exchange.ErrDocument):
		c := codeInvalidArgument
		c.Hint = "ctx ingest takes one Markdown or text file (see `ctx ingest --help`); nothing was written"
		return c
	case errors.Is(err, repo.ErrInvalidRev), errors.Is(err, object.ErrInvalidID), errors.Is(err, refs.ErrInvalidName):
		c := codeInvalidArgument
		c.Hint = "a revision is a ref (HEAD, main, refs/<name>, STAGE) or an id prefix of at least 4 hex digits, then ^, ^N, ~N or :PATH; `ctx show-ref` lists the refs"
		return c
	case errors.Is(err, object.ErrInvalidArgument), errors.Is(err, object.ErrTooLarge), errors.Is(err, repo.ErrNotDirectory),
		errors.Is(err, repo.ErrInvalidArgument):
		return codeInvalidArgument
	}
	return codeNone
}

// pkgPrefix matches the package prefixes ("object: ", "repo: ") that
// library errors carry at the start of the message or of a wrapped part.
var pkgPrefix = lazyre.New(`(^|: )(?:repo|refs|object|narrative|view|graph|lockfile|regfile|atomicfile|syncfs|llm|exchange|workset): `)

// message strips the package prefixes, which mean nothing to a user, and
// nothing else (a path may well contain "repo: ").
func message(err error) string {
	s := pkgPrefix.ReplaceAllString(err.Error(), "$1")
	return strings.Replace(s, "add node: ", "add: ", 1) // add's hidden --type form
}

// fail reports err on stderr and returns the exit status.
func (a *App) fail(err error) int {
	var ce *commandExit
	if errors.As(err, &ce) {
		return ce.code // ctx run: the command's own status
	}
	c := classify(err)
	var se *silentError
	if errors.As(err, &se) {
		return c.Exit
	}
	msg := message(err)
	if c == codeInterrupted {
		msg = "interrupted"
	}
	if a.Globals != nil && a.Globals.JSON {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{
			"code": c.ID, "name": c.Name, "message": msg, "hint": c.Hint, "exit": c.Exit,
		}})
		fmt.Fprintf(a.Stderr, "%s\n", b)
		return c.Exit
	}
	if c.ID != "" {
		fmt.Fprintf(a.Stderr, "ctx: %s %s: %s\n", c.ID, c.Name, msg)
	} else {
		fmt.Fprintf(a.Stderr, "ctx: %s\n", msg)
	}
	if c.Hint != "" {
		fmt.Fprintf(a.Stderr, "hint: %s\n", c.Hint)
	}
	return c.Exit
}
