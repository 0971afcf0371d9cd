package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// positive is content with one secret: text holds an '@' where the secret
// goes.
type positive struct {
	name   string
	text   string
	secret string
	kind   Kind
}

func positives() []positive {
	rsa, ec, openssh := keyLines(1, 3), keyLines(10, 2), keyLines(20, 5)
	aws40 := fake(30, 40, b64)
	value := fake(40, 24, alnum)
	slackBot := "xox" + "b-" + fake(50, 12, digits) + "-" + fake(51, 13, digits) + "-" + fake(52, 24, alnum)
	return []positive{
		// Private key blocks: the secret is the body between BEGIN and END.
		{"RSA PEM", begin("RSA "+pk) + "\n@\n" + end("RSA "+pk) + "\n", strings.Join(rsa, "\n"), PrivateKey},
		{"EC PEM", begin("EC "+pk) + "\n@\n" + end("EC "+pk) + "\n", strings.Join(ec, "\n"), PrivateKey},
		{"DSA PEM", begin("DSA "+pk) + "\n@\n" + end("DSA "+pk), strings.Join(rsa, "\n"), PrivateKey},
		{"PKCS8 PEM", "x\n" + begin(pk) + "\n@\n" + end(pk) + "\n", strings.Join(ec, "\n"), PrivateKey},
		{"PKCS8 encrypted PEM", begin("ENCRYPTED "+pk) + "\n@\n" + end("ENCRYPTED "+pk) + "\n", strings.Join(rsa, "\n"), PrivateKey},
		{"OpenSSH", begin("OPENSSH "+pk) + "\n@\n" + end("OPENSSH "+pk) + "\n", strings.Join(openssh, "\n"), PrivateKey},
		{"legacy encrypted PEM headers",
			begin("RSA "+pk) + "\n@\n" + end("RSA "+pk) + "\n",
			"Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC," + strings.ToUpper(fake(60, 32, hex)) + "\n\n" + strings.Join(rsa, "\n"),
			PrivateKey},
		{"PGP armor",
			begin("PGP "+pk+" BLOCK") + "\n@\n" + end("PGP "+pk+" BLOCK") + "\n",
			"Version: GnuPG v2\n\n" + strings.Join(openssh, "\n") + "\n=" + fake(61, 4, b64),
			PrivateKey},
		{"CRLF", begin("RSA "+pk) + "\r\n@\r\n" + end("RSA "+pk) + "\r\n", strings.Join(rsa, "\r\n"), PrivateKey},
		{"escaped in a string literal",
			`key := "` + begin("EC "+pk) + `\n@\n` + end("EC "+pk) + `\n"` + "\n",
			strings.Join(ec, `\n`), PrivateKey},
		{"Go concatenation",
			"var key = \"" + begin("RSA "+pk) + "\\n\" +\n\t\"@\\n\" +\n\t\"" + end("RSA "+pk) + "\\n\"\n",
			strings.Join(rsa, "\\n\" +\n\t\""), PrivateKey},
		{"YAML block scalar",
			"tls:\n  key: |\n    " + begin(pk) + "\n    @\n    " + end(pk) + "\n",
			strings.Join(ec, "\n    "), PrivateKey},
		{"newlines turned into spaces", "KEY=\"" + begin("RSA "+pk) + " @ " + end("RSA "+pk) + "\"\n", strings.Join(rsa, " "), PrivateKey},
		{"truncated, no END line", "# key\n" + begin("OPENSSH "+pk) + "\n@\n", strings.Join(openssh, "\n"), PrivateKey},

		// Token formats.
		{"AWS key id in .env", "AWS_ACCESS_KEY_ID=@\n", "AK" + "IA" + fake(70, 16, upperNum), AWSAccessKeyID},
		{"AWS temporary key id in JSON", `{"AccessKeyId": "@", "Expiration": "2030-01-01"}`, "AS" + "IA" + fake(71, 16, upperNum), AWSAccessKeyID},
		{"AWS documentation key id", "aws configure set aws_access_key_id @\n", "AK" + "IA" + "IOSFODNN7EXAMPLE", AWSAccessKeyID},
		{"AWS secret in credentials", "[default]\naws_secret_access_key = @\n", aws40, AWSSecretAccessKey},
		{"AWS secret in .env", "export AWS_SECRET_ACCESS_KEY=@\n", aws40, AWSSecretAccessKey},
		{"AWS secret in JSON", `{"SecretAccessKey": "@"}`, aws40, AWSSecretAccessKey},
		{"AWS secret in YAML", "aws_secret_key: '@'\n", aws40, AWSSecretAccessKey},
		{"GitHub PAT in .env", "GITHUB_TOKEN=@\n", "gh" + "p_" + fake(80, 36, alnum), GitHubToken},
		{"GitHub OAuth token in JSON", `{"access_token":"@","scope":"repo"}`, "gh" + "o_" + fake(81, 36, alnum), GitHubToken},
		{"GitHub user token in prose", "use @ for the app\n", "gh" + "u_" + fake(82, 36, alnum), GitHubToken},
		{"GitHub server token", "token: @\n", "gh" + "s_" + fake(83, 36, alnum), GitHubToken},
		{"GitHub refresh token", "refresh=@", "gh" + "r_" + fake(84, 76, alnum), GitHubToken},
		{"GitHub fine-grained PAT", "-H 'Authorization: Bearer @'", "github" + "_pat_" + fake(85, 22, alnum) + "_" + fake(86, 59, alnum), GitHubToken},
		{"GitLab PAT in a header", "curl --header \"PRIVATE-TOKEN: @\" https://gitlab.example.com/api/v4/projects", "gl" + "pat-" + fake(87, 20, alnum), GitLabToken},
		{"Slack bot token", "SLACK_BOT_TOKEN=@\n", slackBot, SlackToken},
		{"Slack user token", "slack.New(\"@\")", "xox" + "p-" + fake(88, 12, digits) + "-" + fake(89, 12, digits) + "-" + fake(90, 13, digits) + "-" + fake(91, 32, hex), SlackToken},
		{"Slack app token", "'@'", "xox" + "a-2-" + fake(92, 30, alnum), SlackToken},
		{"Slack refresh token", "@", "xox" + "r-" + fake(93, 40, alnum), SlackToken},
		{"Slack session token", "cookie @;", "xox" + "s-" + fake(94, 12, digits) + "-" + fake(95, 40, alnum), SlackToken},
		{"Slack webhook", "webhook_url: \"https://@\"\n", "hooks.slack.com/" + "services/T" + fake(96, 8, upperNum) + "/B" + fake(97, 10, upperNum) + "/" + fake(98, 24, alnum), SlackWebhook},
		{"Stripe live key", "stripe.Key = \"@\"\n", "sk" + "_live_" + fake(99, 24, alnum), StripeKey},
		{"Stripe restricted key", "STRIPE=@", "rk" + "_live_" + fake(100, 99, alnum), StripeKey},
		{"Google API key", "<script src=\"https://maps.googleapis.com/maps/api/js?key=@\"></script>", "AI" + "za" + fake(101, 35, b64url), GoogleAPIKey},
		{"OpenAI legacy key", "openai.api_key = \"@\"\n", "sk" + "-" + fake(102, 48, alnum), OpenAIKey},
		{"OpenAI project key", "OPENAI_API_KEY=@\n", "sk" + "-proj-" + fake(103, 120, b64url), OpenAIKey},
		{"Anthropic key", "client = Anthropic(api_key=\"@\")", "sk" + "-ant-api03-" + fake(104, 93, b64url) + "AA", AnthropicKey},
		{"npm token in .npmrc", "//registry.npmjs.org/:_authToken=@\n", "np" + "m_" + fake(105, 36, alnum), NPMToken},
		{"JWT", "Authorization: Bearer @\n", fakeJWT(106, `{"alg":"HS256","typ":"JWT"}`, 43), JWT},
		{"unsigned JWT", "jwt=@\n", fakeJWT(107, `{"typ":"JWT","alg":"none"}`, 0), JWT},

		// Assignments.
		{"Python", "password = \"@\"\n", value, Assignment},
		{".env", "DB_PASSWORD=@\n", value, Assignment},
		{".env with a comment", "API_KEY=@  # staging\n", value, Assignment},
		{"YAML", "db:\n  password: @\n", value, Assignment},
		{"YAML quoted", "oauth:\n  client_secret: '@'\n", value, Assignment},
		{"JSON", `{"api_key": "@", "region": "eu-west-1"}`, value, Assignment},
		{"Go short declaration", "\tapiKey := \"@\"\n", value, Assignment},
		{"Go raw string", "token := `@`\n", value, Assignment},
		{"Go composite literal", "\tSecret: \"@\",\n", value, Assignment},
		{"TOML", "[auth]\ntoken = '@'\n", value, Assignment},
		{"PHP", "$password = '@';\n", value, Assignment},
		{"JavaScript", "const clientSecret = \"@\";\n", value, Assignment},
		{"properties", "spring.datasource.password=@\n", value, Assignment},
		{"flag", "mysql --password=@\n", value, Assignment},
		{"npmrc auth token", "//npm.example.com/:_authToken=@\n", value, Assignment},
		{"Ruby hash", "{ :password => \"@\" }", value, Assignment},
		{"Python raw string with symbols", "SECRET_KEY = r\"@\"\n", fake(44, 50, symbols), Assignment},
		{"passphrase", "passphrase: @\n", value, Assignment},
		{"pwd", "DB_PWD=@\n", value, Assignment},
		{"hex private key", "PRIVATE_KEY=@\n", "0x" + fake(42, 64, hex), Assignment},
		{"numbered name", "PASSWORD_2=\"@\"\n", value, Assignment},
		{"short random password", "password: \"@\"\n", fake(43, 10, symbols), Assignment},
	}
}

