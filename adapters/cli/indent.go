package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// writeIndented writes v as encoding/json's Encoder does with
// SetEscapeHTML(false) and SetIndent("", "  "), but indents as it writes:
// the indented copy of a large result (a JavaScript application's Evidence
// is tens of MB) is never held in memory.
func writeIndented(w io.Writer, v any) error {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	src := bytes.TrimRight(compact.Bytes(), "\n")
	depth := 0
	newline := func() {
		bw.WriteByte('\n')
		for range depth {
			bw.WriteString("  ")
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			// Copy the string through its closing quote.
			j := i + 1
			for ; j < len(src); j++ {
				if src[j] == '\\' {
					j++
				} else if src[j] == '"' {
					break
				}
			}
			bw.Write(src[i:min(j+1, len(src))])
			i = j
		case '{', '[':
			bw.WriteByte(c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				bw.WriteByte(src[i+1]) // an empty object or array stays on its line
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			bw.WriteByte(c)
		case ',':
			bw.WriteByte(c)
			newline()
		case ':':
			bw.WriteString(": ")
		default:
			bw.WriteByte(c)
		}
	}
	bw.WriteByte('\n')
	return bw.Flush()
}
