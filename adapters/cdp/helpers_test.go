package cdp_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
)

// dump renders a capture as JSON so tests can search it for secrets.
func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// pngHeader is the base64 of a PNG signature and IHDR claiming w×h.
func pngHeader(w, h uint32) string {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	b = binary.BigEndian.AppendUint32(b, w)
	b = binary.BigEndian.AppendUint32(b, h)
	b = append(b, 8, 6, 0, 0, 0, 0, 0, 0, 0)
	return base64.StdEncoding.EncodeToString(b)
}