func TestScanFinds(t *testing.T) {
	for _, tc := range positives() {
		t.Run(tc.name, func(t *testing.T) {
			content, start := fill(tc.text, tc.secret)
			found := Scan([]byte(content))
			checkFindings(t, []byte(content), found)
			if len(found) != 1 {
				t.Fatalf("Scan found %d secrets, want 1: %+v\n%s", len(found), found, content)
			}
			f := found[0]
			if f.Kind != tc.kind || f.Start != start || f.End != start+len(tc.secret) {
				t.Errorf("Scan = %+v (%q), want %s at [%d:%d]", f, content[f.Start:f.End], tc.kind, start, start+len(tc.secret))
			}
		})
	}
}

// negatives are contents without secrets; an '@' in them is replaced by
// a random value, to show that it is the context that keeps it from being
// taken for a secret.
var negatives = []struct{ name, text string }{
	// Go code that handles secrets.
	{"form value", `password := r.FormValue("password")`},
	{"struct field", "type Config struct {\n\tToken string\n\tPassword string `json:\"password\"`\n}"},
	{"make", "secret := make([]byte, 32)"},
	{"comparison", `if password == "@" {`},
	{"case", "switch tok {\ncase token:\n\treturn nil\n}"},
	{"call", "token = p.next()\n"},
	{"selector", "pwd = a.Package.Dir\n"},
	{"identifier", "privKey.PrivateKey = curvePrivateKey\n"},
	{"getenv", `password = os.Getenv("DB_PASSWORD")`},
	{"field in composite literal", "\tPassword: cfg.Password,\n"},
	{"type annotation", "token: Optional[str] = None\n"},
	{"URL-valued name", `tokenURL = "https://oauth2.example.com/token"`},
	{"file-valued name", "PASSWORD_FILE=/run/secrets/db\n"},
	{"token type", "token_type: Bearer\n"},
	{"count", "max_tokens = 4096\n"},
	{"page token", `nextPageToken: "@"`},
	{"TLS test vector", `sharedSecret: "@",`},
	{"prompt", `passwordPrompt = "Enter your password: "`},
	{"message", `password: "Enter password"`},
	{"key name not value", `{"password", "secret", "token"}`},
	{"base64 test vector", `{"SGVsbG8sIFdvcmxkIQ==", "@"},`},
	{"hex test vector", "var digest = \"@\"\n"},
	{"PEM type check", `if block.Type == "RSA ` + pk + `" {`},
	{"PEM prefix check", `bytes.HasPrefix(data, []byte("` + begin("RSA "+pk) + `"))`},
	{"PEM placeholder", begin("RSA "+pk) + "\n...\n" + end("RSA "+pk) + "\n"},
	{"PEM placeholder in prose", begin(pk) + "\n<your key here>\n" + end(pk) + "\n"},
	{"PEM short body", begin(pk) + "\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf\n" + end(pk) + "\n"},
	{"Go testing key", begin("RSA TESTING KEY") + "\n" + strings.Join(keyLines(200, 2), "\n") + "\n" + end("RSA TESTING KEY")},
	{"public key", begin("PUBLIC KEY") + "\n" + strings.Join(keyLines(201, 2), "\n") + "\n" + end("PUBLIC KEY")},

	// Placeholders and weak values.
	{"template", "PASSWORD=${DB_PASSWORD}\n"},
	{"helm", `password: "{{ .Values.password }}"`},
	{"changeme", "password: changeme\n"},
	{"angle brackets", `password: "<your password>"`},
	{"x's", `api_key = "xxxxxxxxxxxxxxxx"`},
	{"stars", `password = "********"`},
	{"empty", `password = ""`},
	{"the word itself", `password = "password"`},
	{"short", "secret: s3cr3t\n"},
	{"digits", "secret = 12345678901234\n"},
	{"sequence", `password = "abcd1234EFGH"`},
	{"English", `secret = "correcthorse"`},
	{"kebab case", "base-passwd: no-debconf-config\n"},
	{"type name", `private_key: "_RSAPrivateKey",`},
	{"documentation example", `'refresh_token': '23sdf876234',`},
	{"shell substitution", `TOKEN="$(cat /run/secrets/token)"`},
	{"YAML alias", "password: *default_password\n"},
	{"redaction marker", `password = "[REDACTED:assigned-secret]"`},

	// Near misses of token formats.
	{"AWS too short", "AK" + "IA" + "ABCDEFGH2345"},
	{"AWS too long", "AK" + "IA" + "IOSFODNN7EXAMPLE7"},
	{"AWS lower case", "AK" + "IA" + "iosfodnn7example"},
	{"AWS x's", "AK" + "IA" + "XXXXXXXXXXXXXXXX"},
	{"AWS inside a word", "xAK" + "IA" + "IOSFODNN7EXAMPLE"},
	{"GitHub short", "gh" + "p_" + "abc123"},
	{"GitHub x's", "gh" + "p_" + strings.Repeat("x", 36)},
	{"GitHub identifier", "var ghp_enabled = true"},
	{"Slack placeholder", "xox" + "b-not-a-real-token"},
	{"Slack webhook placeholder", "https://hooks.slack.com/" + "services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"},
	{"Stripe test key", "sk" + "_test_" + "@"},
	{"Google short", "AI" + "za" + "SyA1234"},
	{"sk- in a word", "task-" + "@"},
	{"sk- kebab case", "sk-" + "learn-metrics-and-preprocessing-helpers-module"},
	{"npm identifier", "npm_config_cache=/tmp/npm"},
	{"JWT header without alg", "ey" + "JAbCd.eyJ.x"},
	{"JWT-like base64", "ey" + "JhbGciOiJIUzI1NiJ9"},
}

