package core

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"rea/ports"
)

// Identify hashes and classifies a local file. It never runs a provider. A
// directory, a missing file or an unreadable one is target_unavailable (or
// access_denied); an unrecognised format is unsupported_target.
func Identify(ctx context.Context, path string) (ports.Target, error) {
	const op = "open_binary"
	abs, err := filepath.Abs(path)
	if err != nil {
		return ports.Target{}, TargetError(op, path, "invalid_path", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return ports.Target{}, TargetError(op, abs, "missing", err)
	}
	if st.IsDir() {
		e := TargetError(op, abs, "directory", nil)
		e.Details["constraint"] = "directory_requires_file"
		e.Message = op + ": " + abs + " is a directory; open_binary needs a file"
		return ports.Target{}, e
	}
	if !st.Mode().IsRegular() {
		return ports.Target{}, TargetError(op, abs, "not_regular_file", nil)
	}
	f, err := os.Open(abs)
	if err != nil {
		return ports.Target{}, TargetError(op, abs, "unreadable", err)
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return ports.Target{}, TargetError(op, abs, "unreadable", err)
	}
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ports.Target{}, TargetError(op, abs, "unreadable", err)
	}
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return ports.Target{}, err
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return ports.Target{}, TargetError(op, abs, "unreadable", err)
		}
	}
	t := ports.Target{Path: abs, SHA256: hex.EncodeToString(h.Sum(nil)), Size: st.Size()}
	t.Format, t.Kind, t.Architecture = classify(f, st.Size(), head, abs)
	if t.Format == "" {
		return ports.Target{}, &Error{Code: CodeUnsupportedTarget,
			Message:     op + ": " + abs + " is not a recognised binary, archive or script format",
			Remediation: "Open an ELF, PE, Mach-O, ASAR, ZIP, JavaScript or source-map file.",
			Details:     map[string]any{"operation": op, "path": abs, "reason": "unrecognized_format"}}
	}
	return t, nil
}

// TargetError is the error for a path argument that cannot be read:
// target_unavailable, or access_denied when the file system refused.
func TargetError(op, path, reason string, cause error) *Error {
	code := CodeTargetUnavailable
	details := map[string]any{"path": path, "reason": reason}
	msg := op + ": " + path + ": " + reason
	if cause != nil {
		msg = op + ": " + cause.Error()
		var pe *fs.PathError
		if errors.As(cause, &pe) {
			if errors.Is(cause, fs.ErrPermission) {
				code = CodeAccessDenied
				details["boundary"] = "filesystem-read"
			}
			details["system_code"] = pe.Err.Error()
		}
	}
	return &Error{Code: code, Category: CategoryUnavailable, Message: msg, Err: cause, Details: details,
		Remediation: "Pass the path of an existing, readable regular file."}
}

