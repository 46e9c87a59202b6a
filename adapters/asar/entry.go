package asar

// Type is the kind of an archive entry.
type Type uint8

const (
	TypeFile Type = iota + 1
	TypeDir
	TypeLink
)

func (t Type) String() string {
	switch t {
	case TypeFile:
		return "file"
	case TypeDir:
		return "directory"
	case TypeLink:
		return "link"
	}
	return "unknown"
}

// Entry describes one file, directory or link in an archive.
type Entry struct {
	Path       string // slash-separated logical path, no leading slash
	Type       Type
	Size       int64 // declared size of a file; 0 otherwise
	Offset     int64 // absolute offset of a packed file's bytes in the archive; 0 if not packed
	Executable bool
	Unpacked   bool   // bytes live in the companion ".asar.unpacked" directory
	Link       string // for links: the target, relative to the archive root
	Integrity  *Integrity
}

// Integrity is a file's declared integrity metadata. Readers must not modify it.
type Integrity struct {
	Algorithm string   // "SHA256" for archives written by @electron/asar
	Hash      string   // lowercase hex of the whole file
	BlockSize int64    // 4 MiB for @electron/asar
	Blocks    []string // hex hash of each block
}
