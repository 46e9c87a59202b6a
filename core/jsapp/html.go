package jsapp

import (
	"bytes"
	"context"
	"path"
	"regexp"
	"strings"
)

// htmlModuleScripts returns the files of the app that its HTML documents
// load with <script type="module" src="...">, which a browser runs as ES
// modules whatever their name. A src is relative to its document; one
// starting with / is looked for under the document's directory (a bundler
// writes the page at its site's root) and then under its package's. A
// document that cannot be read is passed over: the build reports what it
// needs of it.
func (st *jsappState) htmlModuleScripts(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	for _, p := range st.order {
		f := st.files[p]
		if f.kind != "html" || f.quarant || f.size > jsappMaxHTMLBytes {
			continue
		}
		var srcs []string
		if pf := st.preSrc[p]; pf != nil && pf.sha256 == f.sha256 {
			srcs = pf.srcs
		} else {
			doc, err := st.read(ctx, f, jsappMaxHTMLBytes)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			srcs = moduleScriptSrcs(doc)
		}
		for _, s := range srcs {
			if strings.HasPrefix(s, "/") {
				bases := []string{path.Dir(p)}
				if pkg := st.nearestPackage(p); pkg != nil {
					bases = append(bases, pkg.dir)
				}
				for _, base := range bases {
					if t := path.Join(base, s); st.assets[t] != nil {
						out[t] = true
						break
					}
				}
			} else if t := path.Join(path.Dir(p), s); st.assets[t] != nil {
				out[t] = true
			}
		}
	}
	return out, nil
}

// scriptAttr is one attribute of a start tag, its value quoted or not.
var scriptAttr = regexp.MustCompile(`(?is)(?:^|\s)(src|type)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`)

// moduleScriptSrcs returns the src of each <script type="module"> start
// tag in an HTML document, without its query or fragment, leaving out
// URLs with a scheme (http:, data:, blob:) or a host. The tags are found by a scan for "<script"
// (no regular expression runs over the whole document); a tag inside a
// comment, which a browser does not run, is skipped: <!-- ... --> and, as
// a browser reads them, <!...> (a doctype, or a bogus comment that the
// first > ends).
func moduleScriptSrcs(doc []byte) []string {
	var out []string
	for i := 0; ; {
		j := bytes.IndexByte(doc[i:], '<')
		if j < 0 {
			return out
		}
		i += j + 1
		if i < len(doc) && doc[i] == '!' {
			end := -1
			if bytes.HasPrefix(doc[i+1:], []byte("--")) {
				end = commentEnd(doc[i+1:])
			} else if k := bytes.IndexByte(doc[i+1:], '>'); k >= 0 {
				end = k + 1
			}
			if end < 0 {
				return out
			}
			i += 1 + end
			continue
		}
		if len(doc)-i < 7 || !bytes.EqualFold(doc[i:i+6], []byte("script")) || !isTagEnd(doc[i+6]) {
			continue
		}
		end := bytes.IndexByte(doc[i:], '>')
		if end < 0 {
			return out
		}
		tag := doc[i+6 : i+end]
		i += end
		var src, typ string
		for _, m := range scriptAttr.FindAllSubmatch(tag, -1) {
			v := string(m[2]) + string(m[3]) + string(m[4])
			if strings.EqualFold(string(m[1]), "src") {
				src = v
			} else {
				typ = v
			}
		}
		if !strings.EqualFold(strings.TrimSpace(typ), "module") {
			continue
		}
		src = strings.TrimSpace(src)
		if k := strings.IndexAny(src, "?#"); k >= 0 {
			src = src[:k]
		}
		if src == "" || strings.Contains(src, ":") || strings.HasPrefix(src, "//") {
			continue
		}
		out = append(out, src)
	}
}

// isTagEnd reports a byte that may end a tag's name.
func isTagEnd(c byte) bool {
	return c == '>' || c == '/' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// commentEnd returns the offset just past the end of a comment in rest,
// the text after "<!" (which starts with "--"), or -1 when the comment runs
// to the end of the document. As in a browser, the comment ends at the
// first "-->" or "--!>", the "--" of the opening included, so <!--> and
// <!---> are empty comments.
func commentEnd(rest []byte) int {
	for k := 0; ; {
		j := bytes.Index(rest[k:], []byte("--"))
		if j < 0 {
			return -1
		}
		k += j + 2
		switch {
		case bytes.HasPrefix(rest[k:], []byte(">")):
			return k + 1
		case bytes.HasPrefix(rest[k:], []byte("!>")):
			return k + 2
		}
		k-- // "--->": the next "--" starts one further on
	}
}
