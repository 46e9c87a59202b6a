package core

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"rea/core/present"
)

// What front ends advertise for an operation is computed by rea/core/present
// from the declaration; this file holds the kernel's side: the profile
// setting, the per-operation memo, the choice of advertised examples (which
// needs the catalog's validation), the embedded presentation cache and the
// optional check of every success against the complete output schema.

// SchemaProfile selects how input schemas are advertised. Server-side
// validation always uses the canonical schema.
type SchemaProfile string

// Input schema profiles.
const (
	ProfileFull    SchemaProfile = "full"
	ProfileCompact SchemaProfile = "compact"
)

// CompactBudget is the largest advertised input schema in the compact
// profile, in bytes of compact JSON.
const CompactBudget = present.CompactBudget

// SchemaProfileEnv names the start-up setting.
const SchemaProfileEnv = "REA_MCP_INPUT_SCHEMA_PROFILE"

// ParseSchemaProfile reads REA_MCP_INPUT_SCHEMA_PROFILE: absent is full;
// only the exact values full and compact are accepted.
func ParseSchemaProfile(value string, set bool) (SchemaProfile, error) {
	if !set {
		return ProfileFull, nil
	}
	switch SchemaProfile(value) {
	case ProfileFull, ProfileCompact:
		return SchemaProfile(value), nil
	}
	return "", &Error{Code: CodeConfigurationInvalid,
		Message:     fmt.Sprintf("%s=%q: want exactly \"full\" or \"compact\"", SchemaProfileEnv, value),
		Remediation: "Unset " + SchemaProfileEnv + " or set it to full or compact, then restart the server.",
		Details:     map[string]any{"settings": []map[string]any{{"setting": SchemaProfileEnv, "constraint": "full|compact"}}}}
}

// Presentation kinds (Operation.Presentation).
const (
	PresentFull    = present.Full
	PresentInline  = present.Inline
	PresentReduced = present.Reduced
	PresentMinimal = present.Minimal
)

type presented struct {
	once   sync.Once
	schema json.RawMessage
	kind   string
	err    error
}

// AdvertisedInput is the input schema front ends advertise in profile p.
func (o *Operation) AdvertisedInput(p SchemaProfile) json.RawMessage {
	s, _, err := o.presentation(p)
	if err != nil {
		panic("core: " + err.Error()) // declared schemas are programmer input; Catalog.Check reports this in tests
	}
	return s
}

// Presentation reports which form AdvertisedInput(p) took: full, inline
// (compact with references inlined), reduced or minimal.
func (o *Operation) Presentation(p SchemaProfile) string {
	_, k, _ := o.presentation(p)
	return k
}

func (o *Operation) presentation(p SchemaProfile) (json.RawMessage, string, error) {
	slot := &o.presFull
	if p == ProfileCompact {
		slot = &o.presCompact
	}
	slot.once.Do(func() {
		if c := o.cached(); c != nil {
			slot.schema, slot.kind = c.Full, PresentFull
			if p == ProfileCompact {
				slot.schema, slot.kind = c.Compact, c.CompactKind
			}
			return
		}
		var examples []json.RawMessage
		if o.examplesCatalog != nil {
			examples = o.AdvertisedExamples(o.examplesCatalog)
		}
		shallow, err := o.shallowInputs()
		if err != nil {
			slot.err = err
			return
		}
		full, err := present.Input(o.Input, examples, shallow)
		if err != nil {
			slot.err = fmt.Errorf("present %s: %w", o.Name, err)
			return
		}
		if p != ProfileCompact {
			slot.schema, slot.kind = full, PresentFull
			return
		}
		slot.schema, slot.kind = present.Compact(full)
	})
	return slot.schema, slot.kind, slot.err
}

// ExampleBudget bounds the bytes of one tool's advertised examples: examples
// are advertised in declaration order while they fit (the first always is);
// the rest stay test examples, validated by Catalog.Check. It was 2 KiB
// until tools/list was held to 2 KB per tool (issue 22).
const ExampleBudget = 256

// AdvertisedExamples returns the examples that are advertised: inline
// Evidence replaced by retained references, examples that still fail the
// canonical schema dropped, duplicates removed, within ExampleBudget.
func (o *Operation) AdvertisedExamples(c *Catalog) []json.RawMessage {
	var out []json.RawMessage
	seen := map[string]bool{}
	total := 0
	for _, ex := range o.Examples {
		v, err := decodeJSON(ex)
		if err != nil {
			continue
		}
		orig, _ := CanonicalJSON(v)
		raw, err := CanonicalJSON(present.ReplaceInlineEvidence(v))
		if err != nil || seen[string(raw)] {
			continue
		}
		// Declared examples are validated by Catalog.Check in the tests; only
		// an example whose inline Evidence was replaced needs checking here.
		if string(raw) != string(orig) {
			if _, err := c.validate(o, raw); err != nil {
				continue
			}
		}
		if len(out) > 0 && total+len(raw) > ExampleBudget {
			continue // stays a test example
		}
		total += len(raw)
		seen[string(raw)] = true
		out = append(out, raw)
	}
	return out
}

// The presentation cache (rea/core/present): computed by `go generate
// ./core` into presented.json and embedded. TestPresentationCacheCurrent
// fails when presented.json differs from a fresh computation, so a change
// to the presentation code cannot land with a stale cache.

//go:generate go run ../cmd/presentgen -o presented.json

//go:embed presented.json
var presentedJSON []byte

