package cdp

import (
	"encoding/json"
	"testing"
)

// A DOM capture numbers the nodes of all its documents (a page and its
// frames) in one sequence: a frame's nodes point at parents within that
// frame, shifted by the nodes before it; a root has no parent, and
// indexes past the snapshot's arrays read as absent.
func TestSnapshotNodesOfSeveralDocuments(t *testing.T) {
	var snap snapshot
	err := json.Unmarshal([]byte(`{"strings":["#document","HTML","text","héllo"],
		"documents":[
		 {"documentURL":0,"nodes":{"parentIndex":[-1,0],"nodeType":[9,1],"nodeName":[0,1],"nodeValue":[-1,-1]}},
		 {"documentURL":0,"nodes":{"parentIndex":[-1,0,1],"nodeType":[9,1,3],"nodeName":[0,1,2],"nodeValue":[-1,-1,3]}}]}`), &snap)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		index, parent, typ, valueLen int
		name                         string
	}
	var got []want
	base := 0
	for _, d := range snap.Documents {
		n := len(d.Nodes.ParentIndex)
		for i := range n {
			x := snap.node(&d, i, base)
			got = append(got, want{x.Index, x.ParentIndex, x.NodeType, x.NodeValueLength, x.NodeName})
		}
		base += n
	}
	for i, w := range []want{{0, -1, 9, 0, "#document"}, {1, 0, 1, 0, "HTML"}, {2, -1, 9, 0, "#document"}, {3, 2, 1, 0, "HTML"}, {4, 3, 3, 5, "text"}} {
		if i >= len(got) || got[i] != w {
			t.Fatalf("nodes %+v, want node %d = %+v", got, i, w)
		}
	}
	// A node past the end of the type and name arrays.
	d := snap.Documents[0]
	d.Nodes.ParentIndex = append(d.Nodes.ParentIndex, 7)
	if x := snap.node(&d, 2, 10); x.ParentIndex != 17 || x.NodeType != 0 || x.NodeName != "" || x.NodeValueLength != 0 {
		t.Fatalf("a node past the arrays: %+v", x)
	}
}
