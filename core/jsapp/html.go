package jsapp

import (
	"bytes"
	"cmp"
	"context"
	"path"
	"regexp"
	"slices"
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
		tags, err := st.scriptTagsOf(ctx, f)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		for _, tag := range tags {
			if !tag.module {
				continue
			}
			if s := tag.src; strings.HasPrefix(s, "/") {
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

// scriptTagsOf is the script tags of HTML document f: those scanned from
// the bytes the inventory hashed, or, when the document changed since (or
// was not prefetched), scanned from the document read again.
func (st *jsappState) scriptTagsOf(ctx context.Context, f *jsFile) ([]scriptTag, error) {
	if pf := st.preSrc[f.path]; pf != nil && pf.sha256 == f.sha256 {
		return pf.tags, nil
	}
	doc, err := st.read(ctx, f, jsappMaxHTMLBytes)
	if err != nil {
		return nil, err
	}
	return scriptTags(doc), nil
}

// scriptAttr is one attribute of a start tag, its value quoted or not.
var scriptAttr = regexp.MustCompile(`(?is)(?:^|\s)(src|type)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`)

// scriptTag is a <script src> start tag a browser runs: its src without
// query or fragment, the offset of the src value in the document, and
// whether it is type="module".
type scriptTag struct {
	src    string
	offset int
	module bool
	// line (1-based) and column (0-based, UTF-16 units) of offset, as
	// positionsAt counts them in a JavaScript file.
	line, column int64
}

// scriptTags returns the <script src> start tags of an HTML document that
// a browser runs, leaving out srcs with a scheme (http:, data:, blob:) or a
// host. The tags are found
// by a scan from each "<" (no regular expression runs over the whole
// document). A tag that a browser does not run is skipped:
//   - inside a comment: <!-- ... --> and, as a browser reads them, <!...>
//     (a doctype, or a bogus comment that the first > ends);
//   - inside another element's text, which a browser does not read as
//     tags: a <script>'s (scriptTextEnd), the raw text of <style>, <xmp>,
//     <iframe>, <noembed>, <noframes> and <noscript> (scripts run, so it is
//     not parsed), of <title> and <textarea>, and all that follows
//     <plaintext>;
//   - inside a <template>, whose content is parsed but not run.
func scriptTags(doc []byte) []scriptTag {
	tags := scanScriptTags(doc)
	if len(tags) == 0 {
		return tags
	}
	offs := make([]int64, len(tags))
	for i, t := range tags {
		offs[i] = int64(t.offset)
	}
	pos := positionsAt(doc, offs)
	for i := range tags {
		j, ok := slices.BinarySearchFunc(pos, int64(tags[i].offset), func(c callPosition, off int64) int { return cmp.Compare(c.off, off) })
		if ok {
			tags[i].line, tags[i].column = int64(pos[j].line)+1, int64(pos[j].col)
		}
	}
	return tags
}

// scanScriptTags is scriptTags without their lines and columns.
func scanScriptTags(doc []byte) []scriptTag {
	var out []scriptTag
	template := 0 // the <template> elements open
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
		if i < len(doc) && doc[i] == '/' {
			if template > 0 && tagNamed(doc[i-1:], "</template") {
				template--
			}
			continue
		}
		name := rawTextTag(doc[i:])
		if name == "" {
			continue
		}
		end := bytes.IndexByte(doc[i:], '>')
		if end < 0 {
			return out
		}
		tagAt := i + len(name)
		tag := doc[tagAt : i+end]
		i += end + 1
		switch name {
		case "template":
			template++
			continue
		case "plaintext":
			return out
		case "script":
		default:
			k := rawTextEnd(doc[i:], name)
			if k < 0 {
				return out
			}
			i += k
			continue
		}
		// A script's own text: no tag in it is read.
		k := scriptTextEnd(doc[i:])
		if k < 0 {
			k = len(doc) - i
		}
		i += k
		if template > 0 {
			continue
		}
		var src, typ string
		at := -1
		for _, m := range scriptAttr.FindAllSubmatchIndex(tag, -1) {
			v, vat := "", -1
			for g := 2; g <= 4; g++ {
				if m[2*g] >= 0 {
					v, vat = string(tag[m[2*g]:m[2*g+1]]), m[2*g]
				}
			}
			if strings.EqualFold(string(tag[m[2]:m[3]]), "src") {
				src, at = v, tagAt+vat
			} else {
				typ = v
			}
		}
		src = strings.TrimSpace(src)
		if k := strings.IndexAny(src, "?#"); k >= 0 {
			src = src[:k]
		}
		if src == "" || strings.Contains(src, ":") || strings.HasPrefix(src, "//") {
			continue
		}
		out = append(out, scriptTag{src: src, offset: at, module: strings.EqualFold(strings.TrimSpace(typ), "module")})
	}
}

// rawTextTags are the start tags whose element's text a browser reads as
// text, not tags (or, for template, does not run), as HTML's tree builder
// switches its tokenizer for them.
var rawTextTags = []string{"script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "title", "textarea", "plaintext", "template"}

// rawTextTag returns the name, in lower case, of the rawTextTags start tag
// that rest (the text after "<") opens, or "".
func rawTextTag(rest []byte) string {
	n := 0 // the name's length; none of rawTextTags is longer than 9
	for n < len(rest) && n < 10 && !isTagEnd(rest[n]) {
		n++
	}
	if n == len(rest) || n < 3 || n > 9 {
		return ""
	}
	for _, name := range rawTextTags {
		if len(name) == n && bytes.EqualFold(rest[:n], []byte(name)) {
			return name
		}
	}
	return ""
}

// tagNamed reports whether b starts with tag ("<script", "</style"), in
// any case, and a byte that ends a tag's name.
func tagNamed(b []byte, tag string) bool {
	return len(b) > len(tag) && bytes.EqualFold(b[:len(tag)], []byte(tag)) && isTagEnd(b[len(tag)])
}

// rawTextEnd returns the offset in text of the end tag "</name" that ends
// a raw text or RCDATA element, or -1 when none does (the element runs to
// the end of the document).
func rawTextEnd(text []byte, name string) int {
	end := "</" + name
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte("</"))
		if j < 0 {
			return -1
		}
		i += j
		if tagNamed(text[i:], end) {
			return i
		}
		i += 2
	}
}

// scriptTextEnd returns the offset in text of the "</script" that ends a
// script's text, or -1. As a browser's tokenizer reads it, "<!--" in a
// script escapes its text until "-->", and a "<script" in escaped text
// starts a nested escape, in which "</script" ends only that escape (so
// document.write("<!--<script></script>-->") does not end the script).
func scriptTextEnd(text []byte) int {
	const (
		plain = iota
		escaped
		nested
	)
	state := plain
	for i := 0; i < len(text); {
		j := bytes.IndexAny(text[i:], "<-")
		if j < 0 {
			return -1
		}
		i += j
		switch {
		case state == plain && bytes.HasPrefix(text[i:], []byte("<!--")):
			state = escaped
			i += 2 // the dashes also close it: <!--> and <!---> escape nothing
			continue
		case state != plain && bytes.HasPrefix(text[i:], []byte("-->")):
			state = plain
			i += 3
			continue
		case state != nested && tagNamed(text[i:], "</script"):
			return i
		case state == escaped && tagNamed(text[i:], "<script"):
			state = nested
			i += len("<script")
			continue
		case state == nested && tagNamed(text[i:], "</script"):
			state = escaped
			i += len("</script")
			continue
		}
		i++
	}
	return -1
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

// moduleScriptSrcs returns the srcs of the <script type="module"> tags
// scriptTags finds.
func moduleScriptSrcs(doc []byte) []string {
	var out []string
	for _, t := range scanScriptTags(doc) {
		if t.module {
			out = append(out, t.src)
		}
	}
	return out
}
