package cli

import (
	"errors"
	"fmt"

	"rea/ports"
)

// disassembleCmd streams the text disassembly of a whole native binary.
type disassembleCmd struct {
	Path    string `arg:"" help:"ELF, PE or Mach-O file." type:"path"`
	Section string `help:"Only this executable section (default: every one)."`
}

func (c *disassembleCmd) Run(e *env) error {
	if e.opts.Disassemble == nil {
		return fmt.Errorf("this build has no whole-file disassembler: %w", ports.ErrUnsupported)
	}
	if e.g.Format == "json" {
		return usageError{errors.New(`rea disassemble prints text only; rea call --target FILE procedure_assembly '{"procedure":NAME}' --format json gives one procedure as JSON`)}
	}
	w, finish := directOutput(e.opts.Stdout)
	err := e.opts.Disassemble(e.ctx, c.Path, c.Section, w)
	return errors.Join(err, finish())
}
