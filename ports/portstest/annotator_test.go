package portstest_test

import (
	"context"
	"errors"
	"testing"

	"rea/ports"
	"rea/ports/portstest"
)

func TestAnnotatorFakePassesRunAnnotator(t *testing.T) {
	portstest.RunAnnotator(t, &portstest.AnnotatorFake{Ranges: [][2]uint64{{0x1000, 0x2000}}}, 0x1010, 0x9000)
	portstest.RunAnnotator(t, &portstest.AnnotatorFake{Ranges: [][2]uint64{{0x1000, 0x2000}}, Unsupported: []ports.AnnotationKind{ports.AnnotationBookmark}}, 0x1010, 0x9000)
}

// brokenAnnotator forgets removals: RunAnnotator must notice.
type brokenAnnotator struct{ portstest.AnnotatorFake }

func (b *brokenAnnotator) RemoveAnnotation(ctx context.Context, kind ports.AnnotationKind, addr uint64) error {
	return nil
}

func TestRunAnnotatorCatchesABrokenEngine(t *testing.T) {
	ft := &testing.T{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		portstest.RunAnnotator(ft, &brokenAnnotator{portstest.AnnotatorFake{Ranges: [][2]uint64{{0x1000, 0x2000}}}}, 0x1010, 0x9000)
	}()
	<-done
	if !ft.Failed() {
		t.Fatal("RunAnnotator passed an engine that never removes annotations")
	}
	f := &portstest.AnnotatorFake{Ranges: [][2]uint64{{0x1000, 0x2000}}}
	if err := f.RemoveAnnotation(t.Context(), ports.AnnotationBookmark, 0x1010); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("removing an absent bookmark = %v", err)
	}
}
