package text_test

import (
	"testing"

	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/index/text/texttest"
)

func TestMemIndexConformance(t *testing.T) {
	texttest.Reader(t, func(tb testing.TB, docs []string) text.Reader {
		m := text.NewMemIndex()
		for _, d := range docs {
			m.Add(d)
		}
		return m
	})
}
