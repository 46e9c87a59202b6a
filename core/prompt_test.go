package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

func TestPromptsRender(t *testing.T) {
	is := is.New(t)
	ps := core.Prompts()
	is.Equal(len(ps), 5)
	for i, p := range ps {
		if i > 0 {
			is.True(ps[i-1].Name < p.Name) // sorted
		}
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a.Required {
				args[a.Name] = "/tmp/value-of-" + a.Name
			}
		}
		m, err := core.RenderPrompt(p.Name, args)
		is.NoErr(err)
		is.Equal(m.Description, p.Description)
		for _, v := range args {
			is.True(strings.Contains(m.Text, v)) // each argument is used
		}
		for _, a := range p.Arguments {
			if !a.Required {
				continue
			}
			missing := map[string]string{}
			for k, v := range args {
				if k != a.Name {
					missing[k] = v
				}
			}
			_, err := core.RenderPrompt(p.Name, missing)
			var ce *core.Error
			is.True(errors.As(err, &ce))
			is.Equal(ce.Code, core.CodeInvalidRequest)
		}
		args["nonesuch"] = "x"
		_, err = core.RenderPrompt(p.Name, args)
		is.True(err != nil) // an unknown argument
	}
	_, err := core.RenderPrompt("nonesuch", nil)
	is.True(errors.Is(err, core.ErrPromptNotFound))
}

func TestResourcesAreInTheIdentity(t *testing.T) {
	is := is.New(t)
	rs := core.Resources()
	is.Equal(len(rs), 2)
	is.True(rs[0].URI < rs[1].URI)
	ts := core.ResourceTemplates()
	for i := 1; i < len(ts); i++ {
		is.True(ts[i-1].URITemplate < ts[i].URITemplate)
	}
	cat, err := core.NewCatalog(nil)
	is.NoErr(err)
	id := cat.Identity()
	is.True(id.Prompts != core.MustDigest([]any{})) // the prompts are digested
	is.True(id.Resources != "" && id.Combined != id.Tools)
}
