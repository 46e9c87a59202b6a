package core

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"rea/core/present"
	"rea/ports"
)

// Kind classifies an operation.
type Kind string

// Operation kinds.
const (
	KindSession          Kind = "session"
	KindOfficialProxy    Kind = "official-proxy"
	KindEnhanced         Kind = "enhanced"
	KindNativeProvider   Kind = "native-provider"
	KindArtifactProvider Kind = "artifact-provider"
	KindApplication      Kind = "application"
)

// Effects are what an operation may do, over every input it accepts.
type Effects struct {
	MutatesTarget       bool `json:"mutatesTarget"`
	MutatesSession      bool `json:"mutatesSession"`
	WritesFilesystem    bool `json:"writesFilesystem"`
	LaunchesProcess     bool `json:"launchesProcess"`
	AccessesNetwork     bool `json:"accessesNetwork"`
	ChangesUIState      bool `json:"changesUiState"`
	MayDiscardData      bool `json:"mayDiscardData"`
	Idempotent          bool `json:"idempotent"`
	ExecutesForeignCode bool `json:"executesForeignCode"`
	MutatesDevice       bool `json:"mutatesDevice"`
}

// Annotations are the MCP hints derived from Effects.
type Annotations struct {
	ReadOnly    bool `json:"read_only"`
	Destructive bool `json:"destructive"`
	Idempotent  bool `json:"idempotent"`
	OpenWorld   bool `json:"open_world"`
}

// Annotations derives the hints: read-only when nothing mutates (session
// state included), destructive when data may be discarded or foreign code
// runs or a device changes.
func (e Effects) Annotations() Annotations {
	mut := e.MutatesTarget || e.MutatesSession || e.WritesFilesystem || e.LaunchesProcess ||
		e.AccessesNetwork || e.ChangesUIState || e.MayDiscardData || e.ExecutesForeignCode || e.MutatesDevice
	return Annotations{
		ReadOnly:    !mut,
		Destructive: e.MayDiscardData || e.ExecutesForeignCode || e.MutatesDevice,
		Idempotent:  e.Idempotent,
		OpenWorld:   e.LaunchesProcess || e.AccessesNetwork,
	}
}

// Handler runs an operation. Evidence operations return *Observation;
// session operations return their result value.
type Handler func(ctx context.Context, c *Call) (any, error)

// Operation is one tool, declared once: every front end projects it.
type Operation struct {
	Name        string
	Title       string
	Description string
	Kind        Kind
	Effects     Effects
	// RequiresSession marks session-scoped tools that answer {"result": ...}
	// instead of an Evidence record.
	RequiresSession bool
	// Input is the canonical JSON Schema (2020-12) of the arguments.
	Input json.RawMessage
	// Result is the schema of normalized_result (Evidence tools) or of
	// result (session tools).
	Result json.RawMessage
	// Examples are advertised example arguments; each must validate.
	Examples []json.RawMessage
	// Produced maps JSON pointers into Input ("#/$defs/web_inspection") to
	// the operation whose result the subschema there takes. tools/list
	// advertises each shallowly, naming that operation's output schema $id
	// (core/advertise.go); validation keeps the canonical subschema.
	Produced map[string]string
	// Needs names the provider capabilities (ports interfaces) the
	// operation requires of the bound analysis; empty means none.
	Needs []ports.Capability
	// Wants names capabilities the operation is for but runs without
	// (batch_decompile reports every item unavailable): the call is not
	// refused, but tool availability is false, with the same remediation as
	// a missing need, while the bound provider lacks one.
	Wants []ports.Capability
	// NeedsTarget marks operations that need an open target.
	NeedsTarget bool
	// MissingRemediation and MissingReason replace the generic advice when
	// the bound provider lacks one of Needs (e.g. name the engine that has it).
	MissingRemediation string
	MissingReason      string
	// Remedy, when set, is the remediation of arguments the schema refuses
	// (issues) naming what to pass, in place of the generic advice ("" keeps it).
	Remedy func(c *Catalog, issues []Issue) string
	// Unavailable, when set, says why the registry cannot serve the
	// operation now (an engine not wired in, a browser not installed):
	// a non-empty reason and its remediation for tool_availability.
	Unavailable func(*Registry) (reason, remediation string)
	Handler     Handler
	// Types are the Go input and result types (Family.Types).
	Types Types

	once                  sync.Once
	outOnce               sync.Once
	outErr                error
	schema                *jsonschema.Schema
	presFull, presCompact presented
	// examplesCatalog validates examples while presenting (set by NewCatalog).
	examplesCatalog  *Catalog
	output           json.RawMessage // advertised (rea/core/present)
	completeOutput   json.RawMessage
	completeOnce     sync.Once
	completeCompiled *jsonschema.Schema
	completeErr      error
	prepErr          error
	defaultsOnce     sync.Once
	defaults         []byte // inputDefaults
}

