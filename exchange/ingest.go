package exchange

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// DefaultMaxDocument is the largest document Ingest takes by default:
// 1 MiB, about 250,000 tokens.
const DefaultMaxDocument = 1 << 20

// IngestOptions configure Ingest.
type IngestOptions struct {
	// Path is the document, absolute or relative to Wd.
	Path string
	Wd   string
	// Title is the node's title; empty means the document's first line
	// when it is a level-1 heading, else the file's name.
	Title  string
	Tags   []string
	Stream string
	// MaxBytes bounds the document; 0 means DefaultMaxDocument. It may not
	// exceed narrative.MaxContent.
	MaxBytes int64
	// AllowSecrets keeps secrets found in the document; by default they
	// are redacted, and a file of credentials (.env, *.pem, id_rsa, …) is
	// refused.
	AllowSecrets bool
	// Message is the commit message; empty means "ingest PATH".
	Message string
	Author  string
}

// IngestResult is what Ingest did.
type IngestResult struct {
	Node *narrative.Node `json:"node"`
	// Blob is the id of the document's bytes (after redaction).
	Blob object.ID `json:"blob"`
	// File is the document's path in the project, "" for a document
	// outside it.
	File string `json:"file,omitempty"`
	// Existing is true when an active source node already held these
	// bytes from this path: nothing was written.
	Existing bool `json:"existing"`
	// Redacted says what secrets were withheld.
	Redacted []string   `json:"redacted,omitempty"`
	Commit   *object.ID `json:"commit,omitempty"`
}

