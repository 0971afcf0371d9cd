package secrets

import "testing"

func TestSecretFile(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{".env", true},
		{"app/.env", true},
		{".env.local", true},
		{"deploy/.env.production", true},
		{".env.example", false},
		{".env.sample", false},
		{".env.template", false},
		{".env.dist", false},
		{".envrc", false},
		{"env.go", false},
		{"certs/server.pem", true},
		{"tls/server.key", true},
		{"TLS/SERVER.KEY", true},
		{"keystore.p12", true},
		{"cert.pfx", true},
		{"android/release.keystore", true},
		{"truststore.jks", true},
		{"keys.go", false},
		{"monkey", false},
		{"id_rsa", true},
		{"home/.ssh/id_ed25519", true},
		{".ssh/id_ecdsa", true},
		{"id_dsa", true},
		{"id_rsa.pub", false},
		{".ssh/id_ed25519.pub", false},
		{".ssh/known_hosts", false},
		{".npmrc", true},
		{".pypirc", true},
		{".netrc", true},
		{".git-credentials", true},
		{".gitconfig", false},
		{".aws/credentials", true},
		{"home/.aws/credentials.json", true},
		{".aws/config", false},
		{"credentials", false},
		{"docs/credentials.json", false},
		{"internal/credentials/credentials.go", false},
		{".config/gcloud/application_default_credentials.json", true},
		{".config/gcloud/credentials.db", true},
		{"my-project-1a2b3c4d5e6f.json", true},
		{"keys/prod-service-account.json", true},
		{"serviceAccountKey.json", true},
		{"client_secret_1234.apps.googleusercontent.com.json", true},
		{"package-lock.json", false},
		{"tsconfig.json", false},
		{"web/.htpasswd", true},
		{"infra/terraform.tfstate", true},
		{"infra/terraform.tfstate.backup", true},
		{"prod.tfstate", true},
		{"main.tf", false},
		{"config/secrets.yml", true},
		{"secrets.yaml", true},
		{"secrets.go", false},
		{"", false},
		{"dir/", false},
	}
	for _, tc := range tests {
		reason, ok := SecretFile(tc.path)
		if ok != tc.want || ok && reason == "" || !ok && reason != "" {
			t.Errorf("SecretFile(%q) = %q, %v; want %v", tc.path, reason, ok, tc.want)
		}
	}
}