// prepare compiles the input schema once, on first validation, so start-up
// does not pay for operations nobody calls.
func (o *Operation) prepare() error {
	o.once.Do(func() {
		o.schema, o.prepErr = compileSchema(o.Name, o.Input)
	})
	return o.prepErr
}

// prepareOutput builds the advertised output schema once (without compiling
// it; Catalog.Check compiles every output schema in the tests).
func (o *Operation) prepareOutput() error {
	o.outOnce.Do(func() {
		if c := o.cached(); c != nil {
			o.completeOutput, o.output = c.CompleteOutput, c.Output
			return
		}
		o.completeOutput, o.output, o.outErr = buildOutputSchemas(o)
	})
	return o.outErr
}

// ProducesEvidence reports whether a success is an Evidence record.
func (o *Operation) ProducesEvidence() bool { return !o.RequiresSession }

// OutputSchema is the advertised output schema (tools/list): a projection
// of CompleteOutputSchema that every valid output also matches.
func (o *Operation) OutputSchema() json.RawMessage {
	if err := o.prepareOutput(); err != nil {
		panic("core: " + err.Error()) // a broken declared schema is a programmer error; Catalog.Check finds it in tests
	}
	return o.output
}

// CompleteOutputSchema is the output schema with the result's complete
// declared shape.
func (o *Operation) CompleteOutputSchema() json.RawMessage {
	if err := o.prepareOutput(); err != nil {
		panic("core: " + err.Error())
	}
	return o.completeOutput
}

// Catalog is the ordered set of operations.
type Catalog struct {
	ops     []*Operation
	byName  map[string]*Operation
	idOnce  sync.Once
	id      CatalogIdentity
	profile SchemaProfile
	// checkOutputs validates every success (core/advertise.go).
	checkOutputs bool
	// fresh bypasses the presentation cache (core/advertise.go).
	fresh bool
	// viewers and summarizers come from the families (Assemble).
	viewers     map[string]Viewer
	summarizers map[string]Summarizer
	// analystNames is the family hook behind Call.AnalystNames (Assemble).
	analystNames NameOverlay
	annotations  AnnotationSource // behind Call.Annotations
}

// SetInputProfile selects how input schemas are advertised (start-up only,
// before the catalog is served or its identity read).
func (c *Catalog) SetInputProfile(p SchemaProfile) { c.profile = p }

// InputProfile is the advertised input schema profile (full by default).
func (c *Catalog) InputProfile() SchemaProfile {
	if c.profile == "" {
		return ProfileFull
	}
	return c.profile
}

// AdvertisedInput is op's input schema as this catalog advertises it.
func (c *Catalog) AdvertisedInput(op *Operation) json.RawMessage {
	return op.AdvertisedInput(c.InputProfile())
}

// NewCatalog indexes ops, with no viewers or summarizers (Assemble adds
// a family's). It fails on a duplicate name or a missing
// handler; schemas are compiled lazily, and Check verifies all of them.
func NewCatalog(ops []*Operation) (*Catalog, error) {
	c := &Catalog{byName: map[string]*Operation{}, viewers: map[string]Viewer{}, summarizers: map[string]Summarizer{}}
	for _, op := range ops {
		if _, dup := c.byName[op.Name]; dup {
			return nil, fmt.Errorf("catalog: duplicate operation %s", op.Name)
		}
		if op.Handler == nil {
			return nil, fmt.Errorf("catalog: %s has no handler", op.Name)
		}
		op.examplesCatalog = c
		c.byName[op.Name] = op
		c.ops = append(c.ops, op)
	}
	sort.Slice(c.ops, func(i, j int) bool { return c.ops[i].Name < c.ops[j].Name })
	return c, nil
}

