package core

// artifactFamily is the artifact graph (CONTRACTS.md §15).
func artifactFamily() Family {
	return Family{Name: "artifact", Operations: artifactOperations()}
}
