package diff

import (
	"encoding/json"

	"rea/core"
)

// The Go input and result type of each of this family's operations,
// registered as Family.Types. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.

// CompareFunctionsInput is the input of compare_functions.
type CompareFunctionsInput struct {
	Left  json.RawMessage `json:"left"`
	Right json.RawMessage `json:"right"`
}

// CompareFunctionsResultLeft is part of the result of compare_functions.
type CompareFunctionsResultLeft struct {
	EvidenceID   string  `json:"evidence_id"`
	Name         string  `json:"name"`
	Address      string  `json:"address"`
	TargetSHA256 *string `json:"target_sha256"`
	Architecture *string `json:"architecture"`
	ProviderID   string  `json:"provider_id"`
}

// CompareFunctionsResultDimensionsInstructions is one dimension of the
// result of compare_functions.
type CompareFunctionsResultDimensionsInstructions = dimension

// CompareFunctionsResultDimensions is part of the result of compare_functions.
type CompareFunctionsResultDimensions struct {
	Instructions CompareFunctionsResultDimensionsInstructions `json:"instructions"`
	Calls        CompareFunctionsResultDimensionsInstructions `json:"calls"`
	References   CompareFunctionsResultDimensionsInstructions `json:"references"`
	Strings      CompareFunctionsResultDimensionsInstructions `json:"strings"`
	Constants    CompareFunctionsResultDimensionsInstructions `json:"constants"`
	CFG          CompareFunctionsResultDimensionsInstructions `json:"cfg"`
}

// CompareFunctionsResult is the result of compare_functions.
type CompareFunctionsResult struct {
	Left              CompareFunctionsResultLeft       `json:"left"`
	Right             CompareFunctionsResultLeft       `json:"right"`
	SameFunction      bool                             `json:"same_function"`
	Status            string                           `json:"status"`
	Similarity        *float64                         `json:"similarity"`
	ChangedDimensions []string                         `json:"changed_dimensions"`
	UnknownDimensions []string                         `json:"unknown_dimensions"`
	Dimensions        CompareFunctionsResultDimensions `json:"dimensions"`
	Notes             []string                         `json:"notes"`
}

// CompareBinariesInput is the input of compare_binaries.
type CompareBinariesInput struct {
	LeftPath   string `json:"left_path"`             // The older binary.
	RightPath  string `json:"right_path"`            // The newer binary.
	Detail     string `json:"detail,omitempty"`      // concise: counts and the changed, added, removed and renamed lists; complete: also the unchanged list and every dimen...
	ProviderID string `json:"provider_id,omitempty"` // Provider for both binaries; default: the one open_binary would choose.
}

// CompareBinariesResultLeft is part of the result of compare_binaries.
type CompareBinariesResultLeft struct {
	Path         string  `json:"path"`
	SHA256       string  `json:"sha256"`
	Format       string  `json:"format"`
	Architecture *string `json:"architecture"`
	ProviderID   string  `json:"provider_id"`
	Functions    int     `json:"functions"`
	Imports      int     `json:"imports"`
}

// CompareBinariesResultSummary is part of the result of compare_binaries.
type CompareBinariesResultSummary struct {
	LeftFunctions  int            `json:"left_functions"`
	RightFunctions int            `json:"right_functions"`
	Matched        int            `json:"matched"`
	Unchanged      int            `json:"unchanged"`
	Changed        int            `json:"changed"`
	Added          int            `json:"added"`
	Removed        int            `json:"removed"`
	MatchRate      *float64       `json:"match_rate"` // Matched functions over the functions of the smaller side.
	ByBasis        map[string]int `json:"by_basis"`
}

// CompareBinariesResultNotComparableItem is part of the result of compare_binaries.
type CompareBinariesResultNotComparableItem struct {
	Dimension string `json:"dimension"`
	Reason    string `json:"reason"`
}

// CompareBinariesResultChangedItemLeft is part of the result of compare_binaries.
type CompareBinariesResultChangedItemLeft struct {
	Name    string `json:"name"`
	Address string `json:"address"`
}

// CompareBinariesResultChangedItem is part of the result of compare_binaries.
type CompareBinariesResultChangedItem struct {
	Left              CompareBinariesResultChangedItemLeft `json:"left"`
	Right             CompareBinariesResultChangedItemLeft `json:"right"`
	Basis             string                               `json:"basis"`
	Similarity        *float64                             `json:"similarity"`
	Status            string                               `json:"status"`
	ChangedDimensions []string                             `json:"changed_dimensions,omitzero"`
	Differences       map[string]DimensionDifferences      `json:"differences,omitzero"` // a changed function's changed dimensions
	// Dimensions is each dimension's status (map[string]string) for a changed
	// function in the concise result, every dimension in full
	// (map[string]*CompareFunctionsResultDimensionsInstructions) in the
	// complete one, and absent otherwise.
	Dimensions        any      `json:"dimensions,omitempty"`
	MatchSimilarity   *float64 `json:"match_similarity,omitempty"` // always set
	UnknownDimensions []string `json:"unknown_dimensions,omitzero"`
}

