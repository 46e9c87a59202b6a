package ports

// Installation is what a look at the host found of one external engine,
// without starting it (rea doctor, rea providers). An engine adapter's
// discovery returns one; front ends only report it.
type Installation struct {
	// Engine is the engine's id (chromium, node, gdbserver, qemu-user, ghidra, hopper).
	Engine string `json:"id"`
	Name   string `json:"name"`
	// Role says what rea uses the engine for.
	Role string `json:"role"`
	// Configured: a setting names the engine (GHIDRA_INSTALL_DIR,
	// HOPPER_LAUNCHER_PATH); an engine found only on PATH is not configured.
	Configured bool `json:"configured"`
	Available  bool `json:"available"`
	// Path is the executable or installation directory found ("" if none).
	Path string `json:"path,omitempty"`
	// Version as the engine reports it, or as its installation records it.
	Version string `json:"version,omitempty"`
	Detail  string `json:"detail"`
	// Classification when not available: missing_analysis_engine,
	// missing_dependency, unsupported_host or config_drift (a configured
	// engine that cannot be used).
	Classification string `json:"classification,omitempty"`
	Remediation    string `json:"remediation,omitempty"`
}
