package secrets

// Kind names the format of a secret. The zero value is not a kind.
type Kind string

// The kinds of secret Scan finds. Their text appears in redaction markers
// and may be stored, so it never changes.
const (
	PrivateKey         Kind = "private-key"           // PEM, OpenSSH or OpenPGP private key block; the value is its body
	AWSAccessKeyID     Kind = "aws-access-key-id"     // AKIA… or ASIA… key id
	AWSSecretAccessKey Kind = "aws-secret-access-key" // 40 base64 characters assigned to aws_secret_access_key
	GitHubToken        Kind = "github-token"          // ghp_, gho_, ghu_, ghs_, ghr_, github_pat_
	GitLabToken        Kind = "gitlab-token"          // glpat-
	SlackToken         Kind = "slack-token"           // xoxb-, xoxp-, xoxa-, xoxr-, xoxs-
	SlackWebhook       Kind = "slack-webhook"         // https://hooks.slack.com/services/…
	StripeKey          Kind = "stripe-key"            // sk_live_, rk_live_
	GoogleAPIKey       Kind = "google-api-key"        // AIza…
	OpenAIKey          Kind = "openai-key"            // sk-…, sk-proj-…
	AnthropicKey       Kind = "anthropic-key"         // sk-ant-…
	NPMToken           Kind = "npm-token"             // npm_…
	JWT                Kind = "jwt"                   // JSON Web Token whose header names an "alg"
	Assignment         Kind = "assigned-secret"       // random-looking value assigned to a password, secret, token or API key
)

// String returns the kind's text, as it appears in a redaction marker.
func (k Kind) String() string { return string(k) }

// marker returns the redaction marker that replaces a secret of kind k.
func (k Kind) marker() string { return "[REDACTED:" + string(k) + "]" }

// priority orders kinds when two findings overlap: a private key block
// contains arbitrary base64, and a token format is more certain than the
// assignment heuristic that may find the same value.
func (k Kind) priority() int {
	switch k {
	case PrivateKey:
		return 3
	case Assignment:
		return 1
	default:
		return 2
	}
}

// Finding is one secret found in some content.
type Finding struct {
	Kind Kind
	// Line is the 1-based line on which the secret value starts.
	Line int
	// Start and End are the byte offsets of the secret value:
	// content[Start:End]. Start < End.
	Start, End int
	// Reason says what was found, for people: "AWS access key id",
	// "RSA PRIVATE KEY block", "secret assigned to DB_PASSWORD". It never
	// contains the secret itself.
	Reason string
}