// Check compiles every schema, builds every output schema and validates
// every advertised example: the catalog's own contract, run by the tests.
func (c *Catalog) Check() error {
	for _, op := range c.ops {
		if err := op.prepare(); err != nil {
			return err
		}
		if err := op.prepareOutput(); err != nil {
			return err
		}
		if _, err := compileSchema(op.Name+":output", op.output); err != nil {
			return err
		}
		if _, err := op.completeSchema(); err != nil { // compiles the complete output schema
			return err
		}
		for _, p := range []SchemaProfile{ProfileFull, ProfileCompact} {
			if err := op.checkAdvertised(c, p); err != nil {
				return err
			}
		}
		for i, ex := range op.Examples {
			if _, err := c.validate(op, ex); err != nil {
				return fmt.Errorf("catalog: %s example %d: %v", op.Name, i, err)
			}
		}
	}
	return nil
}

func compileSchema(name string, schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("catalog: %s schema: %w", name, err)
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.AssertFormat()
	url := "urn:rea:input:" + name
	if err := comp.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("catalog: %s schema: %w", name, err)
	}
	sch, err := comp.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("catalog: %s schema: %w", name, err)
	}
	return sch, nil
}

// Operations returns every operation sorted by name (code-point order).
func (c *Catalog) Operations() []*Operation { return c.ops }

// Lookup finds an operation by name.
func (c *Catalog) Lookup(name string) (*Operation, bool) {
	op, ok := c.byName[name]
	return op, ok
}

// Validate checks raw arguments against op's canonical schema and returns
// them decoded with top-level defaults applied. A failure is invalid_request
// with details.issues.
func (c *Catalog) Validate(op *Operation, raw json.RawMessage) (map[string]any, error) {
	return c.validate(op, raw)
}

func (c *Catalog) validate(op *Operation, raw json.RawMessage) (map[string]any, error) {
	if err := op.prepare(); err != nil {
		return nil, &Error{Code: CodeExecutionFailure, Message: err.Error(), Details: map[string]any{"operation": op.Name}}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	// One decode serves the validator and the handler: the tree the
	// schema accepted is the arguments (json.Number for numbers).
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, InvalidRequest(op.Name, Issue{Path: []any{}, Reason: ReasonInvalidType, Message: "arguments are not valid JSON: " + err.Error(), Expected: "object"})
	}
	if err := op.schema.Validate(inst); err != nil {
		if ve, ok := errors.AsType[*jsonschema.ValidationError](err); ok {
			e := InvalidRequest(op.Name, issuesOf(ve, inst, op.schema)...)
			if op.Remedy != nil && e.Remediation == "" { // a Rename comes first
				e.Remediation = op.Remedy(c, e.Details["issues"].([]Issue))
			}
			return nil, e
		}
		return nil, InvalidRequest(op.Name, Issue{Path: []any{}, Reason: ReasonInvalidValue, Message: err.Error()})
	}
	m, ok := inst.(map[string]any)
	if !ok {
		return nil, InvalidRequest(op.Name, Issue{Path: []any{}, Reason: ReasonInvalidType, Expected: "object"})
	}
	if d := op.inputDefaults(); len(d) > 2 { // the schema's top-level defaults, parsed once
		if defs, err := decodeJSON(d); err == nil {
			for k, v := range defs.(map[string]any) {
				if _, set := m[k]; !set {
					m[k] = v
				}
			}
		}
	}
	return m, nil
}

