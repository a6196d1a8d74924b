package httpapi

// WithRefresh sets the page's auto-refresh period in seconds (< 1:
// RefreshSeconds).
func WithRefresh(seconds int) Option {
	return func(s *server) {
		if seconds < 1 {
			seconds = RefreshSeconds
		}
		s.refresh = seconds
	}
}