func TestScanIgnores(t *testing.T) {
	for i, tc := range negatives {
		t.Run(tc.name, func(t *testing.T) {
			content := tc.text
			if strings.Contains(content, "@") {
				content, _ = fill(content, fake(uint64(1000+i), 24, alnum))
			}
			if found := Scan([]byte(content)); len(found) != 0 {
				t.Errorf("Scan(%q) = %+v, want nothing", content, found)
			}
		})
	}
}

func TestScanOverlaps(t *testing.T) {
	gh := "gh" + "p_" + fake(300, 36, alnum)
	jwt := fakeJWT(301, `{"alg":"RS256"}`, 86)
	tests := []struct {
		name, text, secret string
		kind               Kind
	}{
		// A token format wins over the assignment it is the value of.
		{"token assigned", "password = \"@\"", gh, GitHubToken},
		{"JWT assigned", "id_token: @", jwt, JWT},
		// A key block wins over everything in its body.
		{"key block", begin(pk) + "\n@\n" + end(pk), strings.Join(keyLines(302, 1), "\n") + "\n" + "AK" + "IA" + fake(303, 16, upperNum), PrivateKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			content, start := fill(tc.text, tc.secret)
			found := Scan([]byte(content))
			if len(found) != 1 || found[0].Kind != tc.kind || found[0].Start != start || found[0].End != start+len(tc.secret) {
				t.Errorf("Scan = %+v, want one %s at [%d:%d]", found, tc.kind, start, start+len(tc.secret))
			}
		})
	}
}

