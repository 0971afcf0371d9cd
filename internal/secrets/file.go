package secrets

import (
	"path"
	"strings"
)

// secretNames are the names of files that hold credentials by convention.
var secretNames = map[string]string{
	".env":                                 "environment file",
	"id_rsa":                               "SSH private key",
	"id_dsa":                               "SSH private key",
	"id_ecdsa":                             "SSH private key",
	"id_ed25519":                           "SSH private key",
	"id_ecdsa_sk":                          "SSH private key",
	"id_ed25519_sk":                        "SSH private key",
	".npmrc":                               "npm configuration (may hold auth tokens)",
	".pypirc":                              "PyPI configuration (may hold passwords)",
	".netrc":                               "netrc credentials file",
	"_netrc":                               "netrc credentials file",
	".git-credentials":                     "git credential store",
	".htpasswd":                            "htpasswd password file",
	"terraform.tfstate":                    "Terraform state (holds resource secrets)",
	"terraform.tfstate.backup":             "Terraform state (holds resource secrets)",
	"secrets.yml":                          "secrets file",
	"secrets.yaml":                         "secrets file",
	"application_default_credentials.json": "Google Cloud credentials",
}

// secretExts are extensions of key and key store files.
var secretExts = map[string]string{
	".pem":      "PEM key or certificate file",
	".key":      "private key file",
	".p12":      "PKCS #12 key store",
	".pfx":      "PKCS #12 key store",
	".keystore": "Java key store",
	".jks":      "Java key store",
	".tfstate":  "Terraform state (holds resource secrets)",
}

// envTemplates are the suffixes of .env files that are committed on
// purpose, as templates without values.
var envTemplates = map[string]bool{"example": true, "sample": true, "template": true, "dist": true}

// SecretFile reports whether file, a slash-separated path relative to any
// root, holds credentials by convention, and why. It looks at the path
// only: .env and .env.* (but not .env.example, .env.sample,
// .env.template or .env.dist), key and key store files (*.pem, *.key,
// *.p12, *.pfx, *.keystore, *.jks), SSH private keys (id_rsa, id_ed25519,
// …, but not their .pub), .npmrc, .pypirc, .netrc, .git-credentials,
// .htpasswd, Terraform state, secrets.yml, AWS's .aws/credentials, and
// Google Cloud credentials and service account keys.
func SecretFile(file string) (reason string, ok bool) {
	dir, name := path.Split(file)
	if reason, ok := secretNames[name]; ok {
		return reason, true
	}
	if rest, ok := strings.CutPrefix(name, ".env."); ok {
		if envTemplates[strings.ToLower(rest)] || rest == "" {
			return "", false
		}
		return "environment file", true
	}
	if reason, ok := secretExts[strings.ToLower(path.Ext(name))]; ok {
		return reason, true
	}
	parent := path.Base(dir)
	switch {
	case parent == ".aws" && (name == "credentials" || name == "credentials.json"):
		return "AWS credentials file", true
	case parent == "gcloud" && (name == "credentials.db" || name == "access_tokens.db" || name == "credentials.json"):
		return "Google Cloud credentials", true
	case strings.HasPrefix(name, "client_secret") && strings.HasSuffix(name, ".json"):
		return "OAuth client secret", true
	case isServiceAccountKey(name):
		return "Google Cloud service account key", true
	}
	return "", false
}

// isServiceAccountKey reports whether name is what the Google Cloud
// console calls a service account key it downloads,
// <project-id>-<12 hex digits>.json, or a name that says so.
func isServiceAccountKey(name string) bool {
	base, ok := strings.CutSuffix(strings.ToLower(name), ".json")
	if !ok {
		return false
	}
	if strings.Contains(strings.NewReplacer("-", "", "_", "").Replace(base), "serviceaccount") {
		return true
	}
	project, hex, ok := cutLast(base, "-")
	if !ok || len(hex) != 12 || len(project) < 6 || len(project) > 30 {
		return false
	}
	for _, c := range []byte(hex) {
		if !is(c, cDigit) && (c < 'a' || c > 'f') {
			return false
		}
	}
	// A project id: lower case letters, digits and hyphens, starting with
	// a letter.
	if project[0] < 'a' || project[0] > 'z' {
		return false
	}
	for _, c := range []byte(project) {
		if !is(c, cLower|cDigit) && c != '-' {
			return false
		}
	}
	return true
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
