package jsapp

import (
	"strings"
)

// humanLabel names a node as a reader would look for it: the file for
// assets, maps and add-ons; the original path and the map that lists it
// for a source module; the module id and its bundle for a bundled module;
// name@version for a package; the channel, URL, key or API for the
// application facts. Comparisons and traces print it beside the node ID,
// which stays the identity.
func humanLabel(ix *appIndex, n *Node) string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case "javascript-asset", "source-map", "native-addon":
		if p := n.propString("path"); p != "" {
			return p
		}
	case "source-module":
		orig := normalizeOriginal(n.propString("original_source"))
		if m := sourceMapOf(ix, n); m != "" {
			return orig + " (in " + m + ")"
		}
		return orig
	case "javascript-module":
		id := n.propString("module_id")
		if id == "" {
			id = n.label()
		}
		if orig := mappedOriginal(ix, n); orig != "" && orig != normalizeOriginal(id) {
			id += " = " + orig
		}
		if a := n.propString("asset"); a != "" {
			return id + " (in " + a + ")"
		}
		return id
	case "package":
		name, ver := n.propString("name"), n.propString("version")
		s := name
		if ver != "" {
			s += "@" + ver
		}
		if p := n.propString("path"); p != "" {
			if s == "" {
				return p
			}
			s += " (" + p + ")"
		}
		if s != "" {
			return s
		}
	case "electron-main", "electron-preload", "electron-renderer", "electron-utility":
		return strings.TrimPrefix(n.Kind, "electron-") + " process " + n.propString("path")
	case "browser-window":
		if in := n.propString("created_in"); in != "" {
			return n.label() + " in " + in
		}
	case "context-bridge-api":
		var members []string
		if ms, ok := n.prop("members").([]any); ok {
			for _, m := range ms {
				if s, ok := m.(string); ok {
					members = append(members, s)
				}
			}
		}
		s := "window." + n.propString("world_key")
		if len(members) > 0 {
			s += " {" + strings.Join(members, ", ") + "}"
		}
		return s
	case "ipc-channel":
		return "ipc " + n.propString("channel")
	case "javascript-function":
		// An IPC handler (ipcHandler): by its name, else by the call
		// that registers it, in its file.
		return "function " + n.label() + " in " + n.propString("path")
	case "native-export":
		return pathBase(n.propString("addon")) + "#" + n.propString("export")
	case "storage":
		if e := n.propString("expression"); e != "" {
			// A computed key, by its expression in the source:
			// fs ${path.join(dir, name)}.
			return n.propString("area") + " " + e
		}
		if n.propString("key") == "${}" {
			// An analysis before computed keys had their expressions:
			// every computed key of an area is one node, and the calls
			// that reach it say what each key is known as
			// (dynamicStorageStep).
			return n.propString("area") + " " + dynamicKey(n.propString("area"))
		}
		return n.propString("area") + " " + n.propString("key")
	case "artifact":
		return "application root"
	}
	if l := n.label(); l != "" {
		return l
	}
	return n.key()
}

// traceLabels labels the nodes ids of one trace result so that no two
// of them read alike: humanLabel's text, and where it names two nodes
// (a worker and its script, both worker.js) each of them says its kind
// (worker.js (worker), worker.js (file)), and the file it was seen in
// where the kind does not tell them apart (two computed keys of one
// expression in two files), else its node ID. A label no other node of the result
// shares stays humanLabel's, and a node reads the same in every path,
// graph node and seed match of the result.
func traceLabels(ix *appIndex, ids []string) map[string]string {
	out := make(map[string]string, len(ids))
	by := map[string][]string{} // label -> the nodes it names
	for _, id := range ids {
		if _, ok := out[id]; ok {
			continue
		}
		l := humanLabel(ix, ix.nodes[id])
		out[id] = l
		by[l] = append(by[l], id)
	}
	for l, same := range by {
		if len(same) < 2 {
			continue
		}
		// The kind, then the file the node was seen in, then its ID:
		// the first that tells it from the others.
		nouns, wheres := map[string]int{}, map[string]int{}
		where := func(id string) string {
			return kindNoun(ix.nodes[id].Kind) + " in " + nodeFile(ix.nodes[id])
		}
		for _, id := range same {
			nouns[kindNoun(ix.nodes[id].Kind)]++
			wheres[where(id)]++
		}
		for _, id := range same {
			noun := kindNoun(ix.nodes[id].Kind)
			switch {
			case nouns[noun] == 1:
			case nodeFile(ix.nodes[id]) != "" && wheres[where(id)] == 1:
				noun = where(id)
			default:
				noun += " " + shortNodeID(id)
			}
			out[id] = l + " (" + noun + ")"
		}
	}
	return out
}

