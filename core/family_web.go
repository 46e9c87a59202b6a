package core

// webFamily is the comparison of supplied web captures.
func webFamily() Family {
	return Family{Name: "web", Operations: webOperations()}
}
