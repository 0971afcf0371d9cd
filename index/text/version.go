package text

// Version identifies what Tokenize emits: the terms, their positions and
// the stop words. An index built with one version gives wrong answers to
// queries tokenized with another, so the index records it and rebuilds
// when it changes. Any change to the output of Tokenize for some input
// MUST increment it.
//
//  1. First version (issue #6).
const Version = 1
