package cdp

import (
	"net/url"
	"slices"
	"strings"

	"rea/ports"
)

// sanitizeURL removes userinfo ([N]: the rest of the URL is kept) and
// returns the URL's origin, "" when it has none (not http(s), unparseable).
func sanitizeURL(raw string) (clean, origin string) {
	u, err := url.Parse(raw)
	if err != nil {
		return raw, ""
	}
	if u.User != nil {
		u.User = nil
		raw = u.String()
	}
	return raw, originOf(u)
}

func originOf(u *url.URL) string {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return u.Scheme + "://" + host
}

// originOfString is originOf for a raw URL.
func originOfString(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return originOf(u)
}

// normalizeOrigins validates allowed_origins: exact http(s) origins, no
// userinfo, path "/" at most, no query or fragment. The result is
// deduplicated and sorted.
func normalizeOrigins(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, s := range in {
		u, err := url.Parse(s)
		bad := err != nil || u.User != nil || u.RawQuery != "" || u.Fragment != "" ||
			strings.ContainsAny(s, "?#*") || (u.Path != "" && u.Path != "/")
		o := originOf(u)
		if bad || o == "" {
			msg := "not an exact http(s) origin: " + s
			if hint := originHint(s); hint != "" {
				msg += ": use " + hint
			}
			return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "allowed_origins", Msg: msg}
		}
		out = append(out, o)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// originHint is the origin an agent most likely meant by s, a page URL
// or a bare host:port, or "" when there is none to offer.
func originHint(s string) string {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || strings.Contains(u.Host, "*") {
		return ""
	}
	return originOf(u)
}

// scope is the set of origins a call may observe.
type scope struct {
	list []string
	set  map[string]bool
}

func newScope(origins []string) scope {
	s := scope{list: origins, set: map[string]bool{}}
	for _, o := range origins {
		s.set[o] = true
	}
	return s
}

// reason is the exclusion reason of a URL, "" when in scope: empty →
// unattributed_origin, http(s) → disallowed_origin, else unsupported_url.
func (s scope) reason(raw string) string {
	if raw == "" {
		return "unattributed_origin"
	}
	o := originOfString(raw)
	if o == "" {
		return "unsupported_url"
	}
	if !s.set[o] {
		return "disallowed_origin"
	}
	return ""
}

func (s scope) allows(raw string) bool { return s.reason(raw) == "" }

// destination classifies a URL for timelines and DOM URLs.
func (s scope) destination(raw string) string {
	switch s.reason(raw) {
	case "":
		return "approved"
	case "disallowed_origin":
		return "outside_policy"
	}
	return "unsupported"
}
