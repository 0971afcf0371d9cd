//go:build !unix

package regfile

func read(path string, max int64) ([]byte, error) { return readFile(path, max) }