// classify returns (format, kind, architecture) or "" when unrecognised.
func classify(r io.ReaderAt, size int64, head []byte, path string) (format, kind, arch string) {
	defer func() {
		// Standard-library parsers can panic on corrupt headers: a file whose
		// magic matched keeps its format with an unknown kind.
		if recover() != nil && format != "" {
			kind, arch = "unknown", ""
		}
	}()
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		format, kind = "elf", "unknown"
		if f, err := elf.NewFile(r); err == nil {
			arch = elfArch(f.Machine)
			switch f.Type {
			case elf.ET_EXEC:
				kind = "executable"
			case elf.ET_REL:
				kind = "object"
			case elf.ET_CORE:
				kind = "core"
			case elf.ET_DYN:
				kind = "shared-library"
				for _, p := range f.Progs {
					if p.Type == elf.PT_INTERP {
						kind = "executable"
					}
				}
			}
		}
		return
	case bytes.HasPrefix(head, []byte("MZ")):
		if len(head) < 64 {
			return "", "", "" // not even a complete DOS header
		}
		lfanew := int64(binary.LittleEndian.Uint32(head[0x3c:]))
		sig := make([]byte, 4)
		if n, _ := r.ReadAt(sig, lfanew); n < 4 || !bytes.Equal(sig, []byte("PE\x00\x00")) {
			return "dos-mz", "executable", ""
		}
		format, kind = "pe", "unknown"
		if f, err := pe.NewFile(r); err == nil {
			switch f.Machine {
			case pe.IMAGE_FILE_MACHINE_AMD64:
				arch = "x86_64"
			case pe.IMAGE_FILE_MACHINE_I386:
				arch = "x86"
			case pe.IMAGE_FILE_MACHINE_ARM64:
				arch = "arm64"
			case pe.IMAGE_FILE_MACHINE_ARMNT, pe.IMAGE_FILE_MACHINE_ARM:
				arch = "arm"
			}
			kind = "executable"
			if f.Characteristics&pe.IMAGE_FILE_DLL != 0 {
				kind = "shared-library"
			}
		}
		return
	case len(head) >= 4 && isMachOMagic(binary.LittleEndian.Uint32(head)):
		format, kind = "mach-o", "unknown"
		if f, err := macho.NewFile(r); err == nil {
			arch = machoArch(f.Cpu)
			switch f.Type {
			case macho.TypeExec:
				kind = "executable"
			case macho.TypeDylib:
				kind = "shared-library"
			case macho.TypeObj:
				kind = "object"
			case macho.TypeBundle:
				kind = "bundle"
			}
		}
		return
	case len(head) >= 8 && binary.BigEndian.Uint32(head) == 0xcafebabe && binary.BigEndian.Uint32(head[4:]) < 32:
		format, kind = "mach-o-universal", "universal"
		if f, err := macho.NewFatFile(r); err == nil && len(f.Arches) > 0 {
			arch = machoArch(f.Arches[0].Cpu)
		}
		return
	case len(head) >= 16 && binary.LittleEndian.Uint32(head) == 4 && bytes.HasPrefix(head[16:], []byte(`{"files"`)):
		return "asar", "archive", ""
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		switch ext {
		case ".apk", ".ipa", ".msix", ".appx":
			return ext[1:], "archive", ""
		}
		return "zip", "archive", ""
	case ext == ".map" || (ext == ".json" && isSourceMap(head)):
		if isSourceMap(head) || ext == ".map" {
			return "source-map", "source-map", ""
		}
	case ext == ".js" || ext == ".mjs" || ext == ".cjs" || ext == ".jsx":
		return "javascript", "script", ""
	case bytes.HasPrefix(head, []byte("bplist00")) || ext == ".plist":
		return "plist", "property-list", ""
	}
	return "", "", ""
}

func isSourceMap(head []byte) bool {
	var probe struct {
		Version  json.Number `json:"version"`
		Mappings *string     `json:"mappings"`
		Sections []any       `json:"sections"`
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	_ = dec.Decode(&probe)
	return probe.Version == "3" || bytes.Contains(head, []byte(`"mappings"`))
}

func isMachOMagic(m uint32) bool {
	switch m {
	case macho.Magic32, macho.Magic64, 0xcefaedfe, 0xcffaedfe:
		return true
	}
	return false
}

func elfArch(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_386:
		return "x86"
	case elf.EM_AARCH64:
		return "arm64"
	case elf.EM_ARM:
		return "arm"
	}
	return ""
}

func machoArch(c macho.Cpu) string {
	switch c {
	case macho.CpuAmd64:
		return "x86_64"
	case macho.Cpu386:
		return "x86"
	case macho.CpuArm64:
		return "arm64"
	case macho.CpuArm:
		return "arm"
	}
	return ""
}

// describeTarget is used in messages.
func describeTarget(t ports.Target) string {
	a := t.Architecture
	if a == "" {
		a = "unknown architecture"
	}
	return fmt.Sprintf("%s %s (%s)", t.Format, t.Kind, a)
}
