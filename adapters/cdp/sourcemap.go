package cdp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"unicode/utf8"

	"rea/ports"
)

// FetchSourceMap GETs an in-scope source map: no credentials, cookies or
// referrer, at most five redirects each re-checked against the scope, and
// a bounded body. Fetch failures are results, not errors; only an invalid
// request or cancellation is an error.
func (e *Engine) FetchSourceMap(ctx context.Context, req ports.SourceMapRequest) (*ports.SourceMapFetch, error) {
	origins, err := normalizeOrigins(req.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	if len(origins) == 0 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "allowed_origins", Msg: "a source map fetch needs its scope"}
	}
	sc := newScope(origins)
	maxBytes := req.MaxBytes
	if maxBytes <= 0 {
		maxBytes = 4 << 20
	}
	out := &ports.SourceMapFetch{URL: req.URL}
	policy := func(u string) bool {
		p, err := url.Parse(u)
		return err == nil && p.User == nil && sc.allows(u)
	}
	if !policy(req.URL) {
		out.Status, out.Reason = "policy_filtered", "the source map URL is outside the allowed origins"
		return out, nil
	}
	cur := req.URL
	client := httpClient()
	for hop := 0; ; hop++ {
		hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, cur, nil)
		if err != nil {
			out.Status, out.Reason = "fetch_failed", err.Error()
			return out, nil
		}
		hreq.Header.Set("Accept", "application/json, application/source-map+json;q=0.9")
		resp, err := client.Do(hreq)
		if err != nil {
			if ctx.Err() != nil {
				return nil, cancelled(ctx)
			}
			out.Status, out.Reason = "fetch_failed", err.Error()
			return out, nil
		}
		if resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") != "" {
			resp.Body.Close()
			next, ok := resolveRef(cur, resp.Header.Get("Location"))
			if !ok || hop >= 5 {
				out.Status, out.Reason = "fetch_failed", "too many or invalid redirects"
				return out, nil
			}
			if !policy(next) {
				out.Status, out.Reason = "policy_filtered", "a redirect left the allowed origins"
				return out, nil
			}
			cur = next
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			out.Status, out.Reason = "fetch_failed", resp.Status
			return out, nil
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
		if err != nil && !errors.Is(err, io.EOF) {
			if ctx.Err() != nil {
				return nil, cancelled(ctx)
			}
			out.Status, out.Reason = "fetch_failed", err.Error()
			return out, nil
		}
		if int64(len(body)) > maxBytes {
			out.Status, out.Reason = "truncated", "the source map is over the byte limit"
			return out, nil
		}
		if !utf8.Valid(body) {
			out.Status, out.Reason = "fetch_failed", "the source map is not UTF-8"
			return out, nil
		}
		out.Status, out.Body = "included", body
		return out, nil
	}
}