func TestScanLines(t *testing.T) {
	content := "a\n\nAWS_ACCESS_KEY_ID=" + "AK" + "IA" + fake(400, 16, upperNum) + "\nb\n" +
		begin(pk) + "\n" + strings.Join(keyLines(401, 2), "\n") + "\n" + end(pk) + "\n" +
		"x = 1; token = \"" + fake(402, 30, alnum) + "\"\n"
	found := Scan([]byte(content))
	checkFindings(t, []byte(content), found)
	var got []int
	for _, f := range found {
		got = append(got, f.Line)
	}
	if want := []int{3, 6, 10}; !equal(got, want) {
		t.Errorf("lines = %v, want %v (%+v)", got, want, found)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSourceHasNoSecrets checks that the files of this package hold
// nothing that Scan flags: the tests build their secrets at run time.
func TestSourceHasNoSecrets(t *testing.T) {
	names, err := filepath.Glob("*")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue // a directory
		}
		for _, f := range Scan(data) {
			t.Errorf("%s:%d: %s: %s", name, f.Line, f.Kind, f.Reason)
		}
		if reason, ok := SecretFile(name); ok {
			t.Errorf("%s: %s", name, reason)
		}
	}
}

// TestScanManyFindings checks that a file of nothing but tokens is found
// in full, and quickly: resolving overlaps must not be quadratic.
func TestScanManyFindings(t *testing.T) {
	var b strings.Builder
	const n = 50000
	for i := range n {
		b.WriteString("AK" + "IA" + fake(uint64(i), 16, upperNum) + "\n")
	}
	found := Scan([]byte(b.String()))
	if len(found) != n {
		t.Fatalf("Scan found %d, want %d", len(found), n)
	}
	checkFindings(t, []byte(b.String()), found)
}