// issuesOf flattens a validation error tree about v, validated against
// root, into input issues.
func issuesOf(ve *jsonschema.ValidationError, v any, root *jsonschema.Schema) []Issue {
	var out []Issue
	enums := map[string]*kind.Enum{} // by location: a discriminator no branch's const accepts, as the one enum of them all
	var walk func(e *jsonschema.ValidationError, at []string)
	walk = func(e *jsonschema.ValidationError, at []string) { // at: under propertyNames, where the name is
		if pn, ok := e.ErrorKind.(*kind.PropertyNames); ok { // its causes checked the name alone, at ""
			_, ptr, _ := strings.Cut(strings.TrimSuffix(e.SchemaURL, "/propertyNames"), "#") // the object's schema: /properties/A/properties/B
			// The object's names: e.InstanceLocation may name a later sibling (the validator reuses its buffer).
			if at = strings.Split(strings.ReplaceAll(ptr, "/properties/", "/"), "/")[1:]; "/properties/"+strings.Join(at, "/properties/") != ptr {
				at = e.InstanceLocation // not a chain of properties ($ref, items)
			}
			at = append(slices.Clip(at), pn.Property)
		} else if c := *e; at != nil { // a copy, located at the name: a oneOf may walk a cause twice
			c.InstanceLocation, e = append(slices.Clip(at), e.InstanceLocation...), &c
		}
		right := slices.DeleteFunc(slices.Clone(e.Causes), func(x *jsonschema.ValidationError) bool { _, ty := x.ErrorKind.(*kind.Type); return ty })
		if kw := fmt.Sprint(e.ErrorKind.KeywordPath()); len(e.Causes) > 1 && len(right) > 0 && (kw == "[oneOf]" || kw == "[anyOf]") {
			// The closest alternative of the right type says what to fix: the one declaring the most of the object's keys (the
			// passive branch for compare_web_captures' before and after, whatever is wrong inside them), then the one with the
			// fewest issues: an Evidence record of the wrong operation is one issue there, not a dozen from the retained-reference
			// form, and a wrong resolution object gets no "want null".
			if loc, en := constsOf(right, len(e.InstanceLocation)+1); en != nil && len(en.Want) > 1 {
				enums[loc] = en
			}
			miss := undeclared(e, v, root, kw)
			n := func(x *jsonschema.ValidationError) int { return len(issuesOf(x, v, root)) }
			e = slices.MinFunc(right, func(a, b *jsonschema.ValidationError) int {
				return cmp.Or(cmp.Compare(miss[a], miss[b]), cmp.Compare(n(a), n(b)))
			})
		}
		if len(e.Causes) > 0 { // the validator checks properties in map order: by location, so the issues keep one order
			slices.SortStableFunc(e.Causes, func(a, b *jsonschema.ValidationError) int {
				return slices.Compare(a.InstanceLocation, b.InstanceLocation)
			})
			for _, c := range e.Causes {
				walk(c, at)
			}
			return
		}
		if _, ok := e.ErrorKind.(*kind.Const); ok && enums[fmt.Sprint(e.InstanceLocation)] != nil {
			c := *e
			c.ErrorKind, e = enums[fmt.Sprint(e.InstanceLocation)], &c
			out = append(issuesFor(e, v, root), out...) // first: the kind decides what the rest mean
			return
		}
		out = append(out, issuesFor(e, v, root)...)
	}
	walk(ve, nil)
	if len(out) == 0 {
		out = append(out, Issue{Path: []any{}, Reason: ReasonInvalidValue, Message: ve.Error()})
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(is Issue) bool { // keeps the first of equal issues
		k := fmt.Sprint(is.Path, is.Reason, is.Message)
		defer func() { seen[k] = true }()
		return seen[k]
	})
}

// constsOf finds, when every branch fails a const at one key depth deep
// (a kind that names no branch), that key's location and the consts.
func constsOf(branches []*jsonschema.ValidationError, depth int) (loc string, en *kind.Enum) {
	en = &kind.Enum{}
	for _, b := range branches {
		n := len(en.Want)
		for q := []*jsonschema.ValidationError{b}; len(en.Want) == n && len(q) > 0; q = append(q[1:], q[0].Causes...) {
			if k, ok := q[0].ErrorKind.(*kind.Const); ok && len(q[0].InstanceLocation) == depth && (n == 0 || loc == fmt.Sprint(q[0].InstanceLocation)) {
				loc, en.Got, en.Want = fmt.Sprint(q[0].InstanceLocation), k.Got, append(en.Want, k.Want)
			}
		}
		if len(en.Want) == n {
			return "", nil
		}
	}
	return loc, en
}

// undeclared counts, for each branch of the anyOf or oneOf (kw) that e
// reports failed, the keys of the object e is about that the branch does
// not declare (properties, its own or through $ref), keyed by the branch's
// error; nil when it cannot tell.
func undeclared(e *jsonschema.ValidationError, inst any, root *jsonschema.Schema, kw string) map[*jsonschema.ValidationError]int {
	inst, _ = argAt(inst, instancePath(e.InstanceLocation, inst))
	obj, _ := inst.(map[string]any)
	s := schemaAt(root, e.SchemaURL, map[*jsonschema.Schema]bool{})
	if len(obj) == 0 || s == nil {
		return nil
	}
	branches := map[string][]*jsonschema.Schema{"[anyOf]": s.AnyOf, "[oneOf]": s.OneOf}[kw]
	if len(branches) != len(e.Causes) { // every branch failed, each with one error, in order
		return nil
	}
	out := map[*jsonschema.ValidationError]int{}
	for i, b := range branches {
		for k := range obj {
			declared := false
			for r := b; r != nil && !declared; r = r.Ref {
				_, declared = r.Properties[k]
			}
			if !declared {
				out[e.Causes[i]]++
			}
		}
	}
	return out
}

