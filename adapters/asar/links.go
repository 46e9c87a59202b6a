package asar

import (
	"fmt"
	"strings"
)

// maxLinkHops bounds how many links one resolution may pass through.
const maxLinkHops = 255

// resolveLink resolves a link to the non-link node it names, or nil when the
// target does not exist inside the archive. Targets are validated relative
// paths, so resolution can never leave the archive; cycles are errors.
func resolveLink(root, n *node, hops int) (*node, error) {
	switch n.state {
	case 2:
		return n.target, nil
	case 1:
		return nil, &FormatError{Offset: n.at, Reason: ReasonLink, Path: n.path, Msg: fmt.Sprintf("link cycle through %q", n.path)}
	}
	if hops > maxLinkHops {
		return nil, &FormatError{Offset: n.at, Reason: ReasonLink, Path: n.path, Msg: fmt.Sprintf("more than %d links in a chain", maxLinkHops)}
	}
	n.state = 1
	t, err := walk(root, n.link, hops+1)
	if err != nil {
		return nil, err
	}
	n.target, n.state = t, 2
	return t, nil
}

// walk follows p from root, resolving every link on the way including the
// last. It returns nil, nil when p does not exist.
func walk(root *node, p string, hops int) (*node, error) {
	cur := root
	if p == "" {
		return cur, nil
	}
	for c := range strings.SplitSeq(p, "/") {
		if cur.typ != TypeDir {
			return nil, nil
		}
		next := cur.children[c]
		if next == nil || next.rejected != "" {
			return nil, nil
		}
		if next.typ == TypeLink {
			t, err := resolveLink(root, next, hops)
			if err != nil || t == nil {
				return nil, err
			}
			next = t
		}
		cur = next
	}
	return cur, nil
}

// lookup finds the node at a valid fs path ("." is the root). Links before the
// last element are always followed; the last one only when follow is set.
// Links were all resolved by NewReader, so lookup is a plain walk.
func lookup(root *node, name string, follow bool) *node {
	if name == "." {
		return root
	}
	cur := root
	rest := name
	for rest != "" {
		c := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			c, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if cur.typ != TypeDir {
			return nil
		}
		next := cur.children[c]
		if next == nil || next.rejected != "" {
			return nil
		}
		if next.typ == TypeLink && (rest != "" || follow) {
			next = next.target
			if next == nil {
				return nil
			}
		}
		cur = next
	}
	return cur
}

// relativeLink expresses a link's root-relative target relative to the
// directory holding the link, as a symlink on disk would store it.
func relativeLink(linkPath, target string) string {
	dir := ""
	if i := strings.LastIndexByte(linkPath, '/'); i >= 0 {
		dir = linkPath[:i]
	}
	var from, to []string
	if dir != "" {
		from = strings.Split(dir, "/")
	}
	if target != "" {
		to = strings.Split(target, "/")
	}
	i := 0
	for i < len(from) && i < len(to) && from[i] == to[i] {
		i++
	}
	parts := make([]string, 0, len(from)-i+len(to)-i)
	for range from[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, to[i:]...)
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}
