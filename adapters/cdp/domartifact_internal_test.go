package cdp

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// A DOM over the bound keeps its start, cut after its secrets are replaced
// (a secret across the bound must not leave its first characters) and
// before the tag the bound falls in; total is the whole text's size.
func TestDOMArtifactKeepsAValidStart(t *testing.T) {
	is := is.New(t)
	red := strings.NewReplacer("s3cr3t-value", "[REDACTED:pw]")
	head := "<html><body>" + strings.Repeat("<p>é</p>", (maxDOMArtifactBytes-100)/9)
	html := head + strings.Repeat("x", maxDOMArtifactBytes-len(head)-4) + "s3cr3t-value<b>tail</b>" + strings.Repeat("<i>y</i>", 100) + "</body></html>"
	kept, total, cut := domArtifact(html, red)
	is.True(cut)
	whole := red.Replace(html)
	is.Equal(total, len(whole))
	is.True(len(kept) <= maxDOMArtifactBytes)
	is.True(strings.HasPrefix(whole, string(kept)))
	is.True(!strings.Contains(string(kept), "s3cr"))

	// The bound falls inside a tag: the cut is before the tag.
	html = "<html>" + strings.Repeat("x", maxDOMArtifactBytes-8) + `<span class="a">tail</span></html>`
	kept, total, cut = domArtifact(html, red)
	is.True(cut)
	is.Equal(total, len(html))
	is.Equal(string(kept), html[:maxDOMArtifactBytes-2])

	small := "<html>s3cr3t-value</html>"
	kept, total, cut = domArtifact(small, red)
	is.True(!cut)
	is.Equal(string(kept), "<html>[REDACTED:pw]</html>")
	is.Equal(total, 0)
}
