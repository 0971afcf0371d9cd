// Package fault provides crash-injection points for tests of the write paths.
//
// A point is a named place in a write path, such as "object.temp-written" or
// "refs.head-renamed". In ordinary builds Hit is an empty function that the
// compiler removes. In builds with the "faultinject" tag, the environment
// variable CTX_FAULT selects a point and a count, and the process kills
// itself with SIGKILL the n-th time execution reaches a matching point:
//
//	CTX_FAULT=object.renamed:3   crash at the third "object.renamed"
//	CTX_FAULT=*:17               crash at the 17th point of any name
//
// A kill by SIGKILL runs no deferred code and flushes nothing, which is what
// a crash does to a process. Crash tests sweep n over every point a command
// reaches and check that the store stays readable after each crash.
package fault