// schemaAt returns the subschema of s at loc (a validation error's
// SchemaURL), or nil.
func schemaAt(s *jsonschema.Schema, loc string, seen map[*jsonschema.Schema]bool) *jsonschema.Schema {
	if s == nil || seen[s] {
		return nil
	}
	if seen[s] = true; s.Location == loc {
		return s
	}
	subs := slices.Concat([]*jsonschema.Schema{s.Ref, s.Not, s.If, s.Then, s.Else, s.Items2020, s.Contains, s.PropertyNames}, s.AllOf, s.AnyOf, s.OneOf,
		s.PrefixItems, slices.Collect(maps.Values(s.Properties)), slices.Collect(maps.Values(s.PatternProperties)), slices.Collect(maps.Values(s.DependentSchemas)))
	for _, x := range []any{s.AdditionalProperties, s.Items} {
		if x, ok := x.(*jsonschema.Schema); ok {
			subs = append(subs, x)
		}
	}
	for _, x := range subs {
		if f := schemaAt(x, loc, seen); f != nil {
			return f
		}
	}
	return nil
}

func instancePath(loc []string, inst any) []any { // a token is a number only as an index into an array inst holds: an object's key "0" stays "0"
	if len(loc) == 0 {
		return []any{}
	}
	a, _ := inst.([]any)
	if n, err := strconv.Atoi(loc[0]); err == nil && uint(n) < uint(len(a)) {
		return append([]any{n}, instancePath(loc[1:], a[n])...)
	}
	m, _ := inst.(map[string]any)
	return append([]any{loc[0]}, instancePath(loc[1:], m[loc[0]])...)
}

func issuesFor(e *jsonschema.ValidationError, inst any, root *jsonschema.Schema) []Issue {
	base := instancePath(e.InstanceLocation, inst)
	each := func(names []string, reason, format string, a ...any) (out []Issue) { // an issue at each name; format takes the name first
		for _, p := range names {
			out = append(out, Issue{Path: append(slices.Clip(base), p), Reason: reason, Message: fmt.Sprintf(format, append([]any{p}, a...)...)})
		}
		return out
	}
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		var names []string // the properties the object declares, itself or through $ref
		for s := schemaAt(root, e.SchemaURL, map[*jsonschema.Schema]bool{}); s != nil; s = s.Ref {
			names = slices.AppendSeq(names, maps.Keys(s.Properties))
		}
		out := each(k.Properties, ReasonUnknownArgument, "unknown argument %q")
		for i := range out {
			suggestName(&out[i], names)
		}
		return out
	case *kind.Required:
		return each(k.Missing, ReasonMissingArgument, "missing required argument %q")
	case *kind.DependentRequired:
		return each(k.Missing, ReasonMissingArgument, "%q is required with %q", k.Prop)
	case *kind.Type:
		return []Issue{{Path: base, Reason: ReasonInvalidType, Message: fmt.Sprintf("got %s, want %s", k.Got, strings.Join(k.Want, " or ")), Expected: strings.Join(k.Want, "|")}}
	case *kind.Minimum:
		return []Issue{{Path: base, Reason: ReasonOutOfRange, Message: "got " + plain(k.Got) + ", want at least " + plain(k.Want), Minimum: ratNumber(k.Want.RatString())}}
	case *kind.ExclusiveMinimum:
		return []Issue{{Path: base, Reason: ReasonOutOfRange, Message: "got " + plain(k.Got) + ", want more than " + plain(k.Want), Minimum: ratNumber(k.Want.RatString())}}
	case *kind.Maximum:
		return []Issue{{Path: base, Reason: ReasonOutOfRange, Message: "got " + plain(k.Got) + ", want at most " + plain(k.Want), Maximum: ratNumber(k.Want.RatString())}}
	case *kind.ExclusiveMaximum:
		return []Issue{{Path: base, Reason: ReasonOutOfRange, Message: "got " + plain(k.Got) + ", want less than " + plain(k.Want), Maximum: ratNumber(k.Want.RatString())}}
	case *kind.MinLength:
		return []Issue{{Path: base, Reason: ReasonOutOfRange, Message: e.Error(), Minimum: k.Want}}
	case *kind.MaxLength:
		return []Issue{{Path: base, Reason: ReasonOutOfRange, Message: e.Error(), Maximum: k.Want}}
	case *kind.MinItems:
		return []Issue{{Path: base, Reason: ReasonOutOfRange, Message: e.Error(), Minimum: k.Want}}
	case *kind.MaxItems:
		return []Issue{{Path: base, Reason: ReasonOutOfRange, Message: e.Error(), Maximum: k.Want}}
	case *kind.MinProperties, *kind.MaxProperties:
		return []Issue{{Path: base, Reason: ReasonOutOfRange, Message: e.Error()}}
	case *kind.Enum:
		return []Issue{{Path: base, Reason: ReasonInvalidValue, Message: e.Error(), Expected: k.Want}}
	case *kind.Const:
		return []Issue{{Path: base, Reason: ReasonInvalidValue, Message: e.Error(), Expected: k.Want}}
	case *kind.Pattern:
		return []Issue{{Path: base, Reason: ReasonInvalidFormat, Message: e.Error(), Expected: k.Want}}
	case *kind.Format:
		return []Issue{{Path: base, Reason: ReasonInvalidFormat, Message: e.Error(), Expected: k.Want}}
	case *kind.FalseSchema:
		if n := len(base); n > 0 {
			return []Issue{{Path: base, Reason: ReasonUnknownArgument, Message: fmt.Sprintf("unknown argument %v", base[n-1])}}
		}
	}
	return []Issue{{Path: base, Reason: ReasonInvalidValue, Message: e.Error()}}
}