// DimensionDifferences are the differences of one changed dimension.
type DimensionDifferences struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changes []string `json:"changes"`
	Omitted int      `json:"omitted"`
	// Imports, in the calls dimension only, are the names in Added and
	// Removed that are imports (a stub's puts@plt, a slot's puts).
	Imports []string `json:"imports,omitzero"`
}

// CompareBinariesResultImports is part of the result of compare_binaries.
type CompareBinariesResultImports struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
}

// CompareBinariesResult is the result of compare_binaries.
type CompareBinariesResult struct {
	Left          CompareBinariesResultLeft                `json:"left"`
	Right         CompareBinariesResultLeft                `json:"right"`
	Detail        string                                   `json:"detail"`
	Summary       CompareBinariesResultSummary             `json:"summary"`
	NotComparable []CompareBinariesResultNotComparableItem `json:"not_comparable"`
	Changed       []CompareBinariesResultChangedItem       `json:"changed"`
	Added         []CompareBinariesResultChangedItemLeft   `json:"added"`
	Removed       []CompareBinariesResultChangedItemLeft   `json:"removed"`
	Unchanged     []CompareBinariesResultChangedItem       `json:"unchanged"`
	Renamed       []CompareBinariesResultRenamedItem       `json:"renamed,omitempty"`
	Imports       CompareBinariesResultImports             `json:"imports"`
	Data          CompareBinariesResultData                `json:"data"`
	Limitations   []string                                 `json:"limitations"`
}

// CompareBinariesResultRenamedItem is a matched function named differently
// on each side.
type CompareBinariesResultRenamedItem struct {
	Left  CompareBinariesResultChangedItemLeft `json:"left"`
	Right CompareBinariesResultChangedItemLeft `json:"right"`
}

// CompareBinariesResultData is how the binaries' data compare: strings
// added and removed, and the data sections whose bytes differ.
type CompareBinariesResultData struct {
	Strings         CompareBinariesResultDataStrings `json:"strings"`
	SectionsChanged []string                         `json:"sections_changed"`
}

// CompareBinariesResultDataStrings lists the strings only one binary holds.
type CompareBinariesResultDataStrings struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Omitted int      `json:"omitted"`
}

// FindChangedBehaviorInput is the input of find_changed_behavior.
type FindChangedBehaviorInput struct {
	Comparison json.RawMessage `json:"comparison,omitempty"`
	LeftPath   string          `json:"left_path,omitempty"`  // The older binary.
	Limit      *int            `json:"limit,omitempty"`      // Ranked items returned.
	Offset     *int            `json:"offset,omitempty"`     // First ranked item returned.
	RightPath  string          `json:"right_path,omitempty"` // The newer binary.
}