// Ingest makes a text document (Markdown or plain text) a source node:
// its title is the document's heading (or the file's name), its body the
// document's text, its metadata the document's path ("path"), size
// ("bytes") and object id ("blob"). A document inside the project is
// also linked to its file node (source derived_from file, evidence naming
// the blob of the document's bytes, which the commit stores). One commit
// records the node, as ctx commit would, with every narrative change not
// yet committed. A binary file, a file larger than MaxBytes and a file of
// credentials are refused (ErrDocument); ingesting the same bytes from
// the same path again returns the node made the first time.
func Ingest(ctx context.Context, w *repo.Writer, opts IngestOptions) (*IngestResult, error) {
	max := opts.MaxBytes
	if max == 0 {
		max = DefaultMaxDocument
	}
	if max < 0 || max > narrative.MaxContent {
		return nil, fmt.Errorf("%w: the size limit %d is not between 1 and %d bytes", ErrDocument, max, narrative.MaxContent)
	}
	p := opts.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(opts.Wd, p)
	}
	p = filepath.Clean(p)
	name := opts.Path
	file := ""
	if rel, err := filepath.Rel(w.ProjectRoot(), p); err == nil && rel != "." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != ".." {
		file = filepath.ToSlash(rel)
		name = file
	}
	if strings.HasPrefix(file, ".ctx/") {
		return nil, fmt.Errorf("%w: %s is inside the store", ErrDocument, name)
	}
	if !opts.AllowSecrets {
		if why, ok := secrets.SecretFile(filepath.ToSlash(p)); ok {
			return nil, fmt.Errorf("%w: %s is a %s, which holds credentials; --allow-secrets ingests it anyway (into a store teams commit to git)", ErrDocument, name, why)
		}
	}
	data, err := regfile.Read(p, max)
	switch {
	case errors.Is(err, regfile.ErrTooLarge):
		return nil, fmt.Errorf("%w: %s is larger than %d bytes; split it, or raise --max-bytes (at most %d)", ErrDocument, name, max, narrative.MaxContent)
	case errors.Is(err, regfile.ErrNotRegular):
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrDocument, name)
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s does not exist", ErrDocument, name)
	case err != nil:
		return nil, fmt.Errorf("exchange: read %s: %w", name, err)
	}
	if err := textual(data); err != nil {
		return nil, fmt.Errorf("%w: %s is %s: ingest takes Markdown or plain text (store other files with ctx add file)", ErrDocument, name, err)
	}
	if strings.TrimSpace(normalize(string(data))) == "" {
		return nil, fmt.Errorf("%w: %s is empty", ErrDocument, name)
	}
	if strings.ContainsAny(opts.Title, "\r\n") {
		return nil, fmt.Errorf("%w: the title must be one line", ErrDocument)
	}
	res := &IngestResult{File: file}
	if !opts.AllowSecrets {
		red, found := secrets.Redact(data)
		for _, s := range found {
			res.Redacted = append(res.Redacted, fmt.Sprintf("line %d: %s", s.Line, s.Reason))
		}
		data = red
	}
	res.Blob = object.Sum(object.KindBlob, data)

	sp := w.Narrative()
	cat, err := sp.Load()
	if err != nil {
		return nil, err
	}
	for _, id := range cat.IDs() {
		n := cat.Nodes[id]
		if n.Type == narrative.Source && n.Active() && n.Meta["blob"] == res.Blob.String() && n.Meta["path"] == name {
			res.Node, res.Existing = n, true
			return res, nil
		}
	}
	title, body := split(string(data))
	if opts.Title != "" {
		title, body = strings.TrimSpace(opts.Title), trimDoc(normalize(string(data)))
	}
	if title == "" {
		title = filepath.Base(p)
	}
	content := title
	if body != "" {
		content += "\n\n" + body
	}
	meta := map[string]string{"path": name, "blob": res.Blob.String(), "bytes": strconv.Itoa(len(data))}
	n, err := sp.Add(narrative.NewNode{Stream: opts.Stream, Type: narrative.Source, Content: content, Tags: opts.Tags, Meta: meta})
	if n == nil {
		return nil, err
	}
	res.Node = n
	// A failed journal line (err != nil with a node) is not worth failing
	// for: the node exists, and a retry would make a second one.
	co := repo.CommitOptions{Message: opts.Message, Author: opts.Author}
	if co.Message == "" {
		co.Message = "ingest " + name
	}
	if file != "" {
		e := graph.Edge{From: graph.NarrativeNode(string(n.Type), string(n.ID)), To: graph.FileNode(w.Config.Repo.ID, file),
			Label: graph.DerivedFrom, Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High, BlobID: &res.Blob}}
		co.EdgeBatches = []*graph.EdgeBatch{{Edges: []graph.Edge{e}, CreatedAt: w.Clock.Now().Unix()}}
		co.Blobs = [][]byte{data}
	}
	cr, err := w.Commit(ctx, co)
	if err != nil {
		return nil, err
	}
	if cr.Committed {
		res.Commit = &cr.ID
	}
	return res, nil
}

// textual returns why data is not text ctx keeps as a node, or nil.
func textual(data []byte) error {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Errorf("binary (a NUL byte at offset %d)", i)
	}
	if !utf8.Valid(data) {
		return errors.New("not UTF-8 text")
	}
	return nil
}

// normalize drops a byte-order mark and carriage returns before line
// feeds.
func normalize(s string) string {
	s = strings.TrimPrefix(s, "\ufeff")
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// split returns a document's title, its first non-blank line when that
// is a level-1 ATX heading ("# Title"), and the rest; or no title and the
// whole text.
func split(s string) (title, body string) {
	s = normalize(s)
	rest := s
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		if strings.TrimSpace(line) == "" {
			rest = after
			continue
		}
		if h, ok := strings.CutPrefix(line, "# "); ok {
			h = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
			if h != "" {
				return h, trimDoc(after)
			}
		}
		break
	}
	return "", trimDoc(s)
}

// trimDoc drops the blank lines before a text and the white space after
// it, keeping the indentation of its first line (an indented code block).
func trimDoc(s string) string {
	s = strings.TrimRight(s, " \t\n")
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			return s
		}
		s = rest
	}
}
