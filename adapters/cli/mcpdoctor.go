package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"time"

	"rea/core"
)

type mcpCmd struct {
	Doctor mcpDoctorCmd `cmd:"" help:"Start this rea as an MCP server (rea serve) and check initialize, the exact inventory, the server identity and one request; exit 0 only when healthy."`
}

type mcpDoctorCmd struct {
	Timeout time.Duration `default:"30s" help:"Deadline for the whole check."`
}

// mcpDoctorProtocol is the protocol version rea mcp doctor asks for.
const mcpDoctorProtocol = "2025-06-18"

// rpcClient speaks newline-delimited JSON-RPC to a child's stdio.
type rpcClient struct {
	w    io.Writer
	r    *bufio.Reader
	next int
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (c *rpcClient) notify(method string, params any) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// call sends one request and reads until its response, skipping
// notifications and requests from the server.
func (c *rpcClient) call(method string, params any, result any) error {
	c.next++
	id := c.next
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%s: write: %w", method, err)
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("%s: the server closed its output: %w", method, err)
		}
		var msg struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			Result json.RawMessage  `json:"result"`
			Error  *rpcError        `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			return fmt.Errorf("%s: a line that is not JSON-RPC: %w", method, err)
		}
		if msg.ID == nil || msg.Method != "" || string(*msg.ID) != fmt.Sprint(id) {
			continue
		}
		if msg.Error != nil {
			return fmt.Errorf("%s: error %d: %s", method, msg.Error.Code, msg.Error.Message)
		}
		return json.Unmarshal(msg.Result, result)
	}
}

// list pages through a list method and returns the values of key's
// field in every item.
func (c *rpcClient) list(method, key, field string) ([]string, error) {
	var out []string
	cursor := ""
	for page := 0; page < 100; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res map[string]json.RawMessage
		if err := c.call(method, params, &res); err != nil {
			return nil, err
		}
		var items []map[string]any
		if err := json.Unmarshal(res[key], &items); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", method, key, err)
		}
		for _, it := range items {
			s, _ := it[field].(string)
			out = append(out, s)
		}
		cursor = ""
		if raw, ok := res["nextCursor"]; ok {
			_ = json.Unmarshal(raw, &cursor)
		}
		if cursor == "" {
			sort.Strings(out)
			return out, nil
		}
	}
	return nil, fmt.Errorf("%s: more than 100 pages", method)
}

func (c *mcpDoctorCmd) Run(e *env) error {
	rep := e.mcpDoctor(c.Timeout)
	if e.g.Format == "json" {
		if err := e.writeJSON(rep); err != nil {
			return err
		}
	} else if err := writeChecks(e.opts.Stdout, "rea mcp doctor", rep.Checks, rep.Healthy, false); err != nil {
		return err
	}
	if !rep.Healthy {
		return errNotReady
	}
	return nil
}

type mcpDoctorReport struct {
	Healthy bool     `json:"healthy"`
	Command []string `json:"command"`
	Checks  []Check  `json:"checks"`
}

// mcpDoctor starts `<this binary> serve` as a child it owns (its own
// process group, stdin closed then the group killed at the deadline) and
// checks it as an MCP client would.
func (e *env) mcpDoctor(timeout time.Duration) *mcpDoctorReport {
	rep := &mcpDoctorReport{Command: []string{e.opts.Executable, "serve"}}
	add := func(name string, err error, detail string) bool {
		c := Check{Name: name, OK: err == nil, Classification: "healthy", Detail: detail}
		if err != nil {
			c.Classification, c.Detail = "config_drift", err.Error()
			c.Remediation = "run rea doctor, reinstall rea, or compare the server's rea version with this one"
		}
		rep.Checks = append(rep.Checks, c)
		return err == nil
	}
	defer func() {
		rep.Healthy = len(rep.Checks) > 0
		for _, c := range rep.Checks {
			rep.Healthy = rep.Healthy && c.OK
		}
	}()
	if e.opts.Executable == "" {
		add("start", errors.New("this build does not know its own executable"), "")
		return rep
	}
	ctx, cancel := context.WithTimeout(e.ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.opts.Executable, "serve")
	ownGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4096}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		add("start", err, "")
		return rep
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		add("start", err, "")
		return rep
	}
	if err := cmd.Start(); err != nil {
		add("start", err, "")
		return rep
	}
	defer func() {
		stdin.Close() // rea serve ends at end of input
		if err := cmd.Wait(); err != nil && ctx.Err() == nil {
			add("shutdown", fmt.Errorf("rea serve exited with %v: %s", err, strings.TrimSpace(stderr.String())), "")
		} else if ctx.Err() != nil {
			add("shutdown", fmt.Errorf("the check did not finish within %s; the server was stopped", timeout), "")
		} else {
			add("shutdown", nil, "rea serve exited when its input ended")
		}
	}()
	c := &rpcClient{w: stdin, r: bufio.NewReaderSize(stdout, 1<<20)}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct{ Name, Version string }
		Capabilities    map[string]json.RawMessage
	}
	err = c.call("initialize", map[string]any{"protocolVersion": mcpDoctorProtocol, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "rea-mcp-doctor", "version": e.opts.Identity.Version}}, &init)
	if err == nil {
		var missing []string
		for _, k := range []string{"tools", "prompts", "resources"} {
			if _, ok := init.Capabilities[k]; !ok {
				missing = append(missing, k)
			}
		}
		switch {
		case init.ServerInfo.Name != "rea":
			err = fmt.Errorf("the server is %q, not rea", init.ServerInfo.Name)
		case len(missing) > 0:
			err = fmt.Errorf("capabilities %s are not declared", strings.Join(missing, ", "))
		}
	}
	if !add("initialize", err, fmt.Sprintf("%s %s, protocol %s", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion)) {
		return rep
	}
	if err := c.notify("notifications/initialized", map[string]any{}); err != nil {
		add("initialized", err, "")
		return rep
	}

	var toolNames, promptNames, resourceURIs, templateURIs []string
	for _, op := range e.opts.Catalog.Operations() {
		toolNames = append(toolNames, op.Name)
	}
	for _, p := range core.Prompts() {
		promptNames = append(promptNames, p.Name)
	}
	for _, r := range core.Resources() {
		resourceURIs = append(resourceURIs, r.URI)
	}
	for _, t := range core.ResourceTemplates() {
		templateURIs = append(templateURIs, t.URITemplate)
	}
	for _, inv := range []struct {
		name, method, key, field string
		want                     []string
	}{
		{"inventory:tools", "tools/list", "tools", "name", toolNames},
		{"inventory:prompts", "prompts/list", "prompts", "name", promptNames},
		{"inventory:resources", "resources/list", "resources", "uri", resourceURIs},
		{"inventory:resource_templates", "resources/templates/list", "resourceTemplates", "uriTemplate", templateURIs},
	} {
		got, err := c.list(inv.method, inv.key, inv.field)
		want := append([]string{}, inv.want...)
		sort.Strings(want)
		if err == nil {
			err = sameNames(got, want)
		}
		add(inv.name, err, fmt.Sprintf("%d, as this build's catalog", len(got)))
	}

	// One request: binary_session with this build's expectations.
	combined := e.opts.Catalog.Identity().Combined
	var call struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Result struct {
				ServerIdentity struct {
					Package struct{ Version string }
					Catalog struct {
						CombinedSHA256 string `json:"combined_sha256"`
					}
					Alignment struct {
						State   string
						Reasons []string
					}
				} `json:"server_identity"`
			}
		} `json:"structuredContent"`
		Content []struct{ Text string }
	}
	err = c.call("tools/call", map[string]any{"name": "binary_session", "arguments": map[string]any{
		"expected_package_version": e.opts.Identity.Version, "expected_catalog_digest": combined}}, &call)
	if err == nil && call.IsError {
		text := ""
		if len(call.Content) > 0 {
			text = call.Content[0].Text
		}
		err = fmt.Errorf("binary_session failed: %s", text)
	}
	if !add("request-flow", err, "binary_session answered") {
		return rep
	}
	id := call.StructuredContent.Result.ServerIdentity
	err = nil
	switch {
	case id.Package.Version != e.opts.Identity.Version:
		err = fmt.Errorf("the server reports version %s, this rea is %s", id.Package.Version, e.opts.Identity.Version)
	case id.Catalog.CombinedSHA256 != combined:
		err = fmt.Errorf("the server's catalog digest %s differs from this rea's %s", id.Catalog.CombinedSHA256, combined)
	case id.Alignment.State != "aligned":
		err = fmt.Errorf("alignment %s (%s)", id.Alignment.State, strings.Join(id.Alignment.Reasons, ", "))
	}
	add("server-identity", err, fmt.Sprintf("version %s, catalog %s", id.Package.Version, shortDigest(id.Catalog.CombinedSHA256)))
	return rep
}

func shortDigest(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// sameNames reports the first differences between two sorted lists.
func sameNames(got, want []string) error {
	g, w := map[string]bool{}, map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	for _, s := range want {
		w[s] = true
	}
	var extra, missing []string
	for _, s := range got {
		if !w[s] {
			extra = append(extra, s)
		}
	}
	for _, s := range want {
		if !g[s] {
			missing = append(missing, s)
		}
	}
	if len(extra) == 0 && len(missing) == 0 && len(got) == len(want) {
		return nil
	}
	return fmt.Errorf("differs from this build's catalog: missing %v, unexpected %v (%d listed, %d expected)", missing, extra, len(got), len(want))
}

// limitedWriter keeps the first n bytes written.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
