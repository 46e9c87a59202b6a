package js_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestImportNamesFromMemberReads: a require or a namespace import does not
// say which exports the file uses; the members read from the module object
// and the keys destructured from it are added to its first import's names.
// Members of a default import, of a member (x.y.z), and of bindings that
// are not modules are not.
func TestImportNamesFromMemberReads(t *testing.T) {
	is := is.New(t)
	f := facts(t, `const api = require('./lib/api');
const { deleteUser, list: listAll } = require('./lib/api');
const sub = require('./lib/api').nested;
import * as ns from './ns.js';
import def from './def.js';
import { named } from './named.js';
const local = {};
api.fetchUser(1);
api["save"]();
api.fetchUser(2);
sub.notAnExport();
ns.helper;
def.notAnExport();
named.notAnExport();
local.notAnImport();
require('./direct.js').run();
`)
	names := map[string]string{}
	for _, im := range f.Imports {
		if _, seen := names[im.Specifier]; !seen {
			names[im.Specifier] = strings.Join(im.Names, ",")
		}
	}
	is.Equal(names["./lib/api"], "deleteUser,list,nested,fetchUser,save") // first use first, each once
	is.Equal(names["./ns.js"], "*,helper")
	is.Equal(names["./def.js"], "default")
	is.Equal(names["./named.js"], "named")
	is.Equal(names["./direct.js"], "run")
	for _, l := range f.Limitations {
		t.Errorf("unexpected limitation %q", l)
	}
}

// TestImportNamesAreBounded: past 64 names per module the rest are counted
// in a limitation, each name once however often it is read.
func TestImportNamesAreBounded(t *testing.T) {
	is := is.New(t)
	var src strings.Builder
	src.WriteString("const m = require('m');\n")
	for i := range 70 {
		fmt.Fprintf(&src, "m.f%d(); m.f%d();\n", i, i)
	}
	f := facts(t, src.String())
	is.Equal(len(f.Imports), 1)
	is.Equal(len(f.Imports[0].Names), 64)
	is.Equal(f.Imports[0].Names[63], "f63")
	is.Equal(len(f.Limitations), 1)
	is.True(strings.HasPrefix(f.Limitations[0], "6 names read from imported modules beyond the first 64"))
}
