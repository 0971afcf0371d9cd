package repo

import (
	"bytes"
	"encoding/base64"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// Secrets are made at run time from a seeded generator, with prefixes
// built by concatenation, so that no file of ctx holds a literal that a
// scanner would flag (as in internal/secrets).

const (
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digits   = "0123456789"
	b64      = alnum + "+/"
	symbols  = alnum + "!#%^&*-_=+"
)

func fake(seed uint64, n int, alphabet string) string {
	r := rand.New(rand.NewPCG(seed, 0xc7f))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func fakeJWT(seed uint64) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc.EncodeToString([]byte(`{"sub":"`+fake(seed, 12, alnum)+`"}`)) + "." + fake(seed+1, 43, alnum+"-_")
}

// planted is a secret planted in a fixture, and the file holding it.
type planted struct {
	kind   string // what it is, for messages
	file   string
	secret string // must never be found in the store
}

// secretFixture returns project files with planted secrets of every kind
// the issue names, the secrets, and the clean files that must be stored.
func secretFixture() (files map[string]string, secrets []planted, clean []string) {
	pk := "PRIVATE" + " KEY"
	keyBody := strings.Join([]string{fake(1, 64, b64), fake(2, 64, b64), fake(3, 20, b64) + "=="}, "\n")
	files = map[string]string{}
	add := func(kind, file, text, secret string) {
		secrets = append(secrets, planted{kind, file, secret})
		files[file] += strings.Replace(text, "@", secret, 1)
	}
	// Secret files, withheld by name: their content is no secret a scanner
	// would find, only a marker.
	for i, f := range []string{
		".env", ".env.local", "config/.env.production", "certs/server.pem", "certs/tls.key",
		"id_rsa", "home/.ssh/id_ed25519", ".npmrc", ".netrc", ".pypirc", ".git-credentials",
		".aws/credentials", "client_secret_1234.json", "keystore.jks", "infra/terraform.tfstate",
	} {
		add("secret file "+f, f, "HOST=example.org\nMARK=@\n", "marker"+fake(uint64(100+i), 16, digits))
	}
	// Secrets in otherwise ordinary files.
	add("private key block", "internal/tls/key.go",
		"package tls\n\n// Key is a test key.\nconst Key = `-----BEGIN RSA "+pk+"-----\n@\n-----END RSA "+pk+"-----\n`\n", keyBody)
	add("service account key", "credentials.json",
		`{"type": "service_account", "private_key": "-----BEGIN `+pk+`-----\n@\n-----END `+pk+`-----\n"}`+"\n",
		strings.ReplaceAll(keyBody, "\n", `\n`))
	add("AWS access key id", "cloud/aws.go", "package cloud\n\nconst KeyID = \"@\"\n", "AK"+"IA"+fake(4, 16, upperNum))
	add("AWS secret access key", "cloud/aws.ini", "[default]\naws_secret_access_key = @\n", fake(5, 40, b64))
	add("GitHub token", "ci/github.yml", "env:\n  GITHUB_TOKEN: @\n", "gh"+"p_"+fake(6, 36, alnum))
	add("GitHub fine-grained token", "scripts/release.sh", "#!/bin/sh\ncurl -H 'Authorization: Bearer @' https://api.github.com\n",
		"github"+"_pat_"+fake(7, 22, alnum)+"_"+fake(8, 59, alnum))
	add("GitLab token", "ci/gitlab.py", "import requests\n\nHEADERS = {\"PRIVATE-TOKEN\": \"@\"}\n", "gl"+"pat-"+fake(9, 20, alnum))
	add("Slack token", "chat/slack.ts", "export const client = new WebClient(\"@\");\n",
		"xox"+"b-"+fake(10, 12, digits)+"-"+fake(11, 13, digits)+"-"+fake(12, 24, alnum))
	add("Slack webhook", "chat/hooks.json", "{\"url\": \"https://@\"}\n",
		"hooks.slack.com/"+"services/T"+fake(13, 8, upperNum)+"/B"+fake(14, 10, upperNum)+"/"+fake(15, 24, alnum))
	add("Stripe key", "billing/stripe.rs", "pub const KEY: &str = \"@\";\n", "sk"+"_live_"+fake(16, 24, alnum))
	add("JWT", "auth/session.js", "const session = '@';\nmodule.exports = session;\n", fakeJWT(17))
	add("password assignment", "db/settings.py", "HOST = 'db'\npassword = \"@\"\n", fake(18, 24, symbols))
	add("env-style password", "deploy/app.conf", "user=app\nDB_PASSWORD=@\n", fake(19, 20, alnum))
	// Clean files, stored.
	files["main.go"] = "package main\n\nimport \"os\"\n\nfunc main() { _ = os.Getenv(\"DB_PASSWORD\") }\n"
	files["README.md"] = "# Demo\n\nSet GITHUB_TOKEN in your environment.\n"
	files[".env.example"] = "DB_PASSWORD=\nGITHUB_TOKEN=changeme\n"
	files["certs/server.pub"] = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI public\n"
	clean = []string{".env.example", "README.md", "certs/server.pub", "main.go"}
	return files, secrets, clean
}

// bare are the kinds of secret that a scanner knows without their
// context.
var bare = map[string]bool{
	"AWS access key id": true, "GitHub token": true, "GitHub fine-grained token": true, "GitLab token": true,
	"Slack token": true, "Slack webhook": true, "Stripe key": true, "JWT": true,
}

// storeContents returns the content of every file of the store, with the
// object files decompressed, by path.
func storeContents(t testing.TB, r *Repo) map[string][]byte {
	t.Helper()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	out := map[string][]byte{}
	objects := 0
	err = filepath.WalkDir(r.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel := r.Rel(p)
		if strings.HasPrefix(rel, "objects/") {
			plain, err := dec.DecodeAll(data, nil)
			if err != nil {
				t.Errorf("decompress %s: %v", rel, err)
			}
			data = plain
			objects++
		}
		out[rel] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if objects == 0 {
		t.Fatal("the store holds no objects")
	}
	return out
}

// leaks returns the planted secrets some file of the store holds.
func leaks(t testing.TB, r *Repo, secrets []planted) []string {
	t.Helper()
	var out []string
	contents := storeContents(t, r)
	for _, s := range secrets {
		// A key body leaks if any of its lines does.
		pieces := strings.FieldsFunc(strings.ReplaceAll(s.secret, `\n`, "\n"), func(r rune) bool { return r == '\n' })
	files:
		for p, data := range contents {
			for _, piece := range pieces {
				if bytes.Contains(data, []byte(piece)) {
					out = append(out, s.kind+" in "+p)
					continue files
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestSecretsNeverStored plants secrets of every kind in a project, and
// in a command's output and arguments, and checks that no file of the
// store holds any of them, that what was withheld is reported, and that
// AllowSecrets stores them.
func TestSecretsNeverStored(t *testing.T) {
	files, secrets, clean := secretFixture()
	r := NewTestRepo(t)
	writeDated(t, r, files)
	res := mustIngest(t, r, IngestOptions{Semantics: true})
	if got := leaks(t, r, secrets); len(got) > 0 {
		t.Errorf("Ingest stored secrets:\n%s", strings.Join(got, "\n"))
	}
	_, c := head(t, r)
	if got := sortedKeys(rootPaths(t, r, c)); !slices.Equal(got, clean) {
		t.Errorf("root tree = %q, want %q", got, clean)
	}
	withheld := map[string]string{}
	for _, w := range res.Withheld {
		withheld[w.Path] = w.Reason
	}
	for _, s := range secrets {
		reason, ok := withheld[s.file]
		switch {
		case !ok:
			t.Errorf("%s not reported withheld (%s)", s.file, s.kind)
		case !strings.Contains(reason, "--allow-secrets"):
			t.Errorf("%s withheld because %q, which does not say how to store it", s.file, reason)
		case strings.Contains(reason, s.secret):
			t.Errorf("the reason for withholding %s holds the secret", s.file)
		}
	}
	if len(res.Withheld) != len(secrets) {
		t.Errorf("%d withheld, want %d: %+v", len(res.Withheld), len(secrets), res.Withheld)
	}

	// A command whose output and arguments hold every secret found by
	// content (the secret files' markers are no secrets but by name), in
	// its context and, for the token formats, alone.
	var out strings.Builder
	var shown []planted
	out.WriteString("# example.com/demo\n")
	for _, s := range secrets {
		if strings.HasPrefix(s.kind, "secret file") {
			continue
		}
		shown = append(shown, s)
		if bare[s.kind] {
			out.WriteString("./main.go:3:1: leaked " + s.secret + "\n")
		}
		out.WriteString(files[s.file])
	}
	token := secrets[slices.IndexFunc(secrets, func(s planted) bool { return s.kind == "GitHub token" })].secret
	w := lock(t, r)
	cres, err := w.RecordCommand(t.Context(), CommandOptions{
		Name:     "deploy --token " + token,
		Argv:     []string{"deploy", "--token", token},
		Output:   []byte(out.String()),
		ExitCode: 1,
	})
	if err != nil {
		t.Fatalf("RecordCommand: %v", err)
	}
	w.Unlock()
	if got := leaks(t, r, shown); len(got) > 0 {
		t.Errorf("RecordCommand stored secrets:\n%s", strings.Join(got, "\n"))
	}
	if len(cres.Redacted) == 0 {
		t.Error("RecordCommand reports nothing redacted")
	}
	for _, red := range cres.Redacted {
		for _, s := range secrets {
			if strings.Contains(red.Path+red.Reason, s.secret) {
				t.Errorf("redaction report %+v holds a secret", red)
			}
		}
	}

	// AllowSecrets stores them all.
	r2 := NewTestRepo(t)
	writeDated(t, r2, files)
	res = mustIngest(t, r2, IngestOptions{Semantics: true, AllowSecrets: true})
	if len(res.Withheld) != 0 {
		t.Errorf("with AllowSecrets, withheld %+v", res.Withheld)
	}
	if got := leaks(t, r2, secrets); len(got) < len(secrets) {
		t.Errorf("with AllowSecrets, only %d of %d secrets stored", len(got), len(secrets))
	}
}
