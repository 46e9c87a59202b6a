package jsapp

import (
	"strings"

	"rea/ports"
)

// fs's recursive copies (fs.cp, fs.cpSync, fs.promises.cp) are storage
// with a source and a destination, as rename and copyFile are; but cp is
// as often a minifier's name as fs's, so the call is selected, and read
// as storage, only on a binding that provably came from fs: a require or
// import of fs, node:fs, fs/promises (or Electron's original-fs), not a
// callee that merely starts with fs.

// fsOp is the storage operation call c makes on a binding from fs (a
// name of fsOps, as fs names it: writeFileSync after const {writeFileSync:
// w} = require("fs"), readFile on fs.promises), or "". The binding's module
// decides, not the callee's text: fs.writeFileSync on a local object or a
// parameter named fs is not storage, w(p) on fs's writeFileSync is. fs-extra
// and graceful-fs hand out fs's own functions under fs's names.
func fsOp(c ports.JSCall) string {
	switch strings.TrimPrefix(c.Module, "node:") {
	case "fs", "fs/promises", "original-fs", "fs-extra", "graceful-fs":
	default:
		return ""
	}
	op := c.Member
	if i := strings.LastIndexByte(op, '.'); i >= 0 {
		op = op[i+1:]
	}
	if !fsOps[op] {
		return ""
	}
	return op
}

// fsCopySelectors select the copies by their module
// (ports.JSCallSelector.ModuleLastNames).
var fsCopySelectors = []string{"fs:cp", "fs:cpSync", "fs/promises:cp", "original-fs:cp", "original-fs:cpSync"}

// fsCopyOp is the copy call c makes on a binding from fs (cp or cpSync,
// the name fs gives it, whatever the file renamed it to), or "".
func fsCopyOp(c ports.JSCall) string {
	switch strings.TrimPrefix(c.Module, "node:") {
	case "fs", "fs/promises", "original-fs":
	default:
		return ""
	}
	op := c.Member
	if i := strings.LastIndexByte(op, '.'); i >= 0 {
		op = op[i+1:]
	}
	switch {
	case op == "cp", op == "cpSync" && !strings.HasSuffix(c.Module, "/promises") && !strings.Contains(c.Member, "promises."):
		return op
	}
	return ""
}
