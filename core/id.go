package core

import (
	"fmt"
	"strings"
)

// EvidenceID is "ev_" followed by 64 lowercase hex characters: the digest of
// an Evidence record's semantic projection.
type EvidenceID string

// ParseEvidenceID validates s.
func ParseEvidenceID(s string) (EvidenceID, error) {
	if !strings.HasPrefix(s, "ev_") || !isHex64(s[3:]) {
		return "", fmt.Errorf("evidence id %q: want \"ev_\" and 64 lowercase hex characters", s)
	}
	return EvidenceID(s), nil
}

func (id EvidenceID) String() string { return string(id) }

// MarshalText implements encoding.TextMarshaler.
func (id EvidenceID) MarshalText() ([]byte, error) { return []byte(id), nil }

// UnmarshalText implements encoding.TextUnmarshaler and validates the form.
func (id *EvidenceID) UnmarshalText(b []byte) error {
	v, err := ParseEvidenceID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
