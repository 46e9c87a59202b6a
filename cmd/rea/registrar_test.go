package main

import "testing"

// TestRegistrarResolvesOnFirstUse: building the registrar, which every
// command does, looks nothing up; setup, uninstall and doctor resolve this
// binary when they first use it.
func TestRegistrarResolvesOnFirstUse(t *testing.T) {
	r := newRegistrar("1.2.3")
	if r.want.Command != "" || r.wantErr != nil {
		t.Fatalf("resolved at construction: %+v %v", r.want, r.wantErr)
	}
	if r.resolve(); r.wantErr != nil || r.want.Command == "" || r.want.Version != "1.2.3" {
		t.Fatalf("after resolve: %+v %v", r.want, r.wantErr)
	}
}