// FindChangedBehaviorResultItemBehaviour is part of the result of find_changed_behavior.
type FindChangedBehaviorResultItemBehaviour struct {
	Kind    string   `json:"kind"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changes []string `json:"changes"`
}

// FindChangedBehaviorResultItem is part of the result of find_changed_behavior.
type FindChangedBehaviorResultItem struct {
	Rank       int                                      `json:"rank"`
	Left       CompareBinariesResultChangedItemLeft     `json:"left"`
	Right      CompareBinariesResultChangedItemLeft     `json:"right"`
	Score      float64                                  `json:"score"`
	Similarity *float64                                 `json:"similarity"`
	Behaviours []FindChangedBehaviorResultItemBehaviour `json:"behaviours"`
	EvidenceID string                                   `json:"evidence_id"`
}

// FindChangedBehaviorResult is the result of find_changed_behavior.
type FindChangedBehaviorResult struct {
	ComparisonEvidenceID string                                 `json:"comparison_evidence_id"`
	Items                []FindChangedBehaviorResultItem        `json:"items"`
	Total                int                                    `json:"total"`
	NextOffset           *int                                   `json:"next_offset"`
	Added                []CompareBinariesResultChangedItemLeft `json:"added"`
	Removed              []CompareBinariesResultChangedItemLeft `json:"removed"`
}

// BuildCallPathInput is the input of build_call_path.
type BuildCallPathInput struct {
	Functions []json.RawMessage `json:"functions"`
	Start     string            `json:"start"`               // The procedure to start from: a name or an address.
	Goal      string            `json:"goal"`                // The procedure to reach: a name or an address.
	Limit     *int              `json:"limit,omitempty"`     // Paths returned.
	MaxDepth  *int              `json:"max_depth,omitempty"` // Calls per path at most.
	MaxPaths  *int              `json:"max_paths,omitempty"` // Paths enumerated at most.
	Offset    *int              `json:"offset,omitempty"`    // First path returned.
}

// BuildCallPathResultPathStep is part of the result of build_call_path.
type BuildCallPathResultPathStep struct {
	Name       string  `json:"name"`
	Address    string  `json:"address"`
	EvidenceID *string `json:"evidence_id"`
}

// BuildCallPathResultPath is part of the result of build_call_path.
type BuildCallPathResultPath struct {
	Length int                           `json:"length"`
	Steps  []BuildCallPathResultPathStep `json:"steps"`
}

// BuildCallPathResult is the result of build_call_path.
type BuildCallPathResult struct {
	Start      CompareBinariesResultChangedItemLeft   `json:"start"`
	Goal       CompareBinariesResultChangedItemLeft   `json:"goal"`
	Paths      []BuildCallPathResultPath              `json:"paths"`
	Total      int                                    `json:"total"`
	NextOffset *int                                   `json:"next_offset"`
	Truncated  bool                                   `json:"truncated"`
	Frontier   []CompareBinariesResultChangedItemLeft `json:"frontier"`
	Notes      []string                               `json:"notes"`
}

// CorrelateStaticAndRuntimeMapping is one mapping of
// correlate_static_and_runtime: which build a runtime record observed.
type CorrelateStaticAndRuntimeMapping struct {
	RuntimeEvidenceID string `json:"runtime_evidence_id"` // A record of runtime_comparisons.
	Side              string `json:"side"`                // left (older), right (newer) or both.
}

// CorrelateStaticAndRuntimeInput is the input of correlate_static_and_runtime.
// Each Evidence element is a retained reference
// {"kind":"retained-evidence","evidence_id"} or a complete inline record.
type CorrelateStaticAndRuntimeInput struct {
	StaticComparisons  []json.RawMessage                  `json:"static_comparisons"`  // compare_binaries or compare_functions Evidence.
	RuntimeComparisons []json.RawMessage                  `json:"runtime_comparisons"` // trace_native_calls or compare_process_captures Evidence.
	Mappings           []CorrelateStaticAndRuntimeMapping `json:"mappings"`
	Limit              *int                               `json:"limit,omitempty"`  // Functions returned.
	Offset             *int                               `json:"offset,omitempty"` // First function returned.
}

// CorrelateStaticAndRuntimeResultFunction is part of the result of correlate_static_and_runtime.
type CorrelateStaticAndRuntimeResultFunction struct {
	Left              *CompareBinariesResultChangedItemLeft `json:"left"`
	Right             *CompareBinariesResultChangedItemLeft `json:"right"`
	StaticStatus      string                                `json:"static_status"`
	ChangedDimensions []string                              `json:"changed_dimensions"`
	StaticEvidenceID  string                                `json:"static_evidence_id"`
	LeftHits          *int                                  `json:"left_hits"` // null when no left trace covered this function
	RightHits         *int                                  `json:"right_hits"`
	ArgumentsDiffer   *bool                                 `json:"arguments_differ"` // null unless both sides ran it
	Correlation       string                                `json:"correlation"`
	TraceEvidenceIDs  []string                              `json:"trace_evidence_ids"`
}

// CorrelateStaticAndRuntimeResultRuntime is part of the result of correlate_static_and_runtime.
type CorrelateStaticAndRuntimeResultRuntime struct {
	EvidenceID        string   `json:"evidence_id"`
	Operation         string   `json:"operation"`
	Side              string   `json:"side"`
	Status            *string  `json:"status"`
	ChangedDimensions []string `json:"changed_dimensions"`
}

// CorrelateStaticAndRuntimeResult is the result of correlate_static_and_runtime.
type CorrelateStaticAndRuntimeResult struct {
	Functions   []CorrelateStaticAndRuntimeResultFunction `json:"functions"`
	Runtime     []CorrelateStaticAndRuntimeResultRuntime  `json:"runtime"`
	Total       int                                       `json:"total"`
	Offset      int                                       `json:"offset"`
	Limit       int                                       `json:"limit"`
	NextOffset  *int                                      `json:"next_offset"`
	Summary     map[string]int                            `json:"summary"` // functions by correlation
	Limitations []string                                  `json:"limitations"`
}

var operationTypes = map[string]core.Types{
	"compare_functions":            core.TypesOf[CompareFunctionsInput, CompareFunctionsResult](),
	"compare_binaries":             core.TypesOf[CompareBinariesInput, CompareBinariesResult](),
	"find_changed_behavior":        core.TypesOf[FindChangedBehaviorInput, FindChangedBehaviorResult](),
	"build_call_path":              core.TypesOf[BuildCallPathInput, BuildCallPathResult](),
	"correlate_static_and_runtime": core.TypesOf[CorrelateStaticAndRuntimeInput, CorrelateStaticAndRuntimeResult](),
}