var presentedCache = sync.OnceValue(func() map[string]*present.Tool { return present.ParseCache(presentedJSON) })

func (o *Operation) fingerprint() string {
	shallow, _ := o.shallowInputs() // an error is reported when presenting
	return present.Fingerprint(o.Name, o.Input, o.Result, o.RequiresSession, o.Examples, shallow)
}

// shallowInputs is the sentence tools/list gives in place of each Produced
// subschema: the producer's result, its output schema $id, and where the
// complete shape is. Validation keeps the canonical subschema.
func (o *Operation) shallowInputs() (map[string]string, error) {
	if len(o.Produced) == 0 || o.examplesCatalog == nil {
		return nil, nil
	}
	out := map[string]string{}
	for at, name := range o.Produced {
		p, ok := o.examplesCatalog.byName[name]
		if !ok || p == o {
			return nil, fmt.Errorf("present %s: Produced %s names no other operation %q", o.Name, at, name)
		}
		if err := p.prepareOutput(); err != nil {
			return nil, err
		}
		var id struct {
			ID string `json:"$id"`
		}
		if err := json.Unmarshal(p.output, &id); err != nil {
			return nil, err
		}
		key := "normalized_result"
		if p.RequiresSession {
			key = "result"
		}
		out[at] = fmt.Sprintf("Advertised shallowly: the %s of %s (output schema %s); the server validates it in full, and `rea tools %s --format json` prints the complete schema.",
			key, name, id.ID, name)
	}
	return out, nil
}

// checkAdvertised presents o in profile p and checks that the advertised
// schema compiles and accepts every advertised example (which the
// canonical schema accepts too: AdvertisedExamples keeps only those).
func (o *Operation) checkAdvertised(c *Catalog, p SchemaProfile) error {
	adv, _, err := o.presentation(p)
	if err != nil {
		return err
	}
	s, err := compileSchema(o.Name+":advertised-"+string(p), adv)
	if err != nil {
		return err
	}
	for _, ex := range o.AdvertisedExamples(c) {
		if _, err := c.validate(o, ex); err != nil {
			return fmt.Errorf("catalog: %s advertised example %s: %v", o.Name, ex, err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(ex))
		if err == nil {
			err = s.Validate(v)
		}
		if err != nil {
			return fmt.Errorf("catalog: %s: the advertised %s schema rejects advertised example %s: %v", o.Name, p, ex, err)
		}
	}
	return nil
}

// cached returns o's cached presentations when they are current.
func (o *Operation) cached() *present.Tool {
	if o.examplesCatalog == nil || o.examplesCatalog.fresh {
		return nil
	}
	c := presentedCache()[o.Name]
	if c == nil || c.Fingerprint != o.fingerprint() {
		return nil
	}
	return c
}

// WritePresentations computes every presentation of cat without the cache
// and writes presented.json (cmd/presentgen; the drift test).
func WritePresentations(w io.Writer, cat *Catalog) error {
	cat.fresh = true
	tools := make([]present.Tool, 0, len(cat.ops))
	for _, op := range cat.ops {
		full, _, err := op.presentation(ProfileFull)
		if err != nil {
			return err
		}
		compact, kind, err := op.presentation(ProfileCompact)
		if err != nil {
			return err
		}
		if err := op.prepareOutput(); err != nil {
			return err
		}
		tools = append(tools, present.Tool{Name: op.Name, Fingerprint: op.fingerprint(), Full: full, Compact: compact,
			CompactKind: kind, Output: op.output, CompleteOutput: op.completeOutput})
	}
	return present.WriteCache(w, tools)
}

// completeSchema compiles the complete output schema once.
func (o *Operation) completeSchema() (*jsonschema.Schema, error) {
	o.completeOnce.Do(func() {
		if o.completeErr = o.prepareOutput(); o.completeErr == nil {
			o.completeCompiled, o.completeErr = compileSchema(o.Name+":complete-output", o.completeOutput)
		}
	})
	return o.completeCompiled, o.completeErr
}

// CheckOutput validates a success's structured content against the complete
// output schema. Sessions run it on every success when the catalog's
// SetCheckOutputs is on (REA_CHECK_OUTPUT_SCHEMAS=1), which the tests do; a
// mismatch is a defect in rea, reported as execution_failure.
func (o *Operation) CheckOutput(structured []byte) error {
	s, err := o.completeSchema()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(structured))
	if err != nil {
		return err
	}
	if err := s.Validate(v); err != nil {
		return &Error{Code: CodeExecutionFailure, Message: fmt.Sprintf("%s: result does not match its output schema: %v", o.Name, err),
			Details: map[string]any{"operation": o.Name, "reason": "output_schema_mismatch"}}
	}
	return nil
}

// CheckOutputSchemasEnv turns on Operation.CheckOutput for every success.
const CheckOutputSchemasEnv = "REA_CHECK_OUTPUT_SCHEMAS"

// ParseCheckOutputs reads REA_CHECK_OUTPUT_SCHEMAS: unset, empty, "0" or
// "false" is off; "1" or "true" is on; anything else stops start-up.
func ParseCheckOutputs(value string, set bool) (bool, error) {
	switch value {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, fmt.Errorf("%s must be 1, true, 0 or false, not %q", CheckOutputSchemasEnv, value)
}

// SetCheckOutputs makes every session of this catalog validate each success
// against the complete output schema (start-up only).
func (c *Catalog) SetCheckOutputs(on bool) { c.checkOutputs = on }
