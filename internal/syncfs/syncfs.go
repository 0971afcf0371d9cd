// Package syncfs flushes a whole file system to stable storage with one call.
//
// The object store writes a batch of objects without an fsync per file and
// then makes the whole batch durable at once before any ref can name it; on
// Linux syncfs(2) does that for the file system holding the store. Elsewhere
// Supported is false and callers fall back to an fsync per file.
package syncfs
