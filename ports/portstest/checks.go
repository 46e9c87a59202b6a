package portstest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"unicode/utf16"
	"unicode/utf8"

	"rea/ports"
)

var idPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// The check functions report the first way a result breaks the contract
// documented in rea/ports, or nil.

func checkInfo(info ports.ProviderInfo) error {
	switch {
	case !idPattern.MatchString(info.ID):
		return fmt.Errorf("id %q does not match %s", info.ID, idPattern)
	case info.ID == "auto":
		return errors.New(`id "auto" is reserved`)
	case len(info.ID) > 64:
		return fmt.Errorf("id %q is longer than 64 characters", info.ID)
	case info.Name == "":
		return errors.New("empty name")
	}
	return nil
}

func checkProfile(p ports.Profile) error {
	if p.SchemaVersion < 1 {
		return fmt.Errorf("schema version %d < 1", p.SchemaVersion)
	}
	for k, v := range p.Parameters {
		if err := checkJSONValue(v); err != nil {
			return fmt.Errorf("parameter %q: %w", k, err)
		}
	}
	if _, err := json.Marshal(p.Parameters); err != nil {
		return fmt.Errorf("parameters: %w", err)
	}
	return nil
}

// checkJSONValue accepts the values encoding/json produces when decoding
// into any, plus Go's other number types and []string.
func checkJSONValue(v any) error {
	switch v := v.(type) {
	case nil, bool, string, json.Number, []string,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return nil
	case float32:
		return checkFloat(float64(v))
	case float64:
		return checkFloat(v)
	case []any:
		for i, e := range v {
			if err := checkJSONValue(e); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case map[string]any:
		for k, e := range v {
			if err := checkJSONValue(e); err != nil {
				return fmt.Errorf("%q: %w", k, err)
			}
		}
		return nil
	}
	return fmt.Errorf("%T is not a JSON value", v)
}

func checkFloat(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%v is not a JSON number", f)
	}
	return nil
}

func checkDocuments(docs []ports.Document) error {
	if len(docs) == 0 {
		return errors.New("no documents")
	}
	for i, d := range docs {
		if d.Name == "" || d.Format == "" {
			return fmt.Errorf("document %d: empty name or format: %+v", i, d)
		}
		if !d.HasEntry && d.Entry != 0 {
			return fmt.Errorf("document %d: entry 0x%x without HasEntry", i, d.Entry)
		}
	}
	return nil
}

// checkSegments checks kinds, address overflow and, when size > 0, that file
// bytes lie inside a file of size bytes.
func checkSegments(segs []ports.Segment, size int64) error {
	for i, s := range segs {
		if s.Kind != "section" && s.Kind != "segment" {
			return fmt.Errorf("segment %d (%s): kind %q", i, s.Name, s.Kind)
		}
		if s.Start+s.Size < s.Start {
			return fmt.Errorf("segment %d (%s): 0x%x+0x%x overflows", i, s.Name, s.Start, s.Size)
		}
		if s.FileOffset+s.FileSize < s.FileOffset {
			return fmt.Errorf("segment %d (%s): file range 0x%x+0x%x overflows", i, s.Name, s.FileOffset, s.FileSize)
		}
		if size > 0 && s.FileSize > 0 && s.FileOffset+s.FileSize > uint64(size) {
			return fmt.Errorf("segment %d (%s): file range 0x%x+0x%x beyond the file's %d bytes", i, s.Name, s.FileOffset, s.FileSize, size)
		}
	}
	return nil
}

func checkProcedures(procs []ports.Procedure) error {
	for i, p := range procs {
		if i > 0 && p.Address <= procs[i-1].Address {
			return fmt.Errorf("procedure %d (%s at 0x%x) not after procedure %d (0x%x): want sorted by address, each address once",
				i, p.Name, p.Address, i-1, procs[i-1].Address)
		}
		if p.Address+p.Size < p.Address {
			return fmt.Errorf("procedure %d (%s): 0x%x+0x%x overflows", i, p.Name, p.Address, p.Size)
		}
		if p.ThunkTarget != "" && !p.Thunk {
			return fmt.Errorf("procedure %d (%s): thunk target %q but not a thunk", i, p.Name, p.ThunkTarget)
		}
	}
	return nil
}

// checkEarlyProcedures checks an EarlyProcedureLister's answers, one taken
// before and one after the complete list: sorted and unique, every address
// in the complete list, the complete list itself when it says so, and the
// same answer whatever ran before.
func checkEarlyProcedures(before, after ports.EarlyProcedures, all []ports.Procedure) error {
	if err := checkProcedures(before.Procedures); err != nil {
		return fmt.Errorf("early procedures: %w", err)
	}
	if !reflect.DeepEqual(before, after) {
		return fmt.Errorf("early procedures: %d procedures (complete %v) before the complete list, %d (complete %v) after: want the same answer whatever ran before",
			len(before.Procedures), before.Complete, len(after.Procedures), after.Complete)
	}
	if before.Complete && !reflect.DeepEqual(before.Procedures, all) {
		return fmt.Errorf("early procedures: complete, but %d procedures where the complete list has %d", len(before.Procedures), len(all))
	}
	at := make(map[uint64]bool, len(all))
	for _, p := range all {
		at[p.Address] = true
	}
	for _, p := range before.Procedures {
		if !at[p.Address] {
			return fmt.Errorf("early procedures: 0x%x (%s) is not in the complete list", p.Address, p.Name)
		}
	}
	return nil
}

var nameKinds = map[string]bool{"function": true, "object": true, "import": true, "label": true, "section": true}

func checkNames(names []ports.Name) error {
	for i, n := range names {
		if n.Name == "" {
			return fmt.Errorf("name %d at 0x%x: empty", i, n.Address)
		}
		if !nameKinds[n.Kind] {
			return fmt.Errorf("name %d (%s): kind %q", i, n.Name, n.Kind)
		}
		if i == 0 {
			continue
		}
		prev := names[i-1]
		if n.Address < prev.Address || (n.Address == prev.Address && n.Name <= prev.Name) {
			return fmt.Errorf("name %d (%s at 0x%x) not after name %d (%s at 0x%x): want sorted by address then name, without duplicates",
				i, n.Name, n.Address, i-1, prev.Name, prev.Address)
		}
	}
	return nil
}

func checkStrings(strs []ports.String) error {
	for i, s := range strs {
		if i > 0 && s.Address < strs[i-1].Address {
			return fmt.Errorf("string %d at 0x%x before string %d at 0x%x: want sorted by address", i, s.Address, i-1, strs[i-1].Address)
		}
		if s.Value == "" || !utf8.ValidString(s.Value) {
			return fmt.Errorf("string %d at 0x%x: value %q is empty or not UTF-8", i, s.Address, s.Value)
		}
		if s.ByteLength <= 0 {
			return fmt.Errorf("string %d at 0x%x: byte length %d", i, s.Address, s.ByteLength)
		}
		var encoded int
		switch s.Charset {
		case "ascii":
			encoded = len(s.Value)
		case "utf-16le":
			encoded = 2 * len(utf16.Encode([]rune(s.Value)))
		default:
			return fmt.Errorf("string %d at 0x%x: charset %q", i, s.Address, s.Charset)
		}
		if (!s.Truncated && encoded != s.ByteLength) || (s.Truncated && encoded >= s.ByteLength) {
			return fmt.Errorf("string %d at 0x%x: %s value %q encodes to %d bytes, byte length %d, truncated %v",
				i, s.Address, s.Charset, s.Value, encoded, s.ByteLength, s.Truncated)
		}
	}
	return nil
}
