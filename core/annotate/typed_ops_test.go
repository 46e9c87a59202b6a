package annotate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/annotate"
	"rea/ports/portstest"
)

// strictInvoke calls op with a typed input and decodes its result into Out,
// refusing a property Out does not declare.
func strictInvoke[Out, In any](t *testing.T, s *core.Session, op string, in In) Out {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Call(context.Background(), op, b, nil)
	if err != nil {
		t.Fatalf("%s %s: %v", op, b, err)
	}
	raw := []byte(nil)
	if res.Evidence != nil {
		raw = res.Evidence.NormalizedResult
	} else if raw, err = json.Marshal(res.Value); err != nil {
		t.Fatal(err)
	}
	var out Out
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%s: result %s does not decode into %T: %v", op, raw, out, err)
	}
	return out
}

func TestTypedInputsAndResults(t *testing.T) {
	is := is.New(t)
	s := session(t, portstest.NewFake())

	nav := strictInvoke[annotate.NavigationContextResult](t, s, "get_navigation_context", annotate.DocumentInput{})
	is.Equal(nav.Store, "rea-overlay")
	is.Equal(len(nav.Modes), 2)
	is.True(nav.Address != nil && *nav.Address == "0x1000")
	is.True(nav.Procedure != nil && nav.Procedure.Name == "puts@plt")

	doc := strictInvoke[annotate.CurrentDocumentResult](t, s, "current_document", annotate.CurrentDocumentInput{})
	sd := strictInvoke[annotate.SetCurrentDocumentResult](t, s, "set_current_document", annotate.SetCurrentDocumentInput{Document: doc.Document})
	is.Equal(sd.PreviousDocument, doc.Document)

	g := strictInvoke[annotate.GotoAddressResult](t, s, "goto_address", annotate.AddressInput{Address: "main"})
	is.True(g.Address != nil && *g.Address == "0x1030")
	is.True(g.PreviousAddress != nil && *g.PreviousAddress == "0x1000")
	ca := strictInvoke[annotate.CurrentAddressResult](t, s, "current_address", annotate.DocumentInput{})
	is.Equal(*ca.Address, "0x1030")
	cp := strictInvoke[annotate.CurrentProcedureResult](t, s, "current_procedure", annotate.DocumentInput{})
	is.Equal(cp.Procedure.Name, "main")

	m := strictInvoke[annotate.AnnotationMutation](t, s, "set_address_name", annotate.SetAddressNameInput{Address: "main", Name: "entry_logic"})
	is.Equal(len(m.Changes), 1)
	is.Equal(*m.Changes[0].Value, "entry_logic")
	is.Equal(m.Changes[0].Revision, 1)
	m = strictInvoke[annotate.AnnotationMutation](t, s, "set_addresses_names", annotate.SetAddressesNamesInput{Names: map[string]string{"0x1010": "helper_two"}})
	is.Equal(m.Changes[0].Address, "0x1010")
	strictInvoke[annotate.AnnotationMutation](t, s, "set_comment", annotate.SetCommentInput{Address: "0x1030", Comment: "above"})
	strictInvoke[annotate.AnnotationMutation](t, s, "set_inline_comment", annotate.SetCommentInput{Address: "0x1030", Comment: "beside"})
	strictInvoke[annotate.AnnotationMutation](t, s, "set_bookmark", annotate.SetBookmarkInput{Address: "0x1030", Name: "start"})

	c := strictInvoke[annotate.CommentResult](t, s, "comment", annotate.CommentInput{}) // the cursor's address
	is.Equal(c.Address, "0x1030")
	is.Equal(*c.Comment, "above")
	c = strictInvoke[annotate.CommentResult](t, s, "inline_comment", annotate.CommentInput{Address: "entry_logic"})
	is.Equal(*c.Comment, "beside")

	ac := strictInvoke[annotate.AddressContextResult](t, s, "inspect_address_context", annotate.AddressInput{Address: "0x1030"})
	is.Equal(ac.Facets.Name.Status, "available")
	is.Equal(*ac.Facets.Name.Value.AnalystName, "entry_logic")
	is.Equal(*ac.Facets.Name.Value.EngineName, "main")
	is.Equal(ac.Facets.Procedure.Value.Name, "entry_logic")
	is.Equal(*ac.Facets.Comment.Value, "above")
	is.Equal(*ac.Facets.InlineComment.Value, "beside")
	is.Equal(ac.Facets.Bookmark.Value.Name, "start")
	is.Equal(ac.Facets.Bookmark.Reason, nil)

	bm := strictInvoke[annotate.ListBookmarksResult](t, s, "list_bookmarks", annotate.DocumentInput{})
	is.Equal(bm.Total, 1)
	is.Equal(bm.Items[0].Procedure.Name, "entry_logic")
	m = strictInvoke[annotate.AnnotationMutation](t, s, "unset_bookmark", annotate.AddressInput{Address: "0x1030"})
	is.Equal(m.Changes[0].Value, nil)
	is.Equal(*m.Changes[0].Previous, "start")
	ac = strictInvoke[annotate.AddressContextResult](t, s, "inspect_address_context", annotate.AddressInput{Address: "0x1030"})
	is.Equal(ac.Facets.Bookmark.Status, "available")
	is.Equal(ac.Facets.Bookmark.Value, nil) // none there
}