// suggestName completes an unknown-argument issue (the name last in its
// path) with the one of names it most likely misspells, as "did you mean"
// and Expected: the one fewest edits away once case and - for _ are
// ignored, if at most a third of its length (two at most) and no other is
// as near. Tool arguments and prompt arguments share it.
func suggestName(is *Issue, names []string) {
	fold := func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "-", "_") }
	name, best, bestD, tie := fmt.Sprint(is.Path[len(is.Path)-1]), "", 3, false
	for _, p := range names {
		d := editDistance(fold(name), fold(p))
		if d > min(2, len(p)/3) || d > bestD || d == bestD && p == best {
			continue
		}
		best, tie, bestD = p, d == bestD, d
	}
	if best != "" && !tie {
		is.Message += fmt.Sprintf("; did you mean %q?", best)
		is.Expected = best
	}
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cur := row[j]
			if a[i-1] != b[j-1] {
				prev++
			}
			row[j], prev = min(row[j]+1, row[j-1]+1, prev), cur
		}
	}
	return row[len(b)]
}

// plain writes r in digits: the validator's messages print 100000000 as
// 1 × 10⁰⁸ and 65536 as 65,536.
func plain(r *big.Rat) string { f, _ := r.Float64(); return strconv.FormatFloat(f, 'f', -1, 64) }

func ratNumber(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	return s
}

// buildOutputSchemas builds op's complete output schema and the advertised
// projection of it (rea/core/present), each with its content-bound $id.
func buildOutputSchemas(op *Operation) (complete, advertised json.RawMessage, err error) {
	out, adv, err := present.Outputs(op.Result, op.RequiresSession)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: %s result schema: %w", op.Name, err)
	}
	if complete, err = withOutputID(out); err != nil {
		return nil, nil, err
	}
	if advertised, err = withOutputID(adv); err != nil {
		return nil, nil, err
	}
	return complete, advertised, nil
}

// withOutputID sets the content-bound $id (CONTRACTS.md §11.4) and encodes.
func withOutputID(schema map[string]any) (json.RawMessage, error) {
	c, err := AppendCanonical(nil, map[string]any{"target": "draft-2020-12", "schema": schema})
	if err != nil {
		return nil, err
	}
	schema["$id"] = "urn:rea:tool-output:sha256:" + hexSum(c)
	return MarshalNoEscape(schema)
}