// nodeFile is the file the node was first seen in, or "".
func nodeFile(n *Node) string {
	for _, o := range n.Observations {
		for _, l := range o.Evidence.Locations {
			if l.Path != "" {
				return l.Path
			}
		}
	}
	return ""
}

// kindNoun names a node kind in a label's words.
func kindNoun(kind string) string {
	switch kind {
	case "javascript-asset":
		return "file"
	case "javascript-module":
		return "bundled module"
	case "source-module":
		return "original source"
	case "native-addon":
		return "add-on"
	}
	return strings.ReplaceAll(kind, "-", " ")
}

// shortNodeID is enough of a node ID to find it among a result's.
func shortNodeID(id string) string {
	const keep = len("jag_node_") + 12
	if len(id) > keep {
		return id[:keep]
	}
	return id
}

// sourceMapOf is the path of the source map that lists a source module.
func sourceMapOf(ix *appIndex, n *Node) string {
	if ix == nil {
		return ""
	}
	for _, e := range ix.in[n.NodeID] {
		if e.Relation == "contains" {
			if m := ix.nodes[e.SourceNodeID]; m != nil && m.Kind == "source-map" {
				return m.propString("path")
			}
		}
	}
	for _, o := range n.Observations {
		for _, l := range o.Evidence.Locations {
			if l.Path != "" {
				return l.Path
			}
		}
	}
	return ""
}

// mappedOriginal is the original source a bundled module maps to.
func mappedOriginal(ix *appIndex, n *Node) string {
	if ix == nil {
		return ""
	}
	for _, e := range ix.out[n.NodeID] {
		if e.Relation == "maps_to" {
			if t := ix.nodes[e.TargetNodeID]; t != nil && t.Kind == "source-module" {
				return normalizeOriginal(t.propString("original_source"))
			}
		}
	}
	return ""
}

// exportNames is a module's exported names, sorted and joined, or "" when
// they cannot tell it from another module.
func exportNames(n *Node) string {
	var names []string
	if l, ok := n.prop("exports").([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
	}
	if len(names) == 0 {
		if l, ok := n.prop("export_shapes").([]any); ok {
			for _, x := range l {
				if m, ok := x.(map[string]any); ok {
					if s, ok := m["name"].(string); ok {
						names = append(names, s)
					}
				}
			}
		}
	}
	names = uniqueUTF16(names)
	// A lone default export says nothing about which module it is: every
	// CommonJS module has one.
	if len(names) == 0 || (len(names) == 1 && names[0] == "default") {
		return ""
	}
	return strings.Join(names, "\x00")
}

// dynamicKey names a storage area's computed key.
func dynamicKey(area string) string {
	switch area {
	case "fs":
		return "<dynamic path>"
	case "indexedDB":
		return "<dynamic name>"
	}
	return "<dynamic key>"
}

// dynamicStorageStep labels a step onto the storage node of an area's
// computed keys through persists_to edge e: the call and its argument as
// the source names it (fs.writeFileSync(p)), else the call with the
// area's <dynamic path> or <dynamic key>. "" when the step is another.
func dynamicStorageStep(n *Node, e *Edge) string {
	if n == nil || e == nil || n.Kind != "storage" || e.Relation != "persists_to" || e.TargetNodeID != n.NodeID || n.propString("key") != "${}" {
		return ""
	}
	api, _ := e.Properties["api"].(string)
	if api == "" {
		return ""
	}
	arg, _ := e.Properties["argument"].(string)
	if arg == "" {
		arg = dynamicKey(n.propString("area"))
	}
	return api + "(" + arg + ")"
}
