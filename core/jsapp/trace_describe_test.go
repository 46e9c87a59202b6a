package jsapp_test

import (
	"reflect"
	"strings"
	"testing"

	"rea/core/jsapp"
	"rea/core/standard"
)

// A trace result's members that only some results hold (coverage.cut_by
// when a limit cut the trace, suggestions when the seed matched nothing)
// are in no required list: the tool's description or result schema names
// each, so an agent reading tools/list knows to look for them.
func TestTraceDescriptionNamesOptionalResults(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	op, ok := cat.Lookup("trace_application_feature")
	if !ok {
		t.Fatal("no trace_application_feature")
	}
	text := op.Description + string(op.Result)
	var optional []string
	var walk func(tp reflect.Type, prefix string)
	walk = func(tp reflect.Type, prefix string) {
		for tp.Kind() == reflect.Pointer || tp.Kind() == reflect.Slice {
			tp = tp.Elem()
		}
		if tp.Kind() != reflect.Struct {
			return
		}
		for f := range tp.Fields() {
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if strings.Contains(opts, "omitempty") {
				optional = append(optional, prefix+name)
				continue // its members come with it
			}
			walk(f.Type, prefix+name+".")
		}
	}
	walk(reflect.TypeFor[jsapp.TraceApplicationFeatureResult](), "")
	if len(optional) == 0 {
		t.Fatal("no optional member found: the walk is broken")
	}
	for _, name := range optional {
		if !strings.Contains(text, name) {
			t.Errorf("trace_application_feature's description and result schema do not name %s", name)
		}
	}
}
