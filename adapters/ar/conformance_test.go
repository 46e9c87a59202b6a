package ar_test

import (
	"testing"

	"rea/adapters/ar"
	"rea/ports/portstest"
)

// The opener runs the container conformance suite on a GNU archive that ar
// and gcc build (symbol index, long-name table, long names) and on a BSD
// archive built by hand (__.SYMDEF, "#1/N" names).
func TestContainerConformance(t *testing.T) {
	t.Run("gnu", func(t *testing.T) {
		_, data := gnu(t, objects)
		portstest.RunContainer(t, ar.Opener{}, portstest.ContainerSample{Name: "libx.a", Format: ar.Format, Data: data})
	})
	t.Run("bsd", func(t *testing.T) {
		data := bsd([2]string{"a.o", "alpha"}, [2]string{"a_long_bsd_member_name.o", "beta!"})
		portstest.RunContainer(t, ar.Opener{}, portstest.ContainerSample{Name: "libbsd.a", Format: ar.Format, Data: data})
	})
}
