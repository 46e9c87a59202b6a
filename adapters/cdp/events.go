package cdp

import "encoding/json"

// Event payloads, decoded with encoding/json into pointer fields where
// absence differs from zero (BROWSER.md §1: ids, line numbers), and without
// cdproto's eager base64 decoding so a bad WebSocket payload is counted, not
// fatal.

// oneBased converts a CDP line number (0-based, as V8 counts) to rea's
// 1-based line; nil stays nil. CDP columns are already rea's: 0-based, in
// UTF-16 code units.
func oneBased(line *int) *int {
	if line == nil {
		return nil
	}
	l := *line + 1
	return &l
}

type evCallFrame struct {
	URL          string `json:"url"`
	LineNumber   *int   `json:"lineNumber"`
	ColumnNumber *int   `json:"columnNumber"`
}

type evStackTrace struct {
	CallFrames []evCallFrame `json:"callFrames"`
	Parent     *evStackTrace `json:"parent"`
}

type evScriptParsed struct {
	ScriptID           *string `json:"scriptId"`
	URL                string  `json:"url"`
	ExecutionContextID int64   `json:"executionContextId"`
	Hash               string  `json:"hash"`
	Length             int     `json:"length"`
	IsModule           bool    `json:"isModule"`
	ScriptLanguage     string  `json:"scriptLanguage"`
	SourceMapURL       string  `json:"sourceMapURL"`
}

type evRequest struct {
	URL         string          `json:"url"`
	URLFragment string          `json:"urlFragment"`
	Method      string          `json:"method"`
	PostData    *string         `json:"postData"`
	Headers     json.RawMessage `json:"headers"`
}

type evInitiator struct {
	Type         string        `json:"type"`
	URL          string        `json:"url"`
	LineNumber   *int          `json:"lineNumber"`
	ColumnNumber *int          `json:"columnNumber"`
	Stack        *evStackTrace `json:"stack"`
}

type evResponse struct {
	URL      string         `json:"url"`
	Status   int            `json:"status"`
	MimeType string         `json:"mimeType"`
	Headers  map[string]any `json:"headers"`
}

type evRequestWillBeSent struct {
	RequestID        *string      `json:"requestId"`
	LoaderID         string       `json:"loaderId"`
	Request          *evRequest   `json:"request"`
	Initiator        *evInitiator `json:"initiator"`
	RedirectResponse *evResponse  `json:"redirectResponse"`
	Type             string       `json:"type"`
	FrameID          string       `json:"frameId"`
}

type evResponseReceived struct {
	RequestID *string     `json:"requestId"`
	LoaderID  string      `json:"loaderId"`
	FrameID   string      `json:"frameId"`
	Type      string      `json:"type"`
	Response  *evResponse `json:"response"`
}

type evLoadingFinished struct {
	RequestID         string  `json:"requestId"`
	EncodedDataLength float64 `json:"encodedDataLength"`
}

type evLoadingFailed struct {
	RequestID string `json:"requestId"`
	ErrorText string `json:"errorText"`
	Type      string `json:"type"`
}

type evRemoteObject struct {
	Type                string          `json:"type"`
	Subtype             string          `json:"subtype"`
	Description         string          `json:"description"`
	Value               json.RawMessage `json:"value"`
	UnserializableValue string          `json:"unserializableValue"`
}

type evConsoleAPICalled struct {
	Type               string           `json:"type"`
	Args               []evRemoteObject `json:"args"`
	ExecutionContextID int64            `json:"executionContextId"`
	Timestamp          float64          `json:"timestamp"`
	StackTrace         *evStackTrace    `json:"stackTrace"`
}

// evExceptionThrown is Runtime.exceptionThrown: an exception the page did
// not catch (what DevTools' console shows in red).
type evExceptionThrown struct {
	Timestamp        float64 `json:"timestamp"`
	ExceptionDetails *struct {
		Text         string          `json:"text"`
		URL          string          `json:"url"`
		LineNumber   *int            `json:"lineNumber"`
		ColumnNumber *int            `json:"columnNumber"`
		StackTrace   *evStackTrace   `json:"stackTrace"`
		Exception    *evRemoteObject `json:"exception"`
	} `json:"exceptionDetails"`
}

type evWebSocketCreated struct {
	RequestID string `json:"requestId"`
	URL       string `json:"url"`
}

type evWebSocketFrame struct {
	RequestID string `json:"requestId"`
	Response  *struct {
		Opcode      float64 `json:"opcode"`
		PayloadData string  `json:"payloadData"`
	} `json:"response"`
}

type evExecutionContextCreated struct {
	Context struct {
		ID      int64 `json:"id"`
		AuxData struct {
			FrameID string `json:"frameId"`
		} `json:"auxData"`
	} `json:"context"`
}

type evExecutionContextDestroyed struct {
	ExecutionContextID int64 `json:"executionContextId"`
}

type evFrame struct {
	ID          string `json:"id"`
	ParentID    string `json:"parentId"`
	LoaderID    string `json:"loaderId"`
	URL         string `json:"url"`
	URLFragment string `json:"urlFragment"`
}

type evFrameNavigated struct {
	Frame *evFrame `json:"frame"`
	Type  string   `json:"type"`
}

type evNavigatedWithinDocument struct {
	FrameID string `json:"frameId"`
	URL     string `json:"url"`
}

type evFrameRequestedNavigation struct {
	FrameID     string `json:"frameId"`
	Reason      string `json:"reason"`
	URL         string `json:"url"`
	Disposition string `json:"disposition"`
}

type evLifecycle struct {
	FrameID  string `json:"frameId"`
	LoaderID string `json:"loaderId"`
	Name     string `json:"name"`
}

type evDetached struct {
	SessionID string `json:"sessionId"`
	TargetID  string `json:"targetId"`
}

type evFrameDetached struct {
	FrameID string `json:"frameId"`
}

// decode unmarshals an event's params; false means the payload is
// malformed for its method.
func decode(params json.RawMessage, v any) bool {
	return json.Unmarshal(params, v) == nil
}

// topFrame is the first call frame walking stack → parent (≤32 levels).
func topFrame(st *evStackTrace) *evCallFrame {
	for i := 0; st != nil && i < 32; i++ {
		if len(st.CallFrames) > 0 {
			return &st.CallFrames[0]
		}
		st = st.Parent
	}
	return nil
}
