package native

import "context"

// CacheProfileDigest is the profile part of a's warm cache key, or "" when
// a keeps no cache.
func CacheProfileDigest(ctx context.Context, a *Analysis) string {
	k, ok := a.cacheKey(ctx)
	if !ok {
		return ""
	}
	return k.ProfileDigest
}
