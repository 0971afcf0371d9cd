//go:build !faultinject

package fault

// Enabled reports whether this binary was built with crash injection.
const Enabled = false

// Hit marks a crash-injection point. It does nothing in this build.
func Hit(name string) {}
